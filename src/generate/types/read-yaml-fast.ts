/**
 * The fast way to read CRD files: js-yaml's event parser (YAML 1.2 core schema, as the `yaml`
 * package reads by default) in about a third of the `yaml` package's time on large CRDs. It gives
 * each document's value and the line its content starts on, or undefined when the text is one the
 * two parsers might read differently or that js-yaml rejects: then read-crds.ts takes the `yaml`
 * package's path, whose error messages are the ones users see. test/unit/types/read-yaml-fast.test.ts
 * holds both paths to the same values.
 */
import { constructFromEvents, CORE_SCHEMA, EVENT_ID, parseEvents, SCALAR_STYLE, type Event } from 'js-yaml';
import { goPlainScalar } from '../../shared/yaml-scalars.ts';

export interface FastDocument {
  /** The document's value (null for an empty document). */
  readonly value: unknown;
  /** 1-based line where the document's content starts. */
  readonly line: number;
}

/**
 * Directives (`%YAML 1.1` switches the `yaml` package to YAML 1.1 scalars), numbers that overflow a
 * double, `<<` merge keys (js-yaml's core schema keeps them as keys) and explicit tags (`!!int 0755`,
 * resolved as go-yaml does by the shared reader) are left to the `yaml` package.
 */
const LEFT_TO_YAML = /^%|\d\.?[eE][+-]?\d{3}|(?:^|[\s{,])<<\s*:|!!/m;

/**
 * A line starting with a key of 1,024 characters or more: YAML limits implicit keys to 1,024
 * (go-yaml and the `yaml` package refuse longer ones), js-yaml does not.
 */
const LONG_LINE = /^[ \t-]*[^\s:#][^:\n]{1023,}:/m;

export function readYamlFast(text: string): FastDocument[] | undefined {
  if (LEFT_TO_YAML.test(text) || LONG_LINE.test(text)) return undefined;
  let events: Event[];
  let values: unknown[];
  try {
    events = parseEvents(text, {});
    values = constructFromEvents(events, { source: text, schema: CORE_SCHEMA });
  } catch {
    return undefined;
  }
  if (hasAmbiguousKey(events, text) || hasYaml11Scalar(events, text)) return undefined;
  const starts = documentStarts(events);
  if (starts === undefined || starts.length !== values.length) return undefined;
  const lines = lineNumbers(text, starts);
  return values.map((value, i) => ({ value: value ?? null, line: lines[i] ?? 1 }));
}

/**
 * The offset where each document's root node starts (0 for an empty document); undefined for a
 * block scalar as a document (its events give where the text starts, not its `|` header).
 */
function documentStarts(events: readonly Event[]): number[] | undefined {
  const starts: number[] = [];
  for (let i = 0; i < events.length; i++) {
    if (events[i]?.type !== EVENT_ID.DOCUMENT) continue;
    const root = events[i + 1];
    let at = 0;
    if (root?.type === EVENT_ID.MAPPING || root?.type === EVENT_ID.SEQUENCE) at = root.start;
    else if (root?.type === EVENT_ID.SCALAR) {
      if (root.style === SCALAR_STYLE.LITERAL_BLOCK || root.style === SCALAR_STYLE.FOLDED_BLOCK)
        return undefined;
      at = root.valueStart;
    }
    const props = [
      root && 'anchorStart' in root ? root.anchorStart : -1,
      root && 'tagStart' in root ? root.tagStart : -1,
    ];
    for (const p of props) if (p >= 0 && p < at) at = p;
    starts.push(at);
  }
  return starts;
}

/** 1-based line numbers of ascending offsets (documents come in order), in one pass over the text. */
function lineNumbers(text: string, offsets: readonly number[]): number[] {
  let line = 1;
  let next = text.indexOf('\n');
  return offsets.map((offset) => {
    while (next !== -1 && next < offset) {
      line++;
      next = text.indexOf('\n', next + 1);
    }
    return line;
  });
}

/** Plain scalars YAML's core schema reads as null. */
const NULL_PLAIN = new Set(['', '~', 'null', 'Null', 'NULL']);

/**
 * Whether a mapping has a key the two parsers turn into different property names: a null key
 * (`~: 1` is `"null"` to js-yaml and `""` to the `yaml` package), a key that is not a string as
 * go-yaml reads it (`yes:`, `1e6:`), an alias or a collection.
 */
function hasAmbiguousKey(events: readonly Event[], text: string): boolean {
  // For each open collection: a mapping's count of nodes so far (even: the next node is a key).
  const open: (number | 'seq')[] = [];
  for (const e of events) {
    if (e.type === EVENT_ID.POP) {
      open.pop();
      continue;
    }
    if (e.type === EVENT_ID.DOCUMENT) {
      open.push('seq');
      continue;
    }
    const top = open.length - 1;
    const count = open[top];
    if (typeof count === 'number') {
      if (count % 2 === 0) {
        if (e.type !== EVENT_ID.SCALAR) return true;
        if (e.style === SCALAR_STYLE.PLAIN) {
          const raw = text.slice(e.valueStart, e.valueEnd);
          // Keys that are not strings: go-yaml spells them its own way (`1e6` is "1e+06").
          if (NULL_PLAIN.has(raw) || goPlainScalar(raw).kind !== 'str') return true;
        }
      }
      open[top] = count + 1;
    }
    if (e.type === EVENT_ID.MAPPING) open.push(0);
    else if (e.type === EVENT_ID.SEQUENCE) open.push('seq');
  }
  return false;
}

/** Plain scalars YAML 1.2's core schema (js-yaml's CORE_SCHEMA) reads as something else than a string. */
const CORE_NON_STRING =
  /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|~|null|Null|NULL|true|True|TRUE|false|False|FALSE)$/;
/** Numbers both schemas read alike (decimal, no sign, no leading zero). */
const SAME_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?$/;
const CORE_BOOL = new Set(['true', 'True', 'TRUE', 'false', 'False', 'FALSE']);

/**
 * Whether a plain scalar reads differently as Kubernetes reads YAML (go-yaml: YAML 1.1, yaml-scalars.ts)
 * than as js-yaml's core schema reads it (`yes`, `on`, `0755`, `1_000`, `.inf`, `1e400`) or is one
 * Kubernetes refuses: the shared reader resolves those as go-yaml does, or says why it refuses them.
 */
function hasYaml11Scalar(events: readonly Event[], text: string): boolean {
  for (const e of events) {
    if (e.type !== EVENT_ID.SCALAR || e.style !== SCALAR_STYLE.PLAIN) continue;
    const raw = text.slice(e.valueStart, e.valueEnd);
    const go = goPlainScalar(raw);
    switch (go.kind) {
      case 'str':
        if (CORE_NON_STRING.test(raw)) return true;
        break;
      case 'null':
        break;
      case 'bool':
        if (!CORE_BOOL.has(raw)) return true;
        break;
      case 'int':
      case 'float':
        if (!SAME_NUMBER.test(raw)) return true;
        break;
      default:
        return true;
    }
  }
  return false;
}
