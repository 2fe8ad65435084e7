import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import type { JSONSchemaProps } from '../../../src/api-types/json-schema.ts';
import { main } from '../../../src/cli/main.ts';
import { generateCrds } from '../../../src/generate/crd/index.ts';
import {
  ANNOTATION_LIMIT_BYTES,
  REQUEST_LIMIT_BYTES,
  crdBytes,
  fitDescriptions,
  sizeVerdict,
} from '../../../src/generate/crd/size-budget.ts';
import { ProblemsError } from '../../../src/shared/problems.ts';

const FIXTURE = new URL('../../fixtures/crd/', import.meta.url).pathname;

function sink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

describe('size budget: fitDescriptions', () => {
  const long = (word: string): string => `${word} `.repeat(100).trim();
  const embedded = new WeakSet<JSONSchemaProps>();
  const k8s: JSONSchemaProps = {
    type: 'object',
    description: long('k8s'),
    properties: { image: { type: 'string', description: long('image') } },
  };
  embedded.add(k8s);
  embedded.add(k8s.properties!.image!);
  const crd = {
    metadata: { name: 'xs.example.com' },
    spec: {
      versions: [
        {
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: long('mine'),
              properties: { template: k8s },
            } satisfies JSONSchemaProps,
          },
        },
      ],
    },
  };
  const schemaOf = (c: typeof crd): JSONSchemaProps => c.spec.versions[0]!.schema.openAPIV3Schema;

  it('leaves a CRD that fits alone', () => {
    const fitted = fitDescriptions(crd, embedded, 1_000_000);
    assert.equal(fitted.crd, crd);
    assert.equal(fitted.size.trimmed, undefined);
    assert.equal(fitted.size.bytes, crdBytes(crd));
  });

  it("trims embedded Kubernetes types' descriptions first, the user's own only when that is not enough", () => {
    const full = crdBytes(crd);
    // Enough to cut the Kubernetes descriptions only.
    const first = fitDescriptions(crd, embedded, full - 600);
    assert.match(first.size.trimmed ?? '', /^Kubernetes types' descriptions cut to \d+ characters$/);
    assert.equal(schemaOf(first.crd).description, long('mine'), "the user's description is kept");
    assert.ok((schemaOf(first.crd).properties?.template?.description?.length ?? 1e9) < long('k8s').length);
    assert.ok(first.size.bytes <= full - 600);
    // Only cutting the user's descriptions too gets there.
    const k8sDescriptions = [long('k8s'), long('image')].reduce(
      (n, d) => n + `"description":${JSON.stringify(d)},`.length,
      0,
    );
    const second = fitDescriptions(crd, embedded, full - k8sDescriptions - 50);
    assert.match(second.size.trimmed ?? '', /Kubernetes types' descriptions dropped, the others cut to \d+/);
    assert.equal(schemaOf(second.crd).properties?.template?.description, undefined);
    assert.ok(second.size.bytes <= full - k8sDescriptions - 50);
    assert.equal(schemaOf(crd).description, long('mine'), 'the input is not changed');
  });

  it('warns past 256 KiB and fails past 1.5 MiB', () => {
    assert.deepEqual(sizeVerdict({ name: 'a', bytes: ANNOTATION_LIMIT_BYTES }), {});
    assert.match(
      sizeVerdict({ name: 'a', bytes: ANNOTATION_LIMIT_BYTES + 1 }).warning ?? '',
      /--server-side/,
    );
    assert.match(
      sizeVerdict({ name: 'a', bytes: REQUEST_LIMIT_BYTES + 1 }).problem ?? '',
      /CRD a is 1\.50 MiB as JSON, over the 1\.50 MiB the API server can store.*--max-description-length auto/,
    );
  });
});

