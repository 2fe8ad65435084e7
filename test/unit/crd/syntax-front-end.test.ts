import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { loadApiKinds } from '../../../src/generate/api-model.ts';
import { renderTypeScript, syntheticApi, writeFiles } from '../../../bench/synthetic-api.ts';
import { generateCrdsWith, type CrdOutcome, type FrontEnd } from '../../helpers/crd-front-ends.ts';
import { assertFloor, assertProperty, fuzzRuns } from '../../helpers/fuzz-runs.ts';
import { scaffoldTemplate } from '../broken-input/project.ts';

/**
 * generate crd has two front ends (docs/design/contracts.md): the syntax reader it tries first and
 * the type checker's walk. The syntax reader must write exactly what the checker's walk writes for
 * every source it reads, and read no source the checker's walk fails on. Each case runs both,
 * forced (test/helpers/crd-front-ends.ts), and compares the files byte for byte.
 */

const FIXTURE = new URL('../../fixtures/crd/', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'op-gen-syntax-front-'));
after(() => rmSync(work, { recursive: true, force: true }));

let outs = 0;
function generateWith(
  front: FrontEnd,
  cwd: string,
  apiDir: string,
  maxDescLen?: 'auto' | number,
): Promise<CrdOutcome> {
  const outDir = join(work, `out-${outs++}`);
  return generateCrdsWith(front, {
    cwd,
    apiDir,
    outDir,
    ...(maxDescLen === undefined ? {} : { maxDescLen }),
  });
}

const DECLINED = /^the syntax front end declined: /;

/** A project under the work folder with one version folder (x.example.com/v1) and its groupversion.ts. */
function versionFolder(name: string): { dir: string; api: string } {
  const dir = join(work, name);
  const api = join(dir, 'src/api/x/v1');
  mkdirSync(api, { recursive: true });
  writeFileSync(
    join(api, 'groupversion.ts'),
    "export const groupVersion = { group: 'x.example.com', version: 'v1' } as const;\n",
  );
  return { dir, api };
}

async function assertSameAsChecker(cwd: string, apiDir: string, maxDescLen?: 'auto' | number): Promise<void> {
  const checker = await generateWith('checker', cwd, apiDir, maxDescLen);
  const syntax = await generateWith('syntax', cwd, apiDir, maxDescLen);
  assert.ok(checker.ok, `the checker's walk fails: ${checker.ok ? '' : checker.error}`);
  assert.ok(syntax.ok, `the syntax front end does not read it: ${syntax.ok ? '' : syntax.error}`);
  assert.deepEqual(syntax.files, checker.files);
}

describe('generate crd: the syntax front end', () => {
  it('reads the scaffolded API and writes what the type checker walk writes', async () => {
    const { dir, cleanup } = await scaffoldTemplate();
    try {
      await assertSameAsChecker(dir, 'src/api');
    } finally {
      cleanup();
    }
  });

  it('reads the CEL and parity fixtures and the synthetic bench API alike', async () => {
    await assertSameAsChecker(FIXTURE, 'api-cel');
    await assertSameAsChecker(join(FIXTURE, 'parity'), 'api');
    const synthetic = join(work, 'synthetic');
    writeFiles(synthetic, renderTypeScript(syntheticApi({ kinds: 12, fields: 20 })));
    await assertSameAsChecker(synthetic, 'src/api');
  });

  it('reads Kubernetes built-in types (four embedded pod templates), with descriptions trimmed to fit alike', async () => {
    await assertSameAsChecker(FIXTURE, 'api-big');
    await assertSameAsChecker(FIXTURE, 'api-big', 'auto');
    await assertSameAsChecker(FIXTURE, 'api-big', 40);
    await assertSameAsChecker(new URL('../../fixtures/types-bench/', import.meta.url).pathname, 'api');
  });

  it('declines what it does not read (intersections, never, namespace imports), and auto mode writes the checker walk output', async () => {
    for (const apiDir of ['api', 'api-k8s', 'api-unions']) {
      const syntax = await generateWith('syntax', FIXTURE, apiDir);
      assert.ok(!syntax.ok && DECLINED.test(syntax.error), `${apiDir}: ${syntax.ok ? 'read' : syntax.error}`);
      const auto = await generateWith('auto', FIXTURE, apiDir);
      const checker = await generateWith('checker', FIXTURE, apiDir);
      assert.deepEqual(auto, checker, apiDir);
    }
  });

  it('gives generate client the same kinds (loadApiKinds) as the checker walk', async () => {
    const { dir, cleanup } = await scaffoldTemplate();
    try {
      for (const [cwd, apiDir] of [
        [dir, 'src/api'],
        [FIXTURE, 'api-cel'],
        [FIXTURE, 'api-big'],
        [join(FIXTURE, 'parity'), 'api'],
      ] as const) {
        const kinds = (front: 'checker' | 'syntax'): Promise<unknown> => loadApiKinds({ cwd, apiDir }, front);
        assert.deepEqual(await kinds('syntax'), await kinds('checker'), `${cwd} ${apiDir}`);
      }
    } finally {
      cleanup();
    }
  });

  it('hands every problem to the checker walk: auto mode reports it as the checker walk does', async () => {
    const { dir, api } = versionFolder('problem');
    // @minimum on a string: the syntax front end reads the source but the marker does not fit.
    writeFileSync(
      join(api, 'thing.ts'),
      "import type { ObjectMeta } from 'op-gen';\n/** @kind */\nexport interface Thing {\n  apiVersion: string;\n  kind: string;\n  metadata: ObjectMeta;\n  spec: {\n    /** @minimum 1 */\n    name: string;\n  };\n}\n",
    );
    const auto = await generateWith('auto', dir, 'src/api');
    const checker = await generateWith('checker', dir, 'src/api');
    assert.ok(!checker.ok);
    assert.deepEqual(auto, checker);
    assert.match(checker.ok ? '' : checker.error, /thing\.ts:8: @minimum/);
  });
});

