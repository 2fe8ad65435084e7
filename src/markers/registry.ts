import { OpGenError } from '../errors.ts';
import { ProblemsError } from '../shared/problems.ts';
import { editDistance } from './edit-distance.ts';
import { convertArg, MarkerArgumentError, parseNamedArgs } from './args.ts';
import type { ArgValue, MarkerSpec, MarkerTarget, ParsedMarker, RawTag, SourceLocation } from './types.ts';

const TARGET_WORDS: Record<MarkerTarget, string> = {
  package: 'a version folder (groupversion.ts)',
  type: 'a type (interface, type alias or kind)',
  field: 'a field',
};

/** Formats a marker error: `file:line: @tag: problem. fix` */
export function markerError(
  location: SourceLocation,
  tag: string,
  message: string,
  fix?: string,
): OpGenError {
  return new OpGenError(`${location.file}:${location.line}: @${tag}: ${message}${fix ? `. ${fix}` : ''}`);
}

/** JSDoc tags that are never markers: they pass through untouched (and never trigger "did you mean"). */
const FOREIGN_TAGS = new Set([
  'see',
  'link',
  'remarks',
  'since',
  'todo',
  'author',
  'param',
  'returns',
  'return',
  'type',
  'typedef',
  'internal',
  'beta',
  'alpha',
  'public',
  'private',
  'protected',
  'readonly',
  'override',
  'template',
  'defaultValue',
  'deprecated',
  'throws',
  'experimental',
  'packageDocumentation',
  'module',
  'file',
  'license',
]);

/**
 * A table of markers for one generator. Lookup by tag name (and variant word), parsing and argument
 * validation with file:line errors, and docs all come from the same specs.
 */
export class MarkerRegistry<Effect> {
  readonly specs: readonly MarkerSpec<Effect>[];
  readonly #byTag = new Map<string, MarkerSpec<Effect>>();
  readonly #variants = new Map<string, Map<string, MarkerSpec<Effect>>>();

  constructor(specs: readonly MarkerSpec<Effect>[]) {
    this.specs = specs;
    for (const spec of specs) {
      for (const name of [spec.name, ...(spec.aliases ?? [])]) {
        const space = name.indexOf(' ');
        if (space < 0) {
          this.#add(this.#byTag, name.toLowerCase(), spec);
        } else {
          const tag = name.slice(0, space).toLowerCase();
          const variants = this.#variants.get(tag) ?? new Map<string, MarkerSpec<Effect>>();
          this.#variants.set(tag, variants);
          this.#add(variants, name.slice(space + 1).toLowerCase(), spec);
        }
      }
    }
  }

