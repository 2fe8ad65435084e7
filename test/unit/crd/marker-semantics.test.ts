import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { main } from '../../../src/cli/main.ts';
import { compileRe2, nearestFormat, valueProblems } from '../../../src/generate/crd/schema-checks.ts';
import { orphanDocComments } from '../../../src/markers/index.ts';
import { generateCrdIn } from '../../helpers/crd-front-ends.ts';
import { sink } from '../../helpers/io.ts';

/**
 * Issue 37 item 6 at generate time: markers that give a CRD the API server refuses, or a field no
 * object can set, are errors at the marker's line, all in one run, nothing written; both CRD front
 * ends agree (the syntax one declines, so the messages are the checker walk's, and on valid input
 * both write the same bytes and the same warnings). test/integration/crd/marker-verdicts.test.ts
 * holds the verdicts to a real API server.
 */
const GV = "export const groupVersion = { group: 'things.example.com', version: 'v1' } as const;\n";
const KIND = `/**
 * @kind
 */
export interface Thing {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: ThingSpec;
}
`;

const root = mkdtempSync(join(tmpdir(), 'op-gen-marker-semantics-'));
let n = 0;

async function generate(
  spec: string,
  front: 'checker' | 'syntax' | 'auto',
): Promise<{ code: number; stderr: string; crd?: string }> {
  const project = join(root, String(n++));
  const dir = join(project, 'src/api/things/v1');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'groupversion.ts'), GV);
  writeFileSync(
    join(dir, 'types.ts'),
    `import type { ObjectMeta, int32 } from 'op-gen';\nexport interface ThingSpec {\n${spec}\n}\n${KIND}`,
  );
  const file = 'config/crd/bases/things.example.com_things.yaml';
  if (front !== 'auto') {
    // A forced front end runs through the library; its outcome is printed as the CLI prints it.
    const r = await generateCrdIn(project, front, file);
    const stderr =
      r.code === 0 ? r.warnings.map((w) => `op-gen: warning: ${w}\n`).join('') : `op-gen: ${r.err}\n`;
    return { code: r.code, stderr, ...(r.code === 0 ? { crd: r.crd } : {}) };
  }
  const out = sink();
  const err = sink();
  const code = await main(['generate', 'crd', '--cwd', project], { stdout: out.stream, stderr: err.stream });
  const written = join(project, file);
  return { code, stderr: err.text(), ...(existsSync(written) ? { crd: readFileSync(written, 'utf8') } : {}) };
}

// Line 3 of types.ts is the first line of the spec.
const BROKEN = [
  '  /** @pattern ^([a-z */', //  3
  '  a?: string;',
  '  /**', //                     5
  '   * @minimum 0',
  '   * @default -5', //          7
  '   */',
  '  b?: int32;',
  '  /**', //                     10
  '   * @minimum 5',
  '   * @maximum 1', //           12
  '   */',
  '  c?: int32;',
  '  /** @maxLength -1 */', //    15
  '  d?: string;',
  '  /** @multipleOf 0 */', //    17
  '  e?: number;',
  '  /**',
  '   * @enum a;B;c', //          20
  '   * @pattern ^[a-z]+$', //    21
  '   */',
  '  f?: string;',
  '  size?: int32; /** @maximum 3 */ other?: int32;', // 24
  '  /** @default {"x": 1} */', //                        25
  '  g?: { x: string; y: int32 };',
].join('\n');

