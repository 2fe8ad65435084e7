import type { Document, LineCounter as LineCounterType } from 'yaml';
import { yamlPackage } from './yaml-package.ts';
import { indentQuotedContinuations } from './yaml-quoted-lines.ts';

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
  readonly kind: 'syntax' | 'alias';
}

/**
 * Every document of a YAML (or JSON) text as plain values, with the `yaml` package's YAML 1.2 core
 * schema, `<<` merge keys, and quoted scalars continued at their key's indentation (both as go-yaml
 * reads them; test/unit/shared/yaml-go-verdicts.test.ts holds the reader to go-yaml's verdicts). The first problem (a syntax error, an alias without its anchor, aliases that expand too
 * far) ends the read as `fail(problem)`, which the caller turns into its own error: one message with
 * the file and line, never a crash in the conversion.
 */
export function readYamlDocuments(text: string, fail: (problem: YamlProblem) => Error): YamlDocumentValue[] {
  const { LineCounter, parseAllDocuments } = yamlPackage();
  let lineCounter: LineCounterType = new LineCounter();
  // `merge`: `<<` keys merge mappings, as go-yaml (YAML 1.1) reads them.
  const options = { lineCounter, prettyErrors: true, merge: true };
  let parsed = parseAllDocuments(text, options);
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
        message: yamlErrorMessage(syntax.message),
        kind: 'syntax',
      });
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
