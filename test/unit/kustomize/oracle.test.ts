import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { renderKustomization, type JsonObject } from '../../../src/kustomize/index.ts';
import { webhookProject } from '../scaffold/webhook-project.ts';
import { toolPath, toolSkip } from '../../helpers/tools.ts';
import { OVERLAYS } from './overlays.ts';

const FIXTURES = new URL('../../fixtures/kustomize/', import.meta.url).pathname;

/** `kustomize build dir` by the real kustomize (built by npm run setup:envtest). */
function kustomizeBuild(dir: string): JsonObject[] {
  const r = spawnSync(toolPath('kustomize') as string, ['build', dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, `kustomize build ${dir}: ${r.stderr}`);
  return parseAllDocuments(r.stdout).map((d) => d.toJS() as JsonObject);
}

/** Same objects in the same order (objects compared as values, key order aside). */
function assertSameRender(dir: string): void {
  const theirs = kustomizeBuild(dir);
  const ours = renderKustomization(dir).map((o) => o.object);
  const id = (o: JsonObject): string => {
    const m = o.metadata as { name?: string; namespace?: string };
    return `${String(o.apiVersion)} ${String(o.kind)} ${m.namespace ?? ''}/${m.name ?? ''}`;
  };
  assert.deepEqual(ours.map(id), theirs.map(id), `${dir}: objects or order differ`);
  for (let i = 0; i < theirs.length; i++)
    assert.deepEqual(ours[i], theirs[i], `${dir}: ${id(theirs[i] as JsonObject)}`);
}

describe("op-gen's kustomize renderer against kustomize build", { skip: toolSkip('kustomize') }, () => {
  for (const overlay of OVERLAYS) {
    it(`${overlay}: same objects as kustomize build`, () => assertSameRender(join(FIXTURES, 'app', overlay)));
  }

  describe('a scaffolded project with webhooks and conversion', () => {
    let root = '';
    before(async () => {
      root = await webhookProject();
    });
    after(() => rmSync(dirname(root), { recursive: true, force: true }));
    for (const folder of ['default', 'manifests', 'samples', 'crd', 'webhook', 'rbac', 'manager']) {
      it(`config/${folder}: same objects as kustomize build`, () =>
        assertSameRender(join(root, 'config', folder)));
    }
  });
});
