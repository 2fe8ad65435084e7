import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { evaluate } from '@marcbachmann/cel-js';
import fc from 'fast-check';
import type { JSONSchemaProps } from '../../../src/api-types/json-schema.ts';
import { renderClients } from '../../../src/generate/client/index.ts';
import { generateCrds } from '../../../src/generate/crd/index.ts';
import {
  applyMarkedUnion,
  mergeObjectUnion,
  type MarkedUnionField,
} from '../../../src/generate/crd/unions.ts';
import { assertGolden } from '../../helpers/golden.ts';
import { typeCheck } from '../types/tsc.ts';
import { assertFloor, assertProperty, fuzzRuns } from '../../helpers/fuzz-runs.ts';

/** The cases of each union property (the spaces have 24 to 48 objects: `all` draws each many times). */
const UNION_RUNS = fuzzRuns(200, 5000);

const FIXTURE = new URL('../../fixtures/crd/', import.meta.url).pathname;
const GOLDEN = new URL('../../golden/crd/unions/', import.meta.url).pathname;
const where = { path: 'T.spec.u', location: { file: 't.ts', line: 1 } };

/** Whether every rule of `schema` holds for `value` (evaluated by cel-js). */
function rulesHold(schema: JSONSchemaProps, value: Record<string, unknown>): boolean {
  return (schema['x-kubernetes-validations'] ?? []).every((r) => evaluate(r.rule, { self: value }) === true);
}

const obj = (props: Record<string, JSONSchemaProps>, required: string[] = []): JSONSchemaProps => ({
  type: 'object',
  properties: props,
  ...(required.length > 0 ? { required } : {}),
});
const str: JSONSchemaProps = { type: 'string' };
const lit = (v: string): JSONSchemaProps => ({ type: 'string', enum: [v] });

