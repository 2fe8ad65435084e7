import type { Document, LineCounter as LineCounterType, Scalar, YAMLMap } from 'yaml';
import { yamlPackage } from './yaml-package.ts';
import { indentQuotedContinuations } from './yaml-quoted-lines.ts';
import { goMapKey, goPlainScalar } from './yaml-scalars.ts';

/** One document of a YAML stream, converted to plain values. */
export interface YamlDocumentValue {
  /** The document's value: null for an empty document. */
  readonly value: unknown;
  /** 0-based position of the document in the stream. */
  readonly index: number;
  /** 1-based line where the document's content starts. */
  readonly line: number;
  /** The parsed document, for callers that print its source again. */
  readonly document: Document;
}

/** Why a YAML stream cannot be read: where (1-based) and the parser's message, first line only. */
export interface YamlProblem {
  readonly index: number;
  readonly line: number;
  readonly col: number | undefined;
  readonly message: string;
  /** `kubernetes`: YAML the parser reads but Kubernetes' reader (sigs.k8s.io/yaml) refuses. */
  readonly kind: 'syntax' | 'alias' | 'kubernetes';
}

/**
 * Every document of a YAML (or JSON) text as plain values, read as Kubernetes reads YAML
 * (sigs.k8s.io/yaml over go-yaml v2, strict as kubectl applies): plain scalars resolved by YAML 1.1's
 * rules as go-yaml has them (yaml-scalars.ts: `yes`/`on` booleans, `0755` octal, `1_000`), map keys
 * spelled as Go spells them, `<<` merge keys, and quoted scalars continued at their key's indentation.
 * What Kubernetes refuses and the `yaml` package would read is refused too: `.inf`/`.nan` (no JSON
 * form), null keys, a key set twice once resolved (`yes:` and `on:`), a key a `<<` merge also sets.
 * tools/go-yaml-verdicts records go-yaml's verdicts; test/unit/shared/yaml-go-verdicts.test.ts holds
 * the reader to them. The first problem (a syntax error, an alias without its anchor, aliases that
 * expand too far, YAML Kubernetes refuses) ends the read as `fail(problem)`, which the caller turns
 * into its own error: one message with the file and line, never a crash in the conversion.
 */
export function readYamlDocuments(text: string, fail: (problem: YamlProblem) => Error): YamlDocumentValue[] {
  const { LineCounter, parseAllDocuments } = yamlPackage();
  let lineCounter: LineCounterType = new LineCounter();
  // `merge`: `<<` keys merge mappings, as go-yaml (YAML 1.1) reads them.
  const options = { lineCounter, prettyErrors: true, merge: true };
  let parsed = parseAllDocuments(text, options);
  let parsedText = text;
  // An empty stream is an EmptyStream, not a list.
  if (!Array.isArray(parsed)) return [];
  if (parsed.some((d) => d.errors.length > 0)) {
    // A quoted scalar continued at its key's indentation: go-yaml reads it, so op-gen does too.
    const indented = indentQuotedContinuations(text);
    if (indented !== undefined) {
      const retryCounter: LineCounterType = new LineCounter();
      const retry = parseAllDocuments(indented, { ...options, lineCounter: retryCounter });
      if (Array.isArray(retry) && retry.every((d) => d.errors.length === 0)) {
        parsed = retry;
        parsedText = indented;
        lineCounter = retryCounter;
      }
    }
  }
  return parsed.map((document, index) => {
    const line = lineCounter.linePos(document.contents?.range[0] ?? document.range[0]).line;
    const syntax = document.errors[0];
    if (syntax) {
      const at = syntax.linePos?.[0];
      throw fail({
        index,
        line: at?.line ?? line,
        col: at?.col,
        message:
          syntax.code === 'DUPLICATE_KEY'
            ? `key "${parsedText.slice(syntax.pos[0], syntax.pos[1])}" is set twice in this map (YAML refuses duplicate keys, and so does Kubernetes' strict reading)`
            : yamlErrorMessage(syntax.message),
        kind: 'syntax',
      });
    }
    const refused = readAsGoYaml(document);
    if (refused) {
      const at = lineCounter.linePos(refused.offset);
      throw fail({ index, line: at.line, col: at.col, message: refused.message, kind: 'kubernetes' });
    }
    try {
      return { value: document.toJS() ?? null, index, line, document };
    } catch (err) {
      const offset = unresolvedAliasOffset(document);
      const at = offset === undefined ? line : lineCounter.linePos(offset).line;
      const message = err instanceof Error ? err.message : String(err);
      throw fail({ index, line: at, col: undefined, message, kind: 'alias' });
    }
  });
}

/**
 * Where (a character offset) the first alias without its anchor is in a parsed document, if any: the
 * `yaml` package parses `*a` without complaint and throws only when the document is converted or
 * printed.
 */
export function unresolvedAliasOffset(document: Document): number | undefined {
  const { visit } = yamlPackage();
  let at: number | undefined;
  visit(document, {
    Alias(_key, node) {
      if (node.resolve(document) !== undefined || !node.range) return undefined;
      at = node.range[0];
      return visit.BREAK;
    },
  });
  return at;
}