describe('generate crd: markers the API server refuses, or no object can use', () => {
  after(() => rmSync(root, { recursive: true, force: true }));

  it('reports every problem at its marker line in one run, exits 1 and writes nothing', async () => {
    const r = await generate(BROKEN, 'checker');
    assert.equal(r.code, 1);
    assert.equal(r.crd, undefined, 'nothing written');
    const expected: [number, RegExp][] = [
      [
        3,
        /@pattern: Thing\.spec\.a: "\^\(\[a-z" is not a valid regular expression for the API server \(Go RE2 syntax\): missing closing \]/,
      ],
      [7, /Thing\.spec\.b: @default -5 is below the minimum 0\. Give a default that fits the type/],
      [12, /@maximum: Thing\.spec\.c: no value satisfies minimum 5 and maximum 1/],
      [15, /@maxLength: Thing\.spec\.d: maxLength -1 is not a whole number ≥ 0/],
      [17, /@multipleOf: Thing\.spec\.e: multipleOf 0 must be greater than 0/],
      [21, /@pattern: Thing\.spec\.f: the enum value "B" can never be set: "B" does not match the pattern/],
      [24, /a doc comment holding @maximum documents no declaration/],
      [
        25,
        /Thing\.spec\.g: @default \{"x":1\} lacks the required field "y"; \{"x":1\}: x: 1 is a number, the field is string/,
      ],
    ];
    for (const [line, message] of expected) {
      const found = r.stderr.split('\n').find((l) => l.includes(`types.ts:${line}: `));
      assert.ok(found, `a problem at line ${line}\n${r.stderr}`);
      assert.match(found, message);
    }
    assert.match(r.stderr, /^op-gen: /);
    assert.match(r.stderr, /\n8 problems\n$/);
  });

  it('the syntax front end declines the same input, so the default run reports the checker walk messages', async () => {
    const syntax = await generate(BROKEN, 'syntax');
    assert.equal(syntax.code, 1);
    assert.match(syntax.stderr, /the syntax front end declined/);
    const auto = await generate(BROKEN, 'auto');
    const checker = await generate(BROKEN, 'checker');
    assert.equal(auto.stderr.replace(/\/\d+\//g, '/N/'), checker.stderr.replace(/\/\d+\//g, '/N/'));
  });

  for (const [name, spec] of [
    ['an inline object type', '  inner?: { /** @minimum 1 */ x?: int32 };'],
    ['a comment with nothing after it', '  x?: int32;\n  /** @minimum 1 */'],
  ] as const) {
    it(`a doc comment attached to nothing: ${name}`, async () => {
      for (const front of ['checker', 'auto'] as const) {
        const r = await generate(spec, front);
        assert.equal(r.code, 1, front);
        assert.match(r.stderr, /types\.ts:\d+: a doc comment holding @minimum documents no declaration/);
      }
    });
  }

  it('valid markers: both front ends write the same CRD and the same format warning', async () => {
    const spec = [
      '  /** @format emial */',
      '  mail?: string;',
      '  /**',
      '   * @pattern ^\\d+\\z',
      '   * @default "12"',
      '   */',
      '  digits?: string;',
      '  /**',
      '   * @minimum 5',
      '   * @maximum 5',
      '   * @default 5',
      '   */',
      '  five?: int32;',
    ].join('\n');
    const checker = await generate(spec, 'checker');
    const syntax = await generate(spec, 'syntax');
    assert.equal(checker.code, 0, checker.stderr);
    assert.equal(syntax.code, 0, syntax.stderr);
    assert.equal(checker.crd, syntax.crd);
    const warning =
      /warning: src\/api\/things\/v1\/types\.ts:3: @format: Thing\.spec\.mail: unknown format "emial": the API server ignores it \(did you mean email\?\)/;
    assert.match(checker.stderr, warning);
    assert.match(syntax.stderr, warning);
  });
});

describe('schema checks', () => {
  it("compiles patterns in RE2's dialect, not JavaScript's", () => {
    for (const ok of ['^[a-z]+$', '\\z', '[[:alpha:]]', '(?i)abc', '\\pL'])
      assert.notEqual(typeof compileRe2(ok), 'string', ok);
    for (const bad of ['(?=x)', '(?<!x)y', '(a)\\1', 'a{1001}', '[a-'])
      assert.equal(typeof compileRe2(bad), 'string', bad);
  });

  it('validates values as the API server validates a default', () => {
    assert.deepEqual(valueProblems('ab', { type: 'string', pattern: 'b' }), [], 'a pattern matches anywhere');
    assert.deepEqual(valueProblems('éé', { type: 'string', maxLength: 2 }), [], 'lengths count characters');
    assert.deepEqual(valueProblems(3, { 'x-kubernetes-int-or-string': true, pattern: '^a' }), []);
    assert.deepEqual(valueProblems({ a: 1 }, { type: 'object', additionalProperties: { type: 'string' } }), [
      'a: 1 is a number, the field is string',
    ]);
    assert.deepEqual(valueProblems(2147483648, { type: 'integer', format: 'int32' }), [
      '2147483648 does not fit format int32',
    ]);
  });

  it('names the nearest known format', () => {
    assert.equal(nearestFormat('date_time'), 'date-time');
    assert.equal(nearestFormat('UUID'), 'uuid');
  });

  it('finds the doc comments TypeScript attaches to no declaration', () => {
    const text = [
      'export interface A {', //                       1
      '  size?: number; /** @maximum 3 */ other?: number;', // 2
      '  /** a */ /** @minimum 1 */ third?: number;', //     3
      "  s?: '/** @minimum 9 */';", //                       4
      '  /** @maximum 4 */', //                              5
      '}',
      '/** @kind */ export interface B {}', //              7
      'export type C = { /** @maxLength 2 */ c: string };', // 8
    ].join('\n');
    assert.deepEqual(
      orphanDocComments(text).map((c) => [c.line, c.tags]),
      [
        [2, ['maximum']],
        [5, ['maximum']],
        [8, ['maxLength']],
      ],
    );
  });
});