// ---- Property: random API sources, both front ends ----

const ALPHABET = ['Alpha', 'Beta', 'Gamma', 'Delta'];
const SCALARS = [
  'string',
  'number',
  'boolean',
  'int32',
  'int64',
  'float64',
  'Quantity',
  'IntOrString',
  'Time',
  'Duration',
];
const NAMED = [
  'Item',
  'Port',
  'Mode',
  'Bag',
  'Tags',
  'Condition',
  'PreserveUnknownFields',
  'V1ObjectReference',
  'V1ResourceRequirements',
];
const MARKERS = [
  '@minimum 1',
  '@maxLength 10',
  '@pattern ^[a-z]+$',
  '@default "x"',
  '@optional',
  '@required',
  '@nullable',
  '@items:maxLength 3',
  '@listType set',
  '@maxItems 4',
  '@schemaless',
  '@validation self.size() > 0',
  '@preserveUnknownFields',
  '@format email',
];

/** Mostly prefixes of one order (which the syntax reader reads), sometimes any order (which it may decline). */
const enumType = fc
  .oneof(
    { weight: 12, arbitrary: fc.integer({ min: 1, max: 3 }).map((n) => ALPHABET.slice(0, n)) },
    { weight: 1, arbitrary: fc.uniqueArray(fc.constantFrom(...ALPHABET), { minLength: 1, maxLength: 3 }) },
  )
  .map((vs) => vs.map((v) => `'${v}'`).join(' | '));

const leafType = fc.oneof(fc.constantFrom(...SCALARS), fc.constantFrom(...NAMED), enumType);

/** An element type as `T[]` needs it written. */
const paren = (t: string): string => (t.includes('|') || t.startsWith('readonly') ? `(${t})` : t);

const fieldType: fc.Arbitrary<string> = fc.letrec<{ t: string }>((tie) => ({
  t: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leafType,
    tie('t').map((t) => `${paren(t)}[]`),
    tie('t').map((t) => `Array<${t}>`),
    tie('t').map((t) => `readonly ${paren(t)}[]`),
    tie('t').map((t) => `Record<string, ${t}>`),
    tie('t').map((t) => `${t} | null`),
    tie('t').map((t) => `{ inner: ${t}; other?: string }`),
  ),
})).t;

const doc = fc.record({
  description: fc.constantFrom('', 'A field.', 'Two\n * lines.'),
  markers: fc.oneof(
    { weight: 3, arbitrary: fc.constant<string[]>([]) },
    { weight: 2, arbitrary: fc.subarray(MARKERS, { maxLength: 2 }) },
  ),
});
const renderDoc = (d: { description: string; markers?: readonly string[] }, indent: string): string => {
  const lines = [...(d.description ? [d.description] : []), ...(d.markers ?? [])];
  return lines.length === 0
    ? ''
    : `${indent}/**\n${lines.map((l) => `${indent} * ${l}`).join('\n')}\n${indent} */\n`;
};

const field = fc.record({
  name: fc.constantFrom('a', 'b', 'c', 'mode', 'items'),
  optional: fc.boolean(),
  type: fieldType,
  doc,
});
/** A breakage the checker walk reports (or an edge the syntax reader must get right). */
const breakage = fc.constantFrom(
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  '',
  '  missing: Missing;\n',
  '  x: string y: number;\n',
  '  l: Array<string,>;\n',
  '  r: readonly string;\n',
  "  d: 'Alpha' | 'Alpha';\n",
  '  m(): void;\n',
  '  n?: never;\n',
  '  u: unknown;\n',
  '  o: object;\n',
  '  self: Self;\n',
);

