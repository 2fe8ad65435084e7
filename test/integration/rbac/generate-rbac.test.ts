import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { planRbac, type GenerateRbacOptions } from '../../../src/generate/rbac/generate-rbac.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { auditLog, type AuditLog } from './audit-log.ts';
import {
  apply,
  installMemcachedCrd,
  manifestObjects,
  waitForDecision,
  type ResourceAttributes,
} from './cluster.ts';
import { runOperator, type OperatorTarget } from './memcached-operator.ts';

const here = dirname(fileURLToPath(import.meta.url));
const FIXTURE = join(here, '../../fixtures/rbac/memcached');
const CONTROLLER = 'src/controllers/memcached-controller.ts';
const MANAGER_NS = 'memcached-operator-system';
const SA = 'controller-manager';
const APP_NS = 'demo';

/** Generates the fixture's RBAC (optionally with its controller source edited) and parses every object. */
function generatedObjects(edit?: (source: string) => string, options: Partial<GenerateRbacOptions> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'op-gen-rbac-it-'));
  try {
    cpSync(FIXTURE, root, { recursive: true });
    if (edit) writeFileSync(join(root, CONTROLLER), edit(readFileSync(join(root, CONTROLLER), 'utf8')));
    return manifestObjects(planRbac({ cwd: root, ...options }).files);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const waitFor = (admin: KubeConfig, attributes: ResourceAttributes, allowed: boolean): Promise<void> =>
  waitForDecision(admin, { namespace: MANAGER_NS, name: SA }, attributes, allowed);

describe('generate rbac against a real API server', { skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane;
  let sa: KubeConfig;
  let target: Omit<OperatorTarget, 'run'>;
  let runs = 0;
  let audit: AuditLog;
  let auditDir: string;
  const nextTarget = (): OperatorTarget => ({ ...target, run: `r${++runs}` });

  before(async () => {
    auditDir = mkdtempSync(join(tmpdir(), 'op-gen-rbac-audit-'));
    audit = auditLog(auditDir, `system:serviceaccount:${MANAGER_NS}:${SA}`);
    cp = await startControlPlane({
      apiServerFlags: [
        // blockOwnerDeletion then needs update on <owner plural>/finalizers, as on most real clusters
        '--enable-admission-plugins=OwnerReferencesPermissionEnforcement',
        ...audit.flags,
      ],
    });
    const admin = cp.kubeConfig;
    await installMemcachedCrd(admin);
    const core = admin.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: APP_NS } } });
    // the manager's namespace and ServiceAccount come from the generated manifests
    await core.createNamespace({ body: { metadata: { name: MANAGER_NS } } });
    await apply(admin, generatedObjects());
    sa = await cp.kubeConfigForServiceAccount(MANAGER_NS, SA);
    const custom = admin.makeApiClient(CustomObjectsApi);
    let created: KubernetesObject | undefined;
    for (let i = 0; !created; i++) {
      try {
        created = (await custom.createNamespacedCustomObject({
          group: 'cache.example.com',
          version: 'v1alpha1',
          namespace: APP_NS,
          plural: 'memcacheds',
          body: {
            apiVersion: 'cache.example.com/v1alpha1',
            kind: 'Memcached',
            metadata: { name: 'sample' },
            spec: { size: 3 },
          },
        })) as KubernetesObject;
      } catch (err) {
        if (i > 50) throw err;
        await sleep(100); // the CRD's REST endpoint may lag Established by a moment
      }
    }
    target = {
      namespace: APP_NS,
      name: 'sample',
      uid: created.metadata?.uid ?? '',
      managerNamespace: MANAGER_NS,
    };
    await waitFor(admin, { group: 'cache.example.com', resource: 'memcacheds', verb: 'list' }, true);
  });

  after(async () => {
    await cp?.stop();
    if (auditDir) rmSync(auditDir, { recursive: true, force: true });
  });

  it('the generated roles are enough: the operator converges with zero forbidden responses', async () => {
    const mark = audit.mark();
    const run = await runOperator(sa, nextTarget());
    assert.deepEqual(run.failed, []);
    assert.deepEqual(run.forbidden, []);
    // the API server's audit log agrees: it refused nothing
    assert.deepEqual(audit.forbiddenSince(mark), []);
  });

  it('removing one declaration makes exactly its calls forbidden', async () => {
    const admin = cp.kubeConfig;
    const without = generatedObjects((source) =>
      source.replace(/^.*@rbac groups=apps resources=deployments verbs=create;update;patch;delete\n/m, ''),
    );
    await apply(admin, without);
    await waitFor(
      admin,
      { group: 'apps', resource: 'deployments', verb: 'create', namespace: APP_NS },
      false,
    );
    const run = await runOperator(sa, nextTarget());
    assert.deepEqual(run.forbidden, [
      'create deployments',
      'patch deployments (scale)',
      'delete deployments',
    ]);
    // get deployments: 404 (never created) — every other call still succeeds
    assert.deepEqual(
      run.failed.map((f) => f.split(':')[0]),
      ['get deployments'],
    );
    await apply(admin, generatedObjects());
    await waitFor(admin, { group: 'apps', resource: 'deployments', verb: 'create', namespace: APP_NS }, true);
  });

  it('without inference the operator is refused what its builder chain needs', async () => {
    const admin = cp.kubeConfig;
    await apply(admin, generatedObjects(undefined, { infer: false }));
    await waitFor(admin, { group: 'apps', resource: 'deployments', verb: 'list' }, false);
    const run = await runOperator(sa, nextTarget());
    assert.deepEqual(run.forbidden, [
      'list deployments',
      'watch deployments',
      // blockOwnerDeletion: update on memcacheds/finalizers is inferred, not declared
      'create deployments',
      'get deployments',
      'patch memcacheds/status',
      'create events',
      'patch events',
    ]);
    // create on deployments is declared: the refusal is the owner reference's finalizers check
    assert.match(run.results.get('create deployments')?.body ?? '', /blockOwnerDeletion/);
    await apply(admin, generatedObjects());
  });
});
