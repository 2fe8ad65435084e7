import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateTypes, parseCrds, readCrds } from '../../../src/generate/types/index.ts';

const FIXTURES = new URL('../../fixtures/types/', import.meta.url).pathname;
const GOLDEN = new URL('../../golden/types/', import.meta.url).pathname;
// Inside the op-gen package so `import ... from 'op-gen'` in generated files resolves to dist/ (built by npm test).
const WORK = new URL('./tmp/', import.meta.url).pathname;
const TSC = new URL('../../../node_modules/typescript/bin/tsc', import.meta.url).pathname;

const GENERATED = [
  'argoproj.io/v1alpha1/rollout.ts',
  'cert-manager.io/v1/certificate.ts',
  'monitoring.coreos.com/v1/servicemonitor.ts',
];

/** Runs tsc on one file next to the generated types; returns the TS error codes it reports. */
function tscErrors(dir: string, file: string): string[] {
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2023',
        allowImportingTsExtensions: true,
        skipLibCheck: true,
        types: [],
      },
      files: [file],
    }),
  );
  const r = spawnSync(process.execPath, [TSC, '-p', dir], { encoding: 'utf8' });
  return [...r.stdout.matchAll(/error (TS\d+)/g)].map((m) => m[1]!);
}

describe('generate types', () => {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  after(() => rmSync(WORK, { recursive: true, force: true }));

  it('writes one module per CRD version, equal to the goldens', async () => {
    const result = await generateTypes({
      cwd: WORK,
      crds: readCrds(join(FIXTURES, 'crds')),
      outDir: 'types',
    });
    assert.deepEqual(
      result.files,
      GENERATED.map((f) => `types/${f}`),
    );
    for (const file of GENERATED) {
      const actual = readFileSync(join(WORK, 'types', file), 'utf8');
      if (process.env.UPDATE_GOLDEN) {
        mkdirSync(join(GOLDEN, file, '..'), { recursive: true });
        writeFileSync(join(GOLDEN, file), actual);
      }
      assert.equal(actual, readFileSync(join(GOLDEN, file), 'utf8'), `${file} differs from its golden`);
    }
    const again = await generateTypes({ cwd: WORK, crds: readCrds(join(FIXTURES, 'crds')), outDir: 'types' });
    assert.deepEqual(again.changed, [], 'deterministic');
  });

  it('maps the Kubernetes extensions', () => {
    const rollout = readFileSync(join(WORK, 'types', GENERATED[0]!), 'utf8');
    assert.match(rollout, /maxSurge\?: number \| string;/, 'int-or-string');
    assert.match(rollout, /template\?: \{\s*\[key: string\]: unknown\s*\};/, 'preserve-unknown-fields');
    assert.match(rollout, /apiVersion: 'argoproj\.io\/v1alpha1';/);
    assert.match(rollout, /export const RolloutKind = defineKind<Rollout>\(rolloutInfo\);/);
    const cert = readFileSync(join(WORK, 'types', GENERATED[1]!), 'utf8');
    assert.match(
      cert,
      /\* Name of the Secret resource that will be automatically created/,
      'descriptions become JSDoc',
    );
    assert.match(cert, /algorithm\?: 'RSA' \| 'ECDSA' \| 'Ed25519';/, 'enums become unions');
  });

  it('the generated types compile and are usable; wrong fields and types do not compile', () => {
    for (const f of readdirSync(join(FIXTURES, 'compile')))
      copyFileSync(join(FIXTURES, 'compile', f), join(WORK, f.replace(/\.txt$/, '')));
    assert.deepEqual(tscErrors(WORK, 'usage.ts'), []);
    // TS2561: object literal may only specify known properties; did you mean 'dnsNames'? (a misspelt field).
    assert.deepEqual(tscErrors(WORK, 'wrong-field.ts'), ['TS2561']);
    // TS2322: a value outside an enum / of the wrong type.
    assert.deepEqual(tscErrors(WORK, 'wrong-type.ts'), ['TS2322']);
    assert.deepEqual(tscErrors(WORK, 'wrong-int-or-string.ts'), ['TS2322']);
  });

  it('rejects a document that is not a CRD, naming file and document, writing nothing', async () => {
    const out = join(WORK, 'bad-out');
    assert.throws(
      () => readCrds(join(FIXTURES, 'bad', 'not-a-crd.yaml')),
      /not-a-crd\.yaml \(document 1\): not an apiextensions\.k8s\.io\/v1 CustomResourceDefinition \(found v1 ConfigMap\)/,
    );
    assert.equal(existsSync(out), false);
  });

  it('reports a YAML syntax error with file, line and document index', () => {
    assert.throws(
      () => readCrds(join(FIXTURES, 'bad', 'syntax.yaml')),
      /syntax\.yaml:\d+ \(document 2\): YAML syntax error/,
    );
  });

  it('reports a CRD without the required fields', () => {
    assert.throws(
      () =>
        parseCrds(
          'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: x}\n',
          'x.yaml',
        ),
      /x\.yaml \(document 1\): the CRD lacks spec\.group/,
    );
  });
});