/** The `yaml` package's error message without its place and code frame (callers give the place). */
export function yamlErrorMessage(message: string): string {
  return (message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
}

const TAG = 'tag:yaml.org,2002:';
/** How op-gen's messages name Kubernetes' YAML reader. */
const K8S = "Kubernetes' YAML reading (sigs.k8s.io/yaml, go-yaml)";

/**
 * Sets a parsed document's scalars to the values go-yaml gives them, and finds the first thing
 * Kubernetes' reader refuses (its offset and why).
 */
function readAsGoYaml(document: Document): { offset: number; message: string } | undefined {
  const { visit } = yamlPackage();
  let problem: { offset: number; message: string } | undefined;
  visit(document, {
    Scalar(key, node) {
      const message = resolveAsGo(node, key === 'key');
      if (message === undefined) return undefined;
      problem = { offset: node.range?.[0] ?? 0, message };
      return visit.BREAK;
    },
  });
  if (problem) return problem;
  visit(document, {
    Map(_key, map) {
      problem = keyTwice(document, map);
      return problem ? visit.BREAK : undefined;
    },
  });
  return problem;
}

/** Gives one scalar go-yaml's value (a key: its JSON property name); a message when Kubernetes refuses it. */
function resolveAsGo(node: Scalar, isKey: boolean): string | undefined {
  if (typeof node.value === 'symbol') return undefined; // a `<<` merge key
  const text = typeof node.source === 'string' ? node.source : String(node.value);
  const tag = node.tag?.startsWith(TAG) ? node.tag.slice(TAG.length) : node.tag;
  if (tag === 'str') return undefined;
  if (tag === 'binary') {
    node.value = Buffer.from(text.replace(/\s/g, ''), 'base64').toString('utf8');
    return undefined;
  }
  if (tag === undefined ? node.type !== 'PLAIN' : !['int', 'float', 'bool', 'null'].includes(tag))
    return undefined;
  const go = goPlainScalar(text);
  if (tag !== undefined && go.kind !== tag && !(tag === 'float' && go.kind === 'int'))
    return `cannot decode \`${text}\` as !!${tag} (go-yaml reads it as ${go.kind === 'nonFinite' ? 'float' : go.kind})`;
  if (isKey) {
    const name = goMapKey(go);
    if (name === undefined)
      return `the map key \`${text}\` is ${go.kind === 'null' ? 'null' : 'an unsigned 64-bit integer'}, which ${K8S} refuses as a JSON property name; quote the key`;
    node.value = name;
    return undefined;
  }
  if (go.kind === 'nonFinite')
    return `\`${text}\` is ${Number.isNaN(go.value) ? 'NaN' : 'infinity'}, which JSON cannot hold, so ${K8S} refuses the file; quote it if the text is meant`;
  node.value = go.value;
  return undefined;
}

/**
 * A key set twice in one map once resolved (`yes:` and `on:` are both `true`), or set both in the
 * map and by a `<<` merge (or by two merged maps): go-yaml's strict reading refuses both.
 */
function keyTwice(document: Document, map: YAMLMap): { offset: number; message: string } | undefined {
  const { isAlias, isMap, isScalar, isSeq } = yamlPackage();
  const seen = new Map<string, 'map' | 'merge'>();
  const keyOf = (key: unknown): string | undefined =>
    isScalar(key) && typeof key.value !== 'symbol' ? String(key.value) : undefined;
  for (const pair of map.items) {
    const key = pair.key;
    const offset = isScalar(key) ? (key.range?.[0] ?? 0) : 0;
    if (isScalar(key) && typeof key.value === 'symbol') {
      const value = pair.value;
      const sources = isSeq(value) ? value.items : [value];
      for (const source of sources) {
        const merged = isAlias(source) ? source.resolve(document) : source;
        if (!isMap(merged))
          return { offset, message: `a \`<<\` merge takes a map or a list of maps, as ${K8S} requires` };
        for (const item of merged.items) {
          const name = keyOf(item.key);
          if (name === undefined) continue;
          if (seen.has(name))
            return {
              offset,
              message: `the \`<<\` merge sets key "${name}" again, which ${K8S} refuses when strict, as kubectl reads files; write the key once (spell the map out instead of merging it)`,
            };
          seen.set(name, 'merge');
        }
      }
      continue;
    }
    const name = keyOf(key);
    if (name === undefined) continue;
    const before = seen.get(name);
    if (before)
      return {
        offset,
        message:
          before === 'merge'
            ? `key "${name}" is also set by the \`<<\` merge, which ${K8S} refuses when strict, as kubectl reads files; write the key once (spell the map out instead of merging it)`
            : `key "${name}" is set twice in this map as ${K8S} reads its keys (YAML 1.1: yes/on/y are true, no/off/n false, 0755 is 493); quote the keys`,
      };
    seen.set(name, 'map');
  }
  return undefined;
}