describe('unions: TypeScript unions of objects', () => {
  // type U = { type: 'Git'; git: G; interval?: string } | { type: 'OCI'; oci: O; interval?: string } | { type: 'Helm'; helm: H }
  const variants = [
    { value: 'Git', fields: ['git', 'interval'], required: ['git'] },
    { value: 'OCI', fields: ['oci', 'interval'], required: ['oci'] },
    { value: 'Helm', fields: ['helm'], required: ['helm'] },
  ];
  const merged = mergeObjectUnion(
    variants.map((v) => ({
      schema: obj({ type: lit(v.value), ...Object.fromEntries(v.fields.map((f) => [f, str])) }, [
        'type',
        ...v.required,
      ]),
      label: v.value,
    })),
    where,
  );

  it('merges the members: the discriminator an enum of the literals, required the intersection', () => {
    assert.deepEqual(Object.keys(merged.properties ?? {}).sort(), ['git', 'helm', 'interval', 'oci', 'type']);
    assert.deepEqual(merged.properties?.type, { type: 'string', enum: ['Git', 'OCI', 'Helm'] });
    assert.deepEqual(merged.required, ['type']);
    assert.deepEqual(
      merged['x-kubernetes-validations']?.map((r) => r.message),
      [
        "when type is 'Git', git must be set and oci and helm must not be set",
        "when type is 'OCI', oci must be set and git and helm must not be set",
        "when type is 'Helm', helm must be set and git, interval and oci must not be set",
      ],
    );
  });

  it('the rules accept exactly the objects the TypeScript union allows (property)', async (t) => {
    const fields = ['git', 'oci', 'helm', 'interval'];
    const seen = { allowed: 0, refused: 0 };
    await assertProperty(
      t,
      fc.property(fc.constantFrom('Git', 'OCI', 'Helm'), fc.subarray(fields), (type, set) => {
        const value: Record<string, unknown> = { type, ...Object.fromEntries(set.map((f) => [f, 'x'])) };
        const v = variants.find((x) => x.value === type);
        const allowed =
          !!v && v.required.every((f) => set.includes(f)) && set.every((f) => v.fields.includes(f));
        seen[allowed ? 'allowed' : 'refused']++;
        assert.equal(rulesHold(merged, value), allowed, JSON.stringify(value));
      }),
      UNION_RUNS,
    );
    assertFloor(t, 'objects the union allows', seen.allowed, UNION_RUNS * 0.02);
    assertFloor(t, 'objects it refuses', seen.refused, UNION_RUNS * 0.3);
  });

  it('without a discriminator: exactly one member, told apart by fields of its own (property)', async (t) => {
    // { schedule: string } | { webhook: W; retries?: string } | { a: string; b: string; retries?: string }
    const members = [
      { fields: ['schedule'], required: ['schedule'] },
      { fields: ['webhook', 'retries'], required: ['webhook'] },
      { fields: ['a', 'b', 'retries'], required: ['a', 'b'] },
    ];
    const u = mergeObjectUnion(
      members.map((m, i) => ({
        schema: obj(Object.fromEntries(m.fields.map((f) => [f, str])), m.required),
        label: `M${i}`,
      })),
      where,
    );
    assert.equal(u.required, undefined);
    assert.equal(
      u['x-kubernetes-validations']?.[0]?.message,
      'exactly one of schedule, webhook, a/b must be set',
    );
    const all = ['schedule', 'webhook', 'retries', 'a', 'b'];
    const seen = { allowed: 0, refused: 0 };
    await assertProperty(
      t,
      fc.property(fc.subarray(all), (set) => {
        const value = Object.fromEntries(set.map((f) => [f, 'x']));
        const allowed = members.some(
          (m) => m.required.every((f) => set.includes(f)) && set.every((f) => m.fields.includes(f)),
        );
        seen[allowed ? 'allowed' : 'refused']++;
        assert.equal(rulesHold(u, value), allowed, JSON.stringify(value));
      }),
      UNION_RUNS,
    );
    assertFloor(t, 'objects the union allows', seen.allowed, UNION_RUNS * 0.02);
    assertFloor(t, 'objects it refuses', seen.refused, UNION_RUNS * 0.3);
  });

  it('fields with odd names are escaped for CEL; string values are quoted', () => {
    const u = mergeObjectUnion(
      [
        { schema: obj({ kind: lit("it's"), 'x-a': str }, ['kind', 'x-a']), label: 'A' },
        { schema: obj({ kind: lit('B'), namespace: str }, ['kind', 'namespace']), label: 'B' },
      ],
      where,
    );
    const rules = u['x-kubernetes-validations']?.map((r) => r.rule);
    assert.deepEqual(rules, [
      'self.kind == "it\'s" ? has(self.x__dash__a) && !has(self.__namespace__) : true',
      "self.kind == 'B' ? has(self.__namespace__) && !has(self.x__dash__a) : true",
    ]);
  });

  it('members that disagree on a field, or carry their own rules, are errors naming the path', () => {
    assert.throws(
      () =>
        mergeObjectUnion(
          [
            { schema: obj({ t: lit('A'), n: str }, ['t']), label: 'A' },
            { schema: obj({ t: lit('B'), n: { type: 'integer' } }, ['t']), label: 'B' },
          ],
          where,
        ),
      /^OpGenError: t\.ts:1: T\.spec\.u: is a union whose members disagree on field `n`: string in `A`, integer in `B`/,
    );
    assert.throws(
      () =>
        mergeObjectUnion(
          [
            {
              schema: { ...obj({ t: lit('A') }, ['t']), 'x-kubernetes-validations': [{ rule: 'true' }] },
              label: 'A',
            },
            { schema: obj({ t: lit('B') }, ['t']), label: 'B' },
          ],
          where,
        ),
      /member `A` carries type-level markers/,
    );
  });
});

