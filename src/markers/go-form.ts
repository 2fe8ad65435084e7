import { editDistance } from './edit-distance.ts';
import type { MarkerSpec } from './types.ts';

/**
 * controller-gen's (Go) marker syntax, `+kubebuilder:validation:Minimum=0`, is not read by op-gen; a
 * user coming from kubebuilder writes it anyway (as a comment line or as a `@kubebuilder:...` tag).
 * This index, built from the registries' `controllerGen` names, recognises such a marker and says
 * the op-gen form to write instead (`@minimum 0`). A registry gets this by naming its markers'
 * controller-gen counterparts; nothing else is needed.
 */

interface Entry {
  /** The controller-gen name without `+` and without arguments (`kubebuilder:validation:Minimum`). */
  readonly name: string;
  readonly spec: MarkerSpec<unknown>;
}

/** What a Go-form marker should be written as. */
export interface GoFormHint {
  /** The op-gen form (`@minimum 0`), or undefined when op-gen has no such marker. */
  readonly write?: string;
  /** The matched op-gen marker, when there is one. */
  readonly spec?: MarkerSpec<unknown>;
  /** Set when the op-gen marker exists but is not supported: the reason. */
  readonly unsupported?: string;
}

/** `+name=value`, `+name:key=v,key2=v2`, `+name` on a line of its own (after `*`). */
const GO_FORM_LINE = /^\+([A-Za-z][\w.-]*(?::[\w.-]+)*)(?:[=:]|$)/;

export class GoFormIndex {
  readonly #entries: readonly Entry[];
  readonly #byName = new Map<string, Entry>();
  /** First words of namespaced controller-gen names (`kubebuilder`, `k8s`): any name under them is Go form. */
  readonly #namespaces = new Set<string>();

