import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { LineCounter, parseAllDocuments, stringify } from 'yaml';
import { readYamlFast } from '../../../src/generate/types/read-yaml-fast.ts';
import { assertFloor, assertProperty, fuzzRuns } from '../../helpers/fuzz-runs.ts';

const runs = fuzzRuns(200, 20_000);

/** What the `yaml` package path of read-crds.ts reads: each document's value and content line. */
function viaYamlPackage(text: string): { value: unknown; line: number }[] {
  const lineCounter = new LineCounter();
  return parseAllDocuments(text, { lineCounter }).map((doc) => {
    assert.equal(doc.errors.length, 0, String(doc.errors[0]));
    return {
      value: doc.toJS() ?? null,
      line: lineCounter.linePos(doc.contents?.range[0] ?? doc.range[0]).line,
    };
  });
}

const tricky = fc.constantFrom(
  'yes',
  'on',
  'null',
  '~',
  '1_000',
  '0o17',
  '0x1F',
  '010',
  '.inf',
  '-.NaN',
  '1e3',
  '2024-01-01',
  '09:00',
  'a: b',
  '- x',
  '#hash',
  "it's",
  'say "hi"',
  '',
  ' lead',
  'trail ',
  'multi\nline\n',
  'tab\there',
  '*star',
  '&amp',
  '!bang',
  '%pct',
  '@at',
  '`tick',
  '{brace',
  '[bracket',
  ',comma',
  '?q',
  '|pipe',
  '>gt',
  'é ü 中',
);
const scalar = fc.oneof(
  tricky,
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(tricky, fc.string({ maxLength: 8 })), tie('v'), { maxKeys: 4 }),
  ),
})).v;

describe('readYamlFast', () => {
  it('reads what the yaml package reads, with the same document lines', async (t) => {
    let read = 0;
    await assertProperty(
      t,
      fc.property(
        fc.array(value, { minLength: 1, maxLength: 3 }),
        fc.constantFrom('block', 'flow', 'comments'),
        (docs, style) => {
          const texts = docs.map((d) => stringify(d, style === 'flow' ? { collectionStyle: 'flow' } : {}));
          const text =
            (style === 'comments' ? '# head\n\n' : '') +
            texts.join(style === 'comments' ? '---\n# c\n' : '---\n');
          const fast = readYamlFast(text);
          if (fast === undefined) return;
          read++;
          assert.deepEqual(fast, viaYamlPackage(text));
        },
      ),
      runs,
    );
    // A fast path that declined every text would pass the comparison: it must read most of them itself.
    assertFloor(t, 'read by the fast path itself', read, runs * 0.4);
  });

  it('reads hand-written plain scalars (numbers, signs, dots, colons, merge keys) as the yaml package does', async (t) => {
    // Texts the yaml package's own stringify never writes plain: the two parsers' scalar rules meet here.
    const plain = fc
      .array(fc.constantFrom(...'0123456789abcdefxXoObB._+-:eEinfINFNa<~ ='.split('')), {
        minLength: 1,
        maxLength: 8,
      })
      .map((cs) => cs.join(''))
      .filter((t) => t.trim() === t && !t.startsWith('-') && !t.includes(': ') && !t.endsWith(':'));
    let read = 0;
    let texts = 0;
    await assertProperty(
      t,
      fc.property(plain, plain, (k, v) => {
        for (const text of [`a: ${v}\n`, `${k}: 1\n`, `- ${v}\n- [${v}]\n`, `{${k}: ${v}}\n`]) {
          let expected: { value: unknown; line: number }[];
          try {
            expected = viaYamlPackage(text);
          } catch {
            continue; // the yaml package rejects it: the fast path's answer does not matter
          }
          texts++;
          const fast = readYamlFast(text);
          if (fast === undefined) continue;
          read++;
          assert.deepEqual(fast, expected, JSON.stringify(text));
        }
      }),
      runs * 10,
    );
    t.diagnostic(`${texts} texts the yaml package reads`);
    assertFloor(t, 'of them read by the fast path itself', read, texts * 0.9);
  });

  it('reads every CRD fixture itself, as the yaml package does', () => {
    for (const dir of ['test/fixtures/types', 'test/golden/crd']) {
      for (const file of readdirSync(dir, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith('.yaml'))) {
        const text = readFileSync(`${dir}/${file}`, 'utf8');
        const fast = readYamlFast(text);
        assert.ok(fast, `${dir}/${file}: the fast path declined`);
        assert.deepEqual(fast, viaYamlPackage(text), `${dir}/${file}`);
      }
    }
  });

  it('leaves to the yaml package what it rejects or might read differently', () => {
    for (const text of [
      'a: 1\na: 2\n',
      'a:\n\tb: 1\n',
      'a: "x\n',
      '? [a]\n: 1\n',
      'a: !foo x\n',
      '%YAML 1.1\n---\na: yes\n',
      'a: 1e400\n',
      // A float with a bare dot before an overflowing exponent: Infinity for the yaml package, a
      // string for js-yaml (found by the plain-scalars property at 20,000 runs).
      'a: 5.e900\n',
      '~: 1\n',
      'properties:\n  null:\n    type: string\n',
      '{a: {NULL: 0}}\n',
    ]) {
      assert.equal(readYamlFast(text), undefined, JSON.stringify(text));
    }
  });
});
