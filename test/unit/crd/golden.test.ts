import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { main } from '../../../src/cli/main.ts';
import { generateCrds, loadApiModel } from '../../../src/generate/crd/index.ts';
import { assertGolden } from '../../helpers/golden.ts';
import { PACKAGE_VERSION } from '../../helpers/package-version.ts';

const FIXTURE = new URL('../../fixtures/crd/', import.meta.url).pathname;
const GOLDEN = new URL('../../golden/crd/', import.meta.url).pathname;

describe('generate crd on the rich fixture API (goldens)', () => {
  const out = mkdtempSync(join(tmpdir(), 'op-gen-crd-golden-'));
  after(() => rmSync(out, { recursive: true, force: true }));

  it('writes one CRD per group+kind, equal to the goldens (UPDATE_GOLDEN=1 rewrites them)', async () => {
    const result = await generateCrds({ cwd: FIXTURE, apiDir: 'api', outDir: out });
    const names = readdirSync(out).sort();
    assert.deepEqual(names, [
      'infra.example.com_backuppolicies.yaml',
      'infra.example.com_policies.yaml',
      'shop.example.com_stores.yaml',
    ]);
    assert.equal(result.written.length, 3);
    for (const name of names) assertGolden(join(GOLDEN, name), readFileSync(join(out, name), 'utf8'));
  });

  it('is deterministic and idempotent: a second run changes nothing', async () => {
    const again = await generateCrds({ cwd: FIXTURE, apiDir: 'api', outDir: out });
    assert.deepEqual(again.written, []);
    const check = await generateCrds({ cwd: FIXTURE, apiDir: 'api', outDir: out, check: true });
    assert.deepEqual(check.written, []);
  });

  it('--check reports changed files and writes nothing', async () => {
    const path = join(out, 'shop.example.com_stores.yaml');
    writeFileSync(path, 'stale\n');
    const check = await generateCrds({ cwd: FIXTURE, apiDir: 'api', outDir: out, check: true });
    assert.equal(check.written.length, 1);
    assert.match(check.written[0] ?? '', /shop\.example\.com_stores\.yaml$/);
    assert.equal(readFileSync(path, 'utf8'), 'stale\n');
    await generateCrds({ cwd: FIXTURE, apiDir: 'api', outDir: out });
  });

  it('the CLI: --check exits 1 listing stale files and writes nothing; a run reports what it wrote', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'op-gen-crd-cli-'));
    try {
      const io = (): { stream: Writable; text: () => string } => {
        const chunks: string[] = [];
        const stream = new Writable({
          write(chunk: Buffer, _enc, done) {
            chunks.push(chunk.toString());
            done();
          },
        });
        return { stream, text: () => chunks.join('') };
      };
      const err = io();
      const args = ['generate', 'crd', '--cwd', FIXTURE, '--api-dir', 'api', '--out', empty];
      assert.equal(await main([...args, '--check'], { stdout: io().stream, stderr: err.stream }), 1);
      assert.match(err.text(), /3 CRD file\(s\) out of date:\n.*shop\.example\.com_stores\.yaml/s);
      assert.deepEqual(readdirSync(empty), []);
      const out1 = io();
      assert.equal(await main(args, { stdout: out1.stream, stderr: io().stream }), 0);
      assert.match(out1.text(), /wrote +.*infra\.example\.com_backuppolicies\.yaml/);
      const out2 = io();
      assert.equal(await main([...args, '--check'], { stdout: out2.stream, stderr: io().stream }), 0);
      assert.match(out2.text(), /3 CRD file\(s\) up to date/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('--max-desc-len cuts descriptions at a word boundary; 0 drops them', async () => {
    const cut = await generateCrds({ cwd: FIXTURE, apiDir: 'api', outDir: out, check: true, maxDescLen: 12 });
    const store = cut.crds.find((c) => c.spec.names.kind === 'Store');
    const schema = store?.spec.versions.find((v) => v.name === 'v1')?.schema.openAPIV3Schema;
    assert.equal(schema?.properties?.spec?.properties?.replicas?.description, 'replicas is...');
    const none = await generateCrds({ cwd: FIXTURE, apiDir: 'api', outDir: out, check: true, maxDescLen: 0 });
    const text = JSON.stringify(none.crds);
    assert.doesNotMatch(
      text,
      /"description":"(?!desired replicas|Store docs)/,
      'no schema descriptions left',
    );
    assert.match(text, /"desired replicas"/, 'printer column descriptions are not schema descriptions');
  });

  it('emits what the markers and constructs say (spot checks)', () => {
    const store = parse(readFileSync(join(GOLDEN, 'shop.example.com_stores.yaml'), 'utf8'));
    const v1 = store.spec.versions.find((v: { name: string }) => v.name === 'v1');
    const spec = v1.schema.openAPIV3Schema.properties.spec;
    assert.equal(v1.storage, true);
    assert.equal(store.spec.versions.find((v: { name: string }) => v.name === 'v1alpha1').storage, false);
    assert.deepEqual(spec.properties.replicas, {
      default: 1,
      description: 'replicas is the desired number of pods.',
      format: 'int32',
      maximum: 100,
      minimum: 0,
      type: 'integer',
    });
    assert.deepEqual(spec.properties.logLevel.enum, ['debug', 'info', 'warn']);
    assert.deepEqual(spec.properties.priority, {
      description: 'priority (a numeric TypeScript enum).',
      enum: [1, 2],
      type: 'integer',
    });
    assert.equal(spec.properties.note.nullable, true);
    assert.deepEqual(spec.required, ['containers', 'mode', 'region', 'replicas']);
    assert.deepEqual(Object.keys(spec.properties.containers.items.properties), [
      'args',
      'cpu',
      'image',
      'memory',
      'name',
      'ports',
    ]);
    assert.deepEqual(spec.properties.withoutRatio.required, ['cacheSize', 'verbose']);
    assert.equal(spec.properties.tunables.required, undefined);
    assert.equal(spec.properties.extra.type, undefined);
    assert.equal(spec.properties.annotations.additionalProperties.type, 'string');
    const backup = parse(readFileSync(join(GOLDEN, 'infra.example.com_backuppolicies.yaml'), 'utf8'));
    assert.equal(backup.spec.scope, 'Cluster');
    assert.deepEqual(backup.spec.names.shortNames, ['bp', 'bkp']);
    const policy = parse(readFileSync(join(GOLDEN, 'infra.example.com_policies.yaml'), 'utf8'));
    assert.equal(policy.spec.versions[0].served, false);
    assert.equal(policy.metadata.annotations['op-gen.io/version'], PACKAGE_VERSION);
  });
});

describe('loadApiModel', () => {
  it('returns every kind version with names, scope, storage and docs of the kind and its fields', async () => {
    const kinds = await loadApiModel({ cwd: FIXTURE, apiDir: 'api' });
    const summary = kinds.map((k) =>
      `${k.group}/${k.version}/${k.kind} ${k.plural} ${k.singular} ${k.namespaced ? 'ns' : 'cluster'} ${k.storage ? 'storage' : ''}`.trim(),
    );
    assert.deepEqual(summary.sort(), [
      'infra.example.com/v1/Backup backuppolicies backuppolicy cluster',
      'infra.example.com/v1/Policy policies policy cluster',
      'shop.example.com/v1/Store stores store ns storage',
      'shop.example.com/v1alpha1/Store stores store ns',
    ]);
    const store = kinds.find((k) => k.version === 'v1' && k.kind === 'Store');
    assert.match(store?.description ?? '', /^Store is a shop front\./);
    assert.ok(store?.tags.some((t) => t.name === 'printcolumn'));
    const replicas = store?.fields.find((f) => f.path === 'spec.replicas');
    assert.equal(replicas?.description, 'replicas is the desired number of pods.');
    assert.deepEqual(
      replicas?.tags.map((t) => t.name),
      ['minimum', 'maximum', 'default'],
    );
    assert.match(replicas?.location.file ?? '', /store_types\.ts$/);
    assert.ok(store?.fields.some((f) => f.path === 'spec.containers[].name'));
    assert.ok(store?.fields.some((f) => f.path === 'status.conditions[].reason'));
  });
});
