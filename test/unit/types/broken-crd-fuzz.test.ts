import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { main } from '../../../src/cli/main.ts';
import { snapshot } from '../broken-input/project.ts';

/**
 * Property: `generate types` on a mutated CRD file (a line deleted or duplicated, an indent changed,
 * stray punctuation, a value replaced by one of the wrong kind) either succeeds or fails with exit 1,
 * a message naming the file, and nothing written. Never an internal error (exit 70) or a stack.
 * OP_GEN_FUZZ_RUNS sets the count (default 40; `npm run test:fuzz` runs more).
 */
const RUNS = process.env.OP_GEN_FUZZ_RUNS === 'all' ? 2000 : Number(process.env.OP_GEN_FUZZ_RUNS ?? 40);
const FIXTURES = ['cert-manager.io_certificates.yaml', 'monitoring.coreos.com_servicemonitors.yaml'];
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

type Mutation =
  | { kind: 'delete' | 'duplicate' | 'indent' | 'dedent'; line: number }
  | { kind: 'punct'; line: number; col: number; mark: number }
  | { kind: 'value'; line: number; value: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constantFrom('delete', 'duplicate', 'indent', 'dedent'), line: fc.nat() }),
  fc.record({ kind: fc.constant('punct'), line: fc.nat(), col: fc.nat(), mark: fc.nat() }),
  fc.record({ kind: fc.constant('value'), line: fc.nat(), value: fc.nat() }),
) as fc.Arbitrary<Mutation>;

function apply(text: string, m: Mutation): { text: string; description: string } {
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

function sink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  return {
    stream: new Writable({
      write(chunk: Buffer, _enc, done) {
        chunks.push(chunk.toString());
        done();
      },
    }),
    text: () => chunks.join(''),
  };
}

describe('generate types on mutated CRD files never crashes or half-writes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-types-fuzz-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it(`holds for ${RUNS} mutants`, async () => {
    const originals = FIXTURES.map((f) =>
      readFileSync(join(import.meta.dirname, '../../fixtures/types', f), 'utf8'),
    );
    await fc.assert(
      fc.asyncProperty(fc.nat(), mutation, async (which, m) => {
        const original = originals[which % originals.length] ?? '';
        const { text, description } = apply(original, m);
        const input = join(dir, 'crd.yaml');
        writeFileSync(input, text);
        const out = join(dir, 'out');
        const prior = snapshot(out);
        const stdout = sink();
        const stderr = sink();
        const code = await main(['generate', 'types', '--from', input, '--out', out], {
          stdout: stdout.stream,
          stderr: stderr.stream,
          cwd: dir,
        });
        const context = `${description}\nexit ${code}\n${stderr.text()}`;
        assert.ok(code === 0 || code === 1, `exit 0 or 1\n${context}`);
        assert.doesNotMatch(stderr.text(), /internal error|\n\s+at /, `no stack\n${context}`);
        if (code === 1) {
          assert.match(stderr.text(), /^op-gen: .*crd\.yaml/, `names the file\n${context}`);
          assert.deepEqual(snapshot(out), prior, `nothing written\n${context}`);
        }
      }),
      {
        numRuns: RUNS,
        endOnFailure: true,
        ...(process.env.OP_GEN_FUZZ_SEED ? { seed: Number(process.env.OP_GEN_FUZZ_SEED) } : {}),
      },
    );
  });
});