describe('unions: @unionDiscriminator / @unionMember', () => {
  const field = (
    name: string,
    role: MarkedUnionField['role'],
    value?: string,
    required = false,
  ): MarkedUnionField => ({
    name,
    role,
    required,
    location: { file: 't.ts', line: 2 },
    ...(value ? { value } : {}),
  });
  const base = obj({ mode: str, git: obj({}), oci: obj({}), canarySteps: { type: 'array', items: str } });

  it("a discriminator without an enum gets the members' values; the rules follow it (property)", async (t) => {
    const u = applyMarkedUnion(
      base,
      [
        field('mode', 'discriminator', undefined, true),
        field('git', 'member'),
        field('oci', 'member'),
        field('canarySteps', 'member', 'Canary'),
      ],
      where,
    );
    assert.deepEqual(u.properties?.mode?.enum, ['Git', 'Oci', 'Canary']);
    const seen = { allowed: 0, refused: 0 };
    await assertProperty(
      t,
      fc.property(
        fc.constantFrom('Git', 'Oci', 'Canary'),
        fc.subarray(['git', 'oci', 'canarySteps']),
        (mode, set) => {
          const value = { mode, ...Object.fromEntries(set.map((f) => [f, {}])) };
          const expected = { Git: 'git', Oci: 'oci', Canary: 'canarySteps' }[mode];
          const allowed = set.length === 1 && set[0] === expected;
          seen[allowed ? 'allowed' : 'refused']++;
          assert.equal(rulesHold(u, value), allowed, JSON.stringify(value));
        },
      ),
      UNION_RUNS,
    );
    assertFloor(t, 'objects the union allows', seen.allowed, UNION_RUNS * 0.02);
    assertFloor(t, 'objects it refuses', seen.refused, UNION_RUNS * 0.3);
  });

  it('an optional discriminator: without it, no member may be set', () => {
    const u = applyMarkedUnion(
      { ...base, properties: { ...base.properties, mode: { type: 'string', enum: ['Git', 'Oci', 'None'] } } },
      [field('mode', 'discriminator'), field('git', 'member'), field('oci', 'member')],
      where,
    );
    assert.equal(rulesHold(u, {}), true);
    assert.equal(rulesHold(u, { git: {} }), false);
    assert.equal(rulesHold(u, { mode: 'None' }), true);
    assert.equal(rulesHold(u, { mode: 'None', oci: {} }), false);
    assert.equal(rulesHold(u, { mode: 'Oci', oci: {} }), true);
  });

  it('without a discriminator, exactly one member', () => {
    const u = applyMarkedUnion(base, [field('git', 'member'), field('oci', 'member')], where);
    assert.equal(u['x-kubernetes-validations']?.[0]?.message, 'exactly one of git, oci must be set');
    assert.equal(rulesHold(u, { git: {} }), true);
    assert.equal(rulesHold(u, {}), false);
    assert.equal(rulesHold(u, { git: {}, oci: {} }), false);
  });
});

describe('unions: the fixture API', () => {
  const out = mkdtempSync(join(tmpdir(), 'op-gen-crd-unions-'));
  after(() => rmSync(out, { recursive: true, force: true }));

  it('generates the CRD equal to the golden (UPDATE_GOLDEN=1 rewrites it)', async () => {
    const result = await generateCrds({ cwd: FIXTURE, apiDir: 'api-unions', outDir: out });
    assert.deepEqual(
      result.files.map((f) => f.split('/').pop()),
      ['deploy.example.com_releases.yaml'],
    );
    const name = 'deploy.example.com_releases.yaml';
    assertGolden(join(GOLDEN, name), readFileSync(join(out, name), 'utf8'));
  });

  it('the generated client keeps the TypeScript union: a wrong member does not compile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'op-gen-unions-client-'));
    try {
      cpSync(join(FIXTURE, 'api-unions'), join(dir, 'src/api'), { recursive: true });
      writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
      const files = await renderClients({ cwd: dir, outDir: join(dir, 'src/clients') });
      for (const f of files) {
        mkdirSync(join(f.path, '..'), { recursive: true });
        writeFileSync(f.path, f.content);
      }
      const client = files.find((f) => f.path.endsWith('release.ts'));
      assert.ok(client, 'a client for Release');
      // The client's object type is the API's own type, imported, not a copy flattened from the schema.
      assert.match(
        client.content,
        /import type \{ Release \} from '\.\.\/\.\.\/\.\.\/api\/deploy\/v1\/release_types\.ts';/,
      );
      const use = join(dir, 'src/use.ts');
      writeFileSync(
        use,
        [
          "import type { ReleaseClient } from './clients/deploy/v1/release.ts';",
          "type Release = Parameters<ReleaseClient['create']>[0];",
          "export const ok: Release['spec'] = { source: { type: 'Git', git: { url: 'u' } } };",
          "export const bad: Release['spec'] = { source: { type: 'Git', oci: { image: 'i' } } };",
          '',
        ].join('\n'),
      );
      const diags = typeCheck([use]).filter((d) => d.file === use);
      assert.deepEqual(
        diags.map((d) => d.line),
        [4],
        diags.map((d) => d.message).join('\n'),
      );
      assert.match(diags[0]?.message ?? '', /'oci' does not exist in type '\{ type: "Git"; git: GitSource;/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
