import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { format } from 'prettier';
import {
  clientSource,
  fitsClientStyle,
  type ClientSourceInput,
} from '../../../src/generate/client/client-source.ts';
import { CLIENT_STYLE, renderClient } from '../../../src/generate/client/render-client.ts';
import type { ClientKind } from '../../../src/generate/client/client-kinds.ts';
import { assertFloor, assertProperty, fuzzRuns } from '../../helpers/fuzz-runs.ts';

const upper = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ');
const lower = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789');
const pascal = (max: number): fc.Arbitrary<string> =>
  fc.tuple(upper, fc.array(fc.oneof(upper, lower), { maxLength: max })).map(([h, t]) => h + t.join(''));
const label = fc.array(lower, { minLength: 1, maxLength: 20 }).map((a) => `a${a.join('')}`);

const kindArb: fc.Arbitrary<{ kind: ClientKind; typeModule: string; runtimeModule: string }> = fc
  .record({
    kind: pascal(45),
    typeNameChoice: fc.constantFrom('same', 'other', 'clash'),
    other: pascal(30),
    group: fc.array(label, { minLength: 1, maxLength: 4 }).map((l) => l.join('.')),
    version: fc.constantFrom('v1', 'v1alpha1', 'v2beta3'),
    namespaced: fc.boolean(),
    status: fc.boolean(),
    scale: fc.boolean(),
    depth: fc.nat(8),
    fileName: label,
    runtimeModule: fc.constantFrom(
      'op-gen/runtime',
      '@acme/very-long-scoped-package-name/runtime/with/a/deep/path/inside',
    ),
  })
  .map((r) => {
    const typeName =
      r.typeNameChoice === 'same' ? r.kind : r.typeNameChoice === 'other' ? r.other : `${r.kind}Client`;
    const sourceFile = `src/api/${r.group.split('.')[0]}/${r.version}/${r.fileName}_types.ts`;
    return {
      kind: {
        group: r.group,
        version: r.version,
        kind: r.kind,
        plural: `${r.kind.toLowerCase()}s`,
        namespaced: r.namespaced,
        typeName,
        sourceFile,
        groupDir: r.group.split('.')[0] ?? r.group,
        status: r.status,
        scale: r.scale,
      },
      typeModule: `${'../'.repeat(r.depth + 1)}${sourceFile}`,
      runtimeModule: r.runtimeModule,
    };
  });

function input(k: ClientKind, typeModule: string, runtimeModule: string): ClientSourceInput {
  const clash = ['Kind', 'Key', 'Apply', 'ListOptions', 'WatchOptions', 'Client'].map((s) => k.kind + s);
  return {
    ...k,
    localType: clash.includes(k.typeName) ? `${k.kind}Object` : k.typeName,
    typeModule,
    runtimeModule,
  };
}

describe('generate client: the module laid out without prettier', () => {
  it("is prettier's output whenever it is used as it is (fast-check, names and paths of every length)", async (t) => {
    let direct = 0;
    const runs = fuzzRuns(300, 20_000);
    await assertProperty(
      t,
      fc.asyncProperty(kindArb, async ({ kind, typeModule, runtimeModule }) => {
        const source = input(kind, typeModule, runtimeModule);
        const text = clientSource(source);
        const pretty = await format(text, CLIENT_STYLE);
        if (fitsClientStyle(text, source)) {
          direct++;
          assert.equal(text, pretty);
        }
        assert.equal(await renderClient(kind, typeModule, runtimeModule), pretty);
      }),
      runs,
    );
    // The generator must not be checking nothing: most generated inputs take the direct path.
    assertFloor(t, 'laid out directly', direct, runs / 3);
  });

  it('breaks a long signature one parameter per line and a long type alias open, as prettier does', () => {
    const kind: ClientKind = {
      group: 'fleet.example.com',
      version: 'v1',
      kind: 'CertificateSigningPolicy',
      plural: 'certificatesigningpolicies',
      namespaced: true,
      typeName: 'CertificateSigningPolicy',
      sourceFile: 'src/api/fleet/v1/policy_types.ts',
      groupDir: 'fleet',
      status: true,
      scale: false,
    };
    const source = input(kind, '../../../api/fleet/v1/policy_types.ts', 'op-gen/runtime');
    const text = clientSource(source);
    assert.ok(fitsClientStyle(text, source));
    assert.match(text, /\n {2}jsonPatch\(\n {4}key: CertificateSigningPolicyKey,\n/);
    assert.match(
      text,
      /\n {2}create\(obj: CertificateSigningPolicy, options\?: WriteOptions\): Promise<CertificateSigningPolicy> \{\n/,
    );
    assert.match(
      text,
      /\nexport type CertificateSigningPolicyListOptions = Omit<ListOptions, 'namespace'> & \{\n {2}readonly namespace\?: string;\n\};\n/,
    );
  });

  it('leaves a module path with a quote to prettier', () => {
    const source = input(
      {
        group: 'a.io',
        version: 'v1',
        kind: 'A',
        plural: 'as',
        namespaced: false,
        typeName: 'A',
        sourceFile: "x'y.ts",
        groupDir: 'a',
        status: false,
        scale: false,
      },
      "./x'y.ts",
      'op-gen/runtime',
    );
    assert.equal(fitsClientStyle(clientSource(source), source), false);
  });
});
