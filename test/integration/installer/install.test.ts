import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { buildInstaller } from '../../../src/installer/index.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { sampleProject } from '../../unit/bundle/project.ts';
import { applyAll, getAll, type ManifestObject } from './cluster-objects.ts';

const IMAGE = 'registry.example.com/memcached-operator:0.1.0';

describe('dist/install.yaml on a fresh control plane', { skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane | undefined;
  let objects: ManifestObject[] = [];
  before(async () => {
    const project = sampleProject();
    buildInstaller({ cwd: project, image: IMAGE, renderer: 'op-gen' });
    objects = parseAllDocuments(readFileSync(join(project, 'dist/install.yaml'), 'utf8')).map(
      (d) => d.toJS() as ManifestObject,
    );
    cp = await startControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  it('server-side apply creates every object; the Deployment runs the image', async () => {
    assert.ok(cp);
    assert.ok(objects.length >= 10, `only ${objects.length} objects`);
    await applyAll(cp, objects);
    const live = await getAll(cp, objects);
    assert.deepEqual(
      live.map((o) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`),
      objects.map((o) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`),
    );
    const deployment = live.find((o) => o.kind === 'Deployment') as
      { spec: { template: { spec: { containers: { image: string }[] } } } } | undefined;
    assert.equal(deployment?.spec.template.spec.containers[0]?.image, IMAGE);
  });
});