describe('size budget: generate crd', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'op-gen-size-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('the default changes nothing: auto leaves every small fixture CRD as it was', async () => {
    for (const apiDir of ['api', 'api-cel', 'api-unions']) {
      const plain = await generateCrds({ cwd: FIXTURE, apiDir, outDir: tmp, check: true });
      const auto = await generateCrds({ cwd: FIXTURE, apiDir, outDir: tmp, check: true, maxDescLen: 'auto' });
      assert.deepEqual(auto.crds, plain.crds, apiDir);
      assert.deepEqual(plain.warnings, []);
      assert.ok(plain.sizes.every((s) => s.bytes > 1000 && s.trimmed === undefined));
    }
    // api-k8s embeds a PodTemplateSpec and is over 256 KiB: the default warns and changes nothing.
    const k8s = await generateCrds({ cwd: FIXTURE, apiDir: 'api-k8s', outDir: tmp, check: true });
    assert.equal(k8s.warnings.length, 1);
    assert.match(
      k8s.warnings[0] ?? '',
      /CRD apps\.apps\.example\.com is \d+\.\d KiB as JSON, over the 256 KiB/,
    );
  });

  it('a CRD embedding four PodTemplateSpecs: a warning by default, fits 256 KiB in auto mode', async () => {
    const plain = await generateCrds({ cwd: FIXTURE, apiDir: 'api-big', outDir: tmp, check: true });
    const [size] = plain.sizes;
    assert.ok(size && size.bytes > 1024 * 1024 && size.bytes < REQUEST_LIMIT_BYTES, String(size?.bytes));
    assert.equal(plain.warnings.length, 1);
    assert.match(
      plain.warnings[0] ?? '',
      /^api-big\/batch\/v1\/pipeline_types\.ts:28: CRD pipelines\.batch\.example\.com is 1\.\d\d MiB as JSON, over the 256 KiB/,
    );

    const auto = await generateCrds({
      cwd: FIXTURE,
      apiDir: 'api-big',
      outDir: tmp,
      check: true,
      maxDescLen: 'auto',
    });
    const [fitted] = auto.sizes;
    assert.ok(fitted && fitted.bytes <= ANNOTATION_LIMIT_BYTES, String(fitted?.bytes));
    assert.equal(fitted.trimmed, "Kubernetes types' descriptions dropped");
    assert.deepEqual(auto.warnings, []);
    const spec = auto.crds[0]?.spec.versions[0]?.schema.openAPIV3Schema.properties?.spec;
    // The user's descriptions stay; the PodTemplateSpec's own are gone.
    assert.equal(
      spec?.description,
      'PipelineSpec embeds several PodTemplateSpecs, as a multi-stage workflow operator would.',
    );
    assert.equal(spec?.properties?.build?.description, 'build runs first.');
    assert.equal(spec?.properties?.extra?.items?.properties?.name?.description, 'name of the stage.');
    const podSpec = spec?.properties?.build?.properties?.spec;
    assert.equal(podSpec?.type, 'object');
    assert.equal(podSpec?.description, undefined);
    assert.equal(podSpec?.properties?.containers?.description, undefined);
    assert.ok(!JSON.stringify(spec?.properties?.test).includes('"description":"Specification'));
    // A number cuts everything: 0 drops the user's descriptions too.
    const zero = await generateCrds({
      cwd: FIXTURE,
      apiDir: 'api-big',
      outDir: tmp,
      check: true,
      maxDescLen: 0,
    });
    assert.equal(
      zero.crds[0]?.spec.versions[0]?.schema.openAPIV3Schema.properties?.spec?.description,
      undefined,
    );
  });

  it('past the request limit: an error naming the kind, size and limit; nothing written; auto gets it under', async () => {
    const project = join(tmp, 'huge');
    cpSync(join(FIXTURE, 'api-big'), join(project, 'src/api'), { recursive: true });
    const file = join(project, 'src/api/batch/v1/pipeline_types.ts');
    writeFileSync(
      file,
      (await import('node:fs'))
        .readFileSync(file, 'utf8')
        .replace(
          '  /** extra stages',
          '  cleanup?: V1PodTemplateSpec;\n  notify?: V1PodTemplateSpec;\n  /** extra stages',
        ),
    );
    await assert.rejects(generateCrds({ cwd: project }), (err: unknown) => {
      assert.ok(err instanceof ProblemsError);
      assert.match(
        err.message,
        /^src\/api\/batch\/v1\/pipeline_types\.ts:30: CRD pipelines\.batch\.example\.com is 1\.\d\d MiB as JSON, over the 1\.50 MiB the API server can store \(etcd's default request limit\)\. Run with --max-description-length auto/,
      );
      return true;
    });
    assert.equal(existsSync(join(project, 'config')), false, 'nothing written');
    const err = sink();
    const out = sink();
    const code = await main(['generate', 'crd', '--cwd', project, '--max-description-length', 'auto'], {
      stdout: out.stream,
      stderr: err.stream,
    });
    assert.equal(code, 0, err.text());
    assert.match(
      out.text(),
      /size {6}config\/crd\/bases\/batch\.example\.com_pipelines\.yaml \d+\.\d KiB \(.*descriptions.*\)\n/,
    );
  });

  it('the CLI prints each size; --max-description-length takes a number or auto', async () => {
    const out = sink();
    const args = ['generate', 'crd', '--cwd', FIXTURE, '--api-dir', 'api-unions', '--out', join(tmp, 'cli')];
    assert.equal(await main(args, { stdout: out.stream, stderr: sink().stream }), 0);
    assert.match(out.text(), /size {6}.*deploy\.example\.com_releases\.yaml \d+\.\d KiB\n/);
    const bad = sink();
    assert.equal(await main([...args, '--max-description-length', 'short'], { stderr: bad.stream }), 2);
    assert.match(bad.text(), /expected a whole number >= 0 or auto/);
  });
});
