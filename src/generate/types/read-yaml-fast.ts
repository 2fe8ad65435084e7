/**
 * The fast way to read CRD files: js-yaml's event parser (YAML 1.2 core schema, as the `yaml`
 * package reads by default) in about a third of the `yaml` package's time on large CRDs. It gives
 * each document's value and the line its content starts on, or undefined when the text is one the
 * two parsers might read differently or that js-yaml rejects: then read-crds.ts takes the `yaml`
 * package's path, whose error messages are the ones users see. test/unit/types/read-yaml-fast.test.ts
 * holds both paths to the same values.
 */
import { constructFromEvents, CORE_SCHEMA, EVENT_ID, parseEvents, SCALAR_STYLE, type Event } from 'js-yaml';

export interface FastDocument {
  /** The document's value (null for an empty document). */
  readonly value: unknown;
  /** 1-based line where the document's content starts. */
  readonly line: number;
}

/**
 * Directives (`%YAML 1.1` switches the `yaml` package to YAML 1.1 scalars), numbers that overflow a
 * double and `<<` merge keys (js-yaml's core schema keeps them as keys) are left to the `yaml` package.
 */
const LEFT_TO_YAML = /^%|\d\.?[eE][+-]?\d{3}|(?:^|[\s{,])<<\s*:/m;

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
  if (hasAmbiguousKey(events, text)) return undefined;
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
 * (`~: 1` is `"null"` to js-yaml and `""` to the `yaml` package), an alias or a collection.
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
        if (e.style === SCALAR_STYLE.PLAIN && NULL_PLAIN.has(text.slice(e.valueStart, e.valueEnd)))
          return true;
      }
      open[top] = count + 1;
    }
    if (e.type === EVENT_ID.MAPPING) open.push(0);
    else if (e.type === EVENT_ID.SEQUENCE) open.push('seq');
  }
  return false;
}