  constructor(specs: readonly MarkerSpec<unknown>[]) {
    const entries: Entry[] = [];
    for (const spec of specs) {
      for (const raw of (spec.controllerGen ?? '').split(',')) {
        const name = raw
          .trim()
          .replace(/\s*\(.*\)$/, '')
          .replace(/^\+/, '')
          .replace(/=$/, '');
        if (!/^[A-Za-z][\w:.-]*$/.test(name)) continue;
        const key = name.toLowerCase();
        if (this.#byName.has(key)) continue; // the first registration wins (e.g. package-wide Optional)
        const entry = { name, spec };
        entries.push(entry);
        this.#byName.set(key, entry);
        if (name.includes(':')) this.#namespaces.add(name.slice(0, name.indexOf(':')).toLowerCase());
      }
    }
    this.#entries = entries;
  }

  /**
   * Whether `text` (a comment line without its `*`, or a tag `@name rest` without `@`) is a
   * controller-gen marker: a name op-gen's registries list, or any name under their namespaces.
   */
  recognizes(text: string): boolean {
    const name = /^[A-Za-z][\w:.-]*/.exec(text)?.[0] ?? '';
    if (!name) return false;
    const lower = name.toLowerCase();
    if (this.#match(lower)) return true;
    const colon = lower.indexOf(':');
    return colon > 0 && this.#namespaces.has(lower.slice(0, colon));
  }

  /** Whether a comment line (without its `*`) is a `+marker` line. */
  isGoFormLine(line: string): boolean {
    const m = GO_FORM_LINE.exec(line);
    return m !== null && this.recognizes(line.slice(1));
  }

  /**
   * The op-gen form of a controller-gen marker. `text` is the marker without its `+` or `@`, e.g.
   * `kubebuilder:validation:Minimum=0` or (a tag) `kubebuilder:validation:Minimum 0`.
   */
  hint(text: string): GoFormHint {
    const trimmed = text.trim();
    const lower = trimmed.toLowerCase();
    let entry = this.#match(lower);
    let rest = entry ? trimmed.slice(entry.name.length) : '';
    if (!entry) {
      // A misspelt name: the closest registered one.
      const name = /^[A-Za-z][\w:.-]*/.exec(trimmed)?.[0] ?? '';
      let best: { entry: Entry; d: number; used: number } | undefined;
      for (const candidate of this.#entries) {
        const segments = candidate.name.split(':').length;
        const parts = name.split(':');
        const head = parts.slice(0, segments).join(':');
        const d = editDistance(head.toLowerCase(), candidate.name.toLowerCase());
        if (d <= 2 && (!best || d < best.d)) best = { entry: candidate, d, used: head.length };
      }
      if (!best) return {};
      entry = best.entry;
      rest = trimmed.slice(best.used);
    }
    // `+kubebuilder:resource:path=foos,scope=Cluster`: `path` is an argument of `resource`, not the
    // `resource:path` marker, when more arguments follow.
    if (rest.startsWith('=') && splitTopLevel(rest.slice(1), ',').length > 1) {
      const colon = entry.name.lastIndexOf(':');
      const parent = colon > 0 ? this.#byName.get(entry.name.slice(0, colon).toLowerCase()) : undefined;
      if (parent?.spec.args) {
        rest = `:${entry.name.slice(colon + 1)}${rest}`;
        entry = parent;
      }
    }
    const spec = entry.spec;
    if (spec.unsupported) return { spec, unsupported: spec.unsupported };
    return { spec, write: render(spec, rest) };
  }

  #match(lower: string): Entry | undefined {
    let found: Entry | undefined;
    for (const [key, entry] of this.#byName) {
      if (!lower.startsWith(key)) continue;
      const next = lower[key.length];
      if (next !== undefined && next !== '=' && next !== ':' && !/\s/.test(next)) continue;
      if (!found || key.length > found.name.length) found = entry;
    }
    return found;
  }
}

/** `@name value key=v`: the op-gen form of a controller-gen marker's arguments (`=v`, `:k=v,k2=v2`). */
function render(spec: MarkerSpec<unknown>, rest: string): string {
  const tag = `@${spec.name}`;
  let value: string | undefined;
  let argText: string | undefined;
  if (rest.startsWith('=')) value = rest.slice(1).trim();
  else if (rest.startsWith(':')) argText = rest.slice(1).trim();
  else if (rest.trim() !== '') {
    const r = rest.trim();
    if (spec.args && !spec.value && /^[A-Za-z_][\w.-]*=/.test(r)) argText = r;
    else value = r;
  }
  const parts = [tag];
  if (value !== undefined) {
    // `+kubebuilder:object:root=true`: a flag; op-gen's marker takes no `true` unless its value is one.
    const flag = value === 'true' && spec.value?.type !== 'bool' && spec.value?.type !== 'json';
    if (spec.value && !flag) parts.push(goValue(value));
    else if (spec.args && /^[A-Za-z_][\w.-]*=/.test(value)) argText = value;
    // `+kubebuilder:object:root=true`, `+kubebuilder:subresource:status`: a flag, no value in op-gen.
  }
  if (argText !== undefined) {
    const args = splitTopLevel(argText, ',').map((arg) => {
      const eq = arg.indexOf('=');
      if (eq < 0) return arg.trim();
      const key = arg.slice(0, eq).trim();
      const known = Object.keys(spec.args ?? {}).find((k) => k.toLowerCase() === key.toLowerCase());
      return `${known ?? key}=${goValue(arg.slice(eq + 1).trim())}`;
    });
    if (spec.value && !spec.args && args.length === 1) parts.push(args[0] ?? '');
    else parts.push(...args);
  }
  return parts.join(' ');
}

/** controller-gen writes lists as `{a,b}` or `a;b`; op-gen as `a;b`. */
function goValue(value: string): string {
  const list = /^\{(.*)\}$/.exec(value);
  if (list && !/^\{\s*"/.test(value)) return splitTopLevel(list[1] ?? '', ',').join(';');
  return value;
}

/** Splits at `sep` outside quotes, braces and brackets. */
function splitTopLevel(text: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '{' || c === '[' || c === '(') depth++;
    else if (c === '}' || c === ']' || c === ')') depth--;
    else if (c === sep && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(text.slice(start).trim());
  return out.filter((s) => s !== '');
}