const apiSources = fc.record({
  spec: fc.uniqueArray(field, { selector: (f) => f.name, minLength: 1, maxLength: 4 }),
  item: fc.uniqueArray(field, { selector: (f) => f.name, minLength: 1, maxLength: 3 }),
  /** Item extends Base (whose fields may share names with Item's: Item's win). */
  base: fc.option(fc.uniqueArray(field, { selector: (f) => f.name, minLength: 1, maxLength: 2 }), {
    nil: undefined,
  }),
  /** The kind takes apiVersion, kind and metadata from op-gen's KubernetesObject. */
  kindExtends: fc.boolean(),
  itemDoc: doc,
  port: fc.constantFrom('int32', 'string', 'number'),
  portDoc: doc,
  mode: enumType,
  modeDoc: doc,
  bag: fieldType,
  tags: fieldType,
  breakage,
});

type ValueOf<A> = A extends fc.Arbitrary<infer T> ? T : never;

function render(s: ValueOf<typeof apiSources>): string {
  const fields = (fs: readonly ValueOf<typeof field>[]): string =>
    fs.map((f) => `${renderDoc(f.doc, '  ')}  ${f.name}${f.optional ? '?' : ''}: ${f.type};\n`).join('');
  return [
    "import type { Condition, Duration, float64, int32, int64, IntOrString, KubernetesObject, ObjectMeta, PreserveUnknownFields, Quantity, Time } from 'op-gen';\n",
    "import type { V1ObjectReference, V1ResourceRequirements } from '@kubernetes/client-node';\n",
    s.base ? `/** A base. */\nexport interface Base {\n${fields(s.base)}}\n` : '',
    `${renderDoc(s.itemDoc, '')}export interface Item${s.base ? ' extends Base' : ''} {\n${fields(s.item)}}\n`,
    `${renderDoc(s.portDoc, '')}export type Port = ${s.port};\n`,
    `${renderDoc(s.modeDoc, '')}type Mode = ${s.mode};\n`,
    `/** A bag. */\nexport type Bag = { value: ${s.bag} };\n`,
    `export interface Tags {\n  [key: string]: ${s.tags};\n}\n`,
    'type Self = Self[];\n',
    `export interface ThingSpec {\n${fields(s.spec)}${s.breakage}}\n`,
    '/**\n * Thing is a kind.\n * @kind\n * @subresource status\n */\n',
    s.kindExtends
      ? 'export interface Thing extends KubernetesObject {\n  spec: ThingSpec;\n  status?: { conditions?: Condition[] };\n}\n'
      : 'export interface Thing {\n  apiVersion: string;\n  kind: string;\n  metadata: ObjectMeta;\n  spec: ThingSpec;\n  status?: { conditions?: Condition[] };\n}\n',
  ].join('');
}

describe('generate crd: the syntax front end against the type checker walk (property)', () => {
  it('writes the same CRD or declines; never reads a source the checker walk fails on; neither has an internal error', async (t) => {
    let read = 0;
    const runs = fuzzRuns(150, 2000);
    const { dir, api } = versionFolder('property');
    await assertProperty(
      t,
      fc.asyncProperty(apiSources, async (sources) => {
        writeFileSync(join(api, 'thing.ts'), render(sources));
        const checker = await generateWith('checker', dir, 'src/api');
        const syntax = await generateWith('syntax', dir, 'src/api');
        assert.ok(
          checker.ok || !checker.internal,
          `the checker walk failed with an internal error: ${checker.ok ? '' : checker.error}`,
        );
        assert.ok(
          syntax.ok || !syntax.internal,
          `the syntax front end failed with an internal error: ${syntax.ok ? '' : syntax.error}`,
        );
        if (syntax.ok) {
          read++;
          assert.ok(
            checker.ok,
            `the syntax front end read a source the checker walk fails on: ${checker.ok ? '' : checker.error}`,
          );
          assert.deepEqual(syntax.files, checker.files);
        } else if (!DECLINED.test(syntax.error)) {
          // Read, then a check after the walk failed: the checker walk must fail too (auto mode reruns it).
          assert.ok(!checker.ok, `only the syntax front end failed: ${syntax.error}`);
        }
      }),
      runs,
    );
    // The property means something only if the syntax front end reads a good share of the sources.
    assertFloor(t, 'read by the syntax front end', read, runs * 0.15);
  });
});
