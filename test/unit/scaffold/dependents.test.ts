import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OpGenError } from '../../../src/errors.ts';
import { createApi, type ApiDependent, type CreateApiOptions } from '../../../src/scaffold/create-api.ts';
import { initProject } from '../../../src/scaffold/init.ts';
import { quietIo, snapshot, tempDir } from './helpers.ts';

describe('op-gen create api --dependents', () => {
  const tmp = tempDir();
  after(tmp.cleanup);
  const root = join(tmp.dir, 'proj');
  const base: CreateApiOptions = { dir: root, group: 'web', version: 'v1', skipGenerate: true };

  before(async () => {
    await initProject({ dir: root, domain: 'example.com', skipInstall: true }, quietIo());
  });

  const cases: [string, Partial<CreateApiOptions>, RegExp][] = [
    [
      'an unknown kind',
      { dependents: ['configmap', 'secret' as ApiDependent] },
      /the kinds are configmap, deployment, service/,
    ],
    ['an empty list', { dependents: [] }, /the kinds are/],
    [
      '--example with it',
      { dependents: ['service'], example: 'deployment' },
      /--dependents and --example exclude each other/,
    ],
    ['a cluster-scoped kind', { dependents: ['configmap'], namespaced: false }, /needs a namespaced kind/],
    ['no controller', { dependents: ['configmap'], controller: false }, /drop --no-controller/],
  ];
  for (const [what, override, message] of cases) {
    it(`refuses ${what}, writing nothing`, async () => {
      const before = snapshot(root);
      await assert.rejects(createApi({ ...base, kind: 'Bad', ...override }, quietIo()), (err: unknown) => {
        assert.ok(err instanceof OpGenError, String(err));
        assert.match(err.message, message);
        assert.equal(err.exitCode, 2);
        return true;
      });
      assert.deepEqual(snapshot(root), before);
    });
  }

  it('scaffolds a controller on the chosen dependents, in workflow order, and records the flag', async () => {
    await createApi({ ...base, kind: 'Site', dependents: ['service', 'deployment', 'configmap'] }, quietIo());
    const controller = readFileSync(join(root, 'src/controllers/site.controller.ts'), 'utf8');
    assert.match(controller, /\.dependents\(\[config, deployment, service\]\)/);
    assert.match(controller, /dependent\(builtinKinds\.Deployment, \{[^]*?\}\)\.dependsOn\(config\)/);
    assert.match(controller, /dependent\(builtinKinds\.Service, [^]*?\.dependsOn\(\s*deployment,?\s*\)/);
    assert.match(controller, /`ConfigReady`, `DeploymentReady`, `ServiceReady`/);
    assert.doesNotMatch(controller, /^ \* @rbac|ensureFinalizer/m);
    const types = readFileSync(join(root, 'src/api/web/v1/site.ts'), 'utf8');
    assert.match(types, /size\?: int32;[^]*image: string;/);
    const test = readFileSync(join(root, 'test/unit/site.controller.test.ts'), 'utf8');
    assert.match(test, /desiredConfigMap,\n {2}desiredDeployment,\n {2}desiredService,/);
    assert.match(
      readFileSync(join(root, 'op-gen.yaml'), 'utf8'),
      /- --dependents\n\s+- service,deployment,configmap/,
    );
  });

  it('leaves out what was not asked for: a ConfigMap alone has no Deployment, Service nor dependsOn', async () => {
    await createApi({ ...base, kind: 'Setting', dependents: ['configmap'] }, quietIo());
    const controller = readFileSync(join(root, 'src/controllers/setting.controller.ts'), 'utf8');
    assert.match(controller, /import type \{ V1ConfigMap \} from '@kubernetes\/client-node';/);
    assert.match(controller, /\.dependents\(\[config\]\)/);
    assert.doesNotMatch(controller, /Deployment|Service|dependsOn/);
  });
});