  #add(map: Map<string, MarkerSpec<Effect>>, key: string, spec: MarkerSpec<Effect>): void {
    if (map.has(key)) throw new Error(`marker registry: "${key}" is registered twice`);
    map.set(key, spec);
  }

  /** Whether the tag name belongs to this registry (also `items:<name>` and variant tags). */
  knows(tagName: string): boolean {
    const tag = tagName.toLowerCase();
    const base = tag.startsWith('items:') ? tag.slice(6) : tag;
    return this.#byTag.has(base) || this.#variants.has(tag);
  }

  /** A registered tag name close to `tagName` (a likely typo), if any. */
  suggest(tagName: string): string | undefined {
    if (FOREIGN_TAGS.has(tagName)) return undefined;
    const tag = tagName.toLowerCase();
    let best: { name: string; d: number } | undefined;
    for (const name of [...this.#byTag.keys(), ...this.#variants.keys()]) {
      const d = editDistance(tag, name);
      if (d <= (name.length > 5 ? 2 : 1) && (!best || d < best.d)) best = { name, d };
    }
    if (!best) return undefined;
    const spec = this.#byTag.get(best.name) ?? this.#variants.get(best.name)?.values().next().value;
    return spec ? spec.name.split(' ')[0] : best.name;
  }

  /**
   * Parses a tag found on a `target`. Returns undefined for tags this registry does not know (other
   * tools' tags pass through); throws an OpGenError with file:line for a known tag used wrongly, and
   * for an unknown tag that looks like a typo of a known one.
   */
  parse(tag: RawTag, target: MarkerTarget, file: string): ParsedMarker<Effect> | undefined {
    const location = { file, line: tag.line };
    const lower = tag.name.toLowerCase();
    let items = false;
    let spec: MarkerSpec<Effect> | undefined;
    let text = tag.text;
    const variants = this.#variants.get(lower);
    if (variants) {
      const word = /^\S+/.exec(text)?.[0] ?? '';
      spec = variants.get(word.toLowerCase());
      if (!spec) {
        throw markerError(
          location,
          tag.name,
          word ? `unknown kind "${word}"` : 'missing its kind',
          `Write one of: ${[...variants.keys()].map((v) => `@${tag.name} ${v}`).join(', ')}`,
        );
      }
      text = text.slice(word.length).trim();
    } else if (lower.startsWith('items:')) {
      spec = this.#byTag.get(lower.slice(6));
      items = true;
      if (spec && !spec.itemsVariant) {
        throw markerError(
          location,
          tag.name,
          `@${spec.name} has no items: form`,
          `Put @${spec.name} on the element type instead`,
        );
      }
    } else {
      spec = this.#byTag.get(lower);
    }
    if (!spec) {
      const suggestion = this.suggest(tag.name);
      if (suggestion) {
        throw markerError(
          location,
          tag.name,
          'unknown marker',
          `Did you mean @${suggestion}? (see docs/markers.md)`,
        );
      }
      return undefined;
    }
    if (spec.unsupported) {
      throw markerError(location, tag.name, `not supported by op-gen: ${spec.unsupported}`);
    }
    if (!spec.targets.includes(target)) {
      throw markerError(
        location,
        tag.name,
        `cannot stand on ${TARGET_WORDS[target]}`,
        `Put it on ${spec.targets.map((t) => TARGET_WORDS[t]).join(' or ')}`,
      );
    }
    let value: ArgValue | undefined;
    let args: Record<string, ArgValue> = {};
    try {
      if (spec.value && spec.args) {
        // A positional value first, then named arguments.
        const m = /^(\S+)\s*([\s\S]*)$/.exec(text);
        const first = m?.[1] ?? '';
        if (first && !/^[A-Za-z_][\w.-]*=/.test(first)) {
          value = convertArg(spec.value.type, first, 'value', spec.value);
          text = m?.[2] ?? '';
        } else if (spec.value.required) {
          throw new MarkerArgumentError(`missing its value (${spec.value.help})`);
        }
        args = parseNamedArgs(text, spec.args);
      } else if (spec.value) {
        if (text === '') {
          if (spec.value.required) throw new MarkerArgumentError(`missing its value (${spec.value.help})`);
          value = spec.value.type === 'bool' ? true : undefined;
        } else {
          value = convertArg(spec.value.type, text, 'value', spec.value);
        }
      } else if (spec.args) {
        args = parseNamedArgs(text, spec.args);
      } else if (text !== '') {
        throw new MarkerArgumentError(`takes no arguments, got "${text}"`);
      }
    } catch (err) {
      if (err instanceof MarkerArgumentError) {
        throw markerError(location, tag.name, err.message, `See @${spec.name} in docs/markers.md`);
      }
      throw err;
    }
    return { spec, tag: tag.name, value, args, items, location };
  }

  /**
   * Parses every tag of one declaration: known markers in order, unknown tags kept apart.
   * A non-repeatable marker given twice is an error.
   */
  parseAll(
    tags: readonly RawTag[],
    target: MarkerTarget,
    file: string,
    inline: readonly { readonly name: string; readonly line: number }[] = [],
    /** Receives each problem (the markers without one are returned); without it, they are thrown. */
    report?: (problem: string) => void,
  ): { markers: ParsedMarker<Effect>[]; unknown: RawTag[] } {
    const problems: string[] = [];
    for (const tag of inline) {
      if (this.knows(tag.name)) {
        problems.push(
          markerError(
            { file, line: tag.line },
            tag.name,
            'stands in the middle of a line, where it is not read as a marker',
            'Start a new comment line with it (one marker per line)',
          ).message,
        );
      }
    }
    const markers: ParsedMarker<Effect>[] = [];
    const unknown: RawTag[] = [];
    const seen = new Set<string>();
    for (const tag of tags) {
      let parsed: ParsedMarker<Effect> | undefined;
      try {
        parsed = this.parse(tag, target, file);
      } catch (err) {
        if (!(err instanceof OpGenError)) throw err;
        problems.push(err.message);
        continue;
      }
      if (!parsed) {
        unknown.push(tag);
        continue;
      }
      const key = `${parsed.items ? 'items:' : ''}${parsed.spec.name}`;
      if (!parsed.spec.repeatable && seen.has(key)) {
        problems.push(
          markerError(parsed.location, tag.name, 'given twice on the same declaration', 'Keep one').message,
        );
        continue;
      }
      seen.add(key);
      markers.push(parsed);
    }
    // Every problem of the declaration at once (one is thrown as it always was).
    if (report) problems.forEach(report);
    else if (problems.length > 0) throw new ProblemsError(problems.map((text) => ({ text })));
    return { markers, unknown };
  }
}
