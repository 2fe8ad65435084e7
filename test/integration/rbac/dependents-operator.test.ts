import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type KubernetesObject,
  type V1CustomResourceDefinition,
  type V1PolicyRule,
} from '@kubernetes/client-node';
import { parse } from 'yaml';
import { planRbac } from '../../../src/generate/rbac/generate-rbac.ts';
import { ResourceClient, Transport, builtinKinds, type ObjectLike } from '../../../src/runtime/index.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { setupMemcachedDependents } from '../../fixtures/runtime/memcached-dependents.ts';
import { auditLog, type AuditLog } from './audit-log.ts';
import { apply, eventually, installMemcachedCrd, manifestObjects, waitForDecision } from './cluster.ts';
import { runMemcachedOperator } from './operator-run.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const MANAGER_NS = 'memcached-operator-system';
const SA = { namespace: MANAGER_NS, name: 'controller-manager' };
const APP_NS = 'demo';

/**
 * RBAC generated from the dependents fixture alone: no @rbac marker, every permission inferred from
 * `.for(MemcachedKind).dependents([deployment, service])`. `edit` changes the ClusterRole's rules.
 */
function generatedObjects(edit?: (rules: V1PolicyRule[]) => void): KubernetesObject[] {
  const objects = manifestObjects(
    planRbac({
      cwd: repoRoot,
      // memcached-operator.ts declares MemcachedKind (its own chain adds reads only, no @rbac marker)
      paths: ['test/fixtures/runtime/memcached-dependents.ts', 'test/fixtures/runtime/memcached-operator.ts'],
      namespace: MANAGER_NS,
    }).files,
  );
  const role = objects.find((o) => o.kind === 'ClusterRole' && o.metadata?.name === 'manager-role') as
    (KubernetesObject & { rules: V1PolicyRule[] }) | undefined;
  assert.ok(role, 'the manager ClusterRole');
  edit?.(role.rules);
  return objects;
}

describe(
  'generate rbac: an operator on dependents as its ServiceAccount, with inferred permissions only',
  { skip: controlPlaneSkip() },
  () => {
    let cp: ControlPlane;
    let sa: KubeConfig;
    let admin: Transport;
    let audit: AuditLog;
    let auditDir: string;

    before(async () => {
      auditDir = mkdtempSync(join(tmpdir(), 'op-gen-rbac-deps-audit-'));
      audit = auditLog(auditDir, `system:serviceaccount:${SA.namespace}:${SA.name}`);
      cp = await startControlPlane({
        apiServerFlags: ['--enable-admission-plugins=OwnerReferencesPermissionEnforcement', ...audit.flags],
      });
      admin = await Transport.fromKubeConfig(cp.kubeConfig);
      const core = cp.kubeConfig.makeApiClient(CoreV1Api);
      const crd = parse(
        readFileSync(join(repoRoot, 'test/fixtures/runtime/memcached-crd.yaml'), 'utf8'),
      ) as V1CustomResourceDefinition;
      await installMemcachedCrd(cp.kubeConfig, crd);
      await core.createNamespace({ body: { metadata: { name: APP_NS } } });
      await core.createNamespace({ body: { metadata: { name: MANAGER_NS } } });
      await apply(cp.kubeConfig, generatedObjects());
      sa = await cp.kubeConfigForServiceAccount(SA.namespace, SA.name);
      await waitForDecision(
        cp.kubeConfig,
        SA,
        { group: 'apps', resource: 'deployments', verb: 'create', namespace: APP_NS },
        true,
      );
    });

    after(async () => {
      admin?.close();
      await cp?.stop();
      if (auditDir) rmSync(auditDir, { recursive: true, force: true });
    });

    const custom = () => cp.kubeConfig.makeApiClient(CustomObjectsApi);
    const readyStatus = async (name: string): Promise<string | undefined> => {
      const obj = (await custom().getNamespacedCustomObject({
        group: 'cache.example.com',
        version: 'v1alpha1',
        namespace: APP_NS,
        plural: 'memcacheds',
        name,
      })) as { status?: { conditions?: { type: string; status: string }[] } };
      return obj.status?.conditions?.find((c) => c.type === 'Ready')?.status;
    };
    const deployment = async (name: string) => {
      try {
        return (await new ResourceClient(admin, builtinKinds.Deployment).get({
          namespace: APP_NS,
          name,
        })) as ObjectLike & { metadata: { generation?: number } };
      } catch {
        return undefined;
      }
    };
    /** No kubelet here: the test plays the Deployment controller and marks it rolled out. */
    const makeAvailable = async (name: string) => {
      const d = await eventually(`Deployment ${name}`, () => deployment(name));
      await new ResourceClient(admin, builtinKinds.Deployment).patchStatus(
        { namespace: APP_NS, name },
        'merge',
        {
          status: {
            observedGeneration: d.metadata.generation,
            replicas: 2,
            availableReplicas: 2,
            readyReplicas: 2,
            updatedReplicas: 2,
          },
        },
      );
    };

    /** Runs the dependents operator as the ServiceAccount until `until` holds; returns the 403s it got. */
    async function runOperator(
      name: string,
      until: (forbidden: string[]) => Promise<boolean>,
    ): Promise<readonly string[]> {
      const { forbidden } = await runMemcachedOperator({
        sa,
        admin: cp.kubeConfig,
        namespace: APP_NS,
        name,
        leaderElection: { enabled: false, id: 'dependents-operator' },
        setup: setupMemcachedDependents,
        until,
        timeoutMs: 30_000,
      });
      return forbidden;
    }

    it('creates the Deployment and, once available, the Service; Ready with zero forbidden responses', async () => {
      const mark = audit.mark();
      let madeAvailable = false;
      const forbidden = await runOperator('one', async () => {
        if (!madeAvailable && (await deployment('one'))) {
          await makeAvailable('one');
          madeAvailable = true;
        }
        return (await readyStatus('one')) === 'True';
      });
      assert.deepEqual(forbidden, []);
      assert.deepEqual(audit.forbiddenSince(mark), []);
    });

    it('server-side apply that creates needs `create`: without it the apply (a PATCH) is refused', async () => {
      await apply(
        cp.kubeConfig,
        generatedObjects((rules) => {
          const rule = rules.find((r) => r.resources?.includes('deployments'));
          assert.ok(rule);
          assert.ok(rule.verbs.includes('create'));
          rule.verbs = rule.verbs.filter((v) => v !== 'create');
        }),
      );
      await waitForDecision(
        cp.kubeConfig,
        SA,
        { group: 'apps', resource: 'deployments', verb: 'create', namespace: APP_NS },
        false,
      );
      const mark = audit.mark();
      const two = `PATCH /apis/apps/v1/namespaces/${APP_NS}/deployments/two`;
      const forbidden = await runOperator('two', async (f) => f.includes(two));
      // Only the apply that would create is refused: `one`'s Deployment exists and is not re-applied.
      assert.deepEqual([...new Set(forbidden)], [two]);
      assert.equal(await deployment('two'), undefined);
      assert.deepEqual([...new Set(audit.forbiddenSince(mark))], ['patch deployments']);
      await apply(cp.kubeConfig, generatedObjects());
    });
  },
);
