import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';

/**
 * Mutations of a CRD file for the fuzz tests of the commands that read CRDs (generate types, crd
 * diff): a line deleted, duplicated, indented or dedented, stray punctuation, or a value replaced by
 * one of the wrong kind.
 */
const WRONG_VALUES = [
  '',
  '5',
  'true',
  '[]',
  '{}',
  'null',
  '"x"',
  '[a, b]',
  '{a: 1}',
  '- x',
  '&a x',
  '*a',
  '!!binary x',
];
const PUNCT = [':', '-', '{', '}', '[', ']', '#', '"', "'", '|', '>', '&', '*', '!', '\t', '  '];

export type CrdMutation =
  | { kind: 'delete' | 'duplicate' | 'indent' | 'dedent'; line: number }
  | { kind: 'punct'; line: number; col: number; mark: number }
  | { kind: 'value'; line: number; value: number };

export const crdMutation: fc.Arbitrary<CrdMutation> = fc.oneof(
  fc.record({ kind: fc.constantFrom('delete', 'duplicate', 'indent', 'dedent'), line: fc.nat() }),
  fc.record({ kind: fc.constant('punct'), line: fc.nat(), col: fc.nat(), mark: fc.nat() }),
  fc.record({ kind: fc.constant('value'), line: fc.nat(), value: fc.nat() }),
) as fc.Arbitrary<CrdMutation>;

export function applyCrdMutation(text: string, m: CrdMutation): { text: string; description: string } {
  const lines = text.split('\n');
  const i = m.line % lines.length;
  const line = lines[i] ?? '';
  const at = (s: string) =>
    [...lines.slice(0, i), ...(s === '\0' ? [] : [s]), ...lines.slice(i + 1)].join('\n');
  switch (m.kind) {
    case 'delete':
      return { text: at('\0'), description: `delete line ${i + 1}` };
    case 'duplicate':
      return {
        text: [...lines.slice(0, i + 1), line, ...lines.slice(i + 1)].join('\n'),
        description: `duplicate line ${i + 1}`,
      };
    case 'indent':
      return { text: at(`  ${line}`), description: `indent line ${i + 1}` };
    case 'dedent':
      return { text: at(line.replace(/^ {1,2}/, '')), description: `dedent line ${i + 1}` };
    case 'punct': {
      const col = m.col % (line.length + 1);
      const mark = PUNCT[m.mark % PUNCT.length] ?? ':';
      return {
        text: at(line.slice(0, col) + mark + line.slice(col)),
        description: `insert ${JSON.stringify(mark)} at ${i + 1}:${col + 1}`,
      };
    }
    case 'value': {
      const colon = line.indexOf(': ');
      const value = WRONG_VALUES[m.value % WRONG_VALUES.length] ?? '';
      const next =
        colon >= 0 ? `${line.slice(0, colon + 2)}${value}` : line.replace(/^(\s*- ).*/, `$1${value}`);
      return { text: at(next), description: `value ${JSON.stringify(value)} at line ${i + 1}` };
    }
  }
}

/** Real CRDs of test/fixtures/types the fuzz tests mutate (cert-manager, Prometheus operator). */
export function realCrdTexts(): string[] {
  return ['cert-manager.io_certificates.yaml', 'monitoring.coreos.com_servicemonitors.yaml'].map((f) =>
    readFileSync(join(import.meta.dirname, '../../fixtures/types', f), 'utf8'),
  );
}

/** A mutant of one of `originals`: the text, the original it came from, and what was changed. */
export function mutatedText(
  originals: readonly string[],
): fc.Arbitrary<{ original: string; text: string; description: string }> {
  return fc.tuple(fc.nat(), crdMutation).map(([which, m]) => {
    const original = originals[which % originals.length] ?? '';
    return { original, ...applyCrdMutation(original, m) };
  });
}
