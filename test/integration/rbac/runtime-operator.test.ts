import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { parse } from 'yaml';
import { planRbac } from '../../../src/generate/rbac/generate-rbac.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { setupMemcachedController } from '../../fixtures/runtime/memcached-operator.ts';
import { auditLog, type AuditLog } from './audit-log.ts';
import { apply, installMemcachedCrd, manifestObjects, waitForDecision } from './cluster.ts';
import { runMemcachedOperator } from './operator-run.ts';
import { memcachedOperatorSources } from './memcached-operator-rbac.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const MANAGER_NS = 'memcached-operator-system';
const SA = { namespace: MANAGER_NS, name: 'controller-manager' };
const APP_NS = 'demo';
const DECLARATIONS = 'test/integration/rbac/memcached-operator-rbac.ts';

/**
 * RBAC generated from the runtime's sample operator (its builder chain + the @rbac declarations of
 * its writes). `withoutDeclaration` removes one marker line from a copy of the declarations.
 */
function generatedObjects(withoutDeclaration?: RegExp) {
  const tmp = mkdtempSync(join(tmpdir(), 'op-gen-rbac-runtime-'));
  try {
    const paths: string[] = [...memcachedOperatorSources];
    if (withoutDeclaration) {
      const text = readFileSync(join(repoRoot, DECLARATIONS), 'utf8');
      assert.match(text, withoutDeclaration);
      writeFileSync(join(tmp, 'declarations.ts'), text.replace(withoutDeclaration, ''));
      paths.splice(paths.indexOf(DECLARATIONS), 1, join(tmp, 'declarations.ts'));
    }
    return manifestObjects(planRbac({ cwd: repoRoot, paths, namespace: MANAGER_NS }).files);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

interface OperatorRun {
  /** `METHOD path` of every 403 the manager's client received, from its onResponse observer. */
  readonly forbidden: string[];
  /** The Memcached's Ready condition status at the end. */
  readonly ready: string | undefined;
}

describe(
  "generate rbac: the runtime's sample operator as its ServiceAccount",
  { skip: controlPlaneSkip() },
  () => {
    let cp: ControlPlane;
    let sa: KubeConfig;
    let audit: AuditLog;
    let auditDir: string;

    before(async () => {
      auditDir = mkdtempSync(join(tmpdir(), 'op-gen-rbac-audit-'));
      audit = auditLog(auditDir, `system:serviceaccount:${SA.namespace}:${SA.name}`);
      cp = await startControlPlane({
        apiServerFlags: ['--enable-admission-plugins=OwnerReferencesPermissionEnforcement', ...audit.flags],
      });
      const core = cp.kubeConfig.makeApiClient(CoreV1Api);
      // the runtime's own CRD for its sample (a structural schema with spec.image and spec.size)
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
        { group: 'cache.example.com', resource: 'memcacheds', verb: 'list' },
        true,
      );
    });

    after(async () => {
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

    /** Runs the sample operator as the ServiceAccount until `until` holds for a new Memcached `name`. */
    async function runOperator(
      name: string,
      until: (run: OperatorRun) => Promise<boolean>,
    ): Promise<OperatorRun> {
      const { value } = await runMemcachedOperator({
        sa,
        admin: cp.kubeConfig,
        namespace: APP_NS,
        name,
        leaderElection: { enabled: true, id: `memcached-operator-${name}`, namespace: MANAGER_NS },
        setup: setupMemcachedController,
        until: async (forbidden) => {
          const run = { forbidden, ready: await readyStatus(name) };
          return (await until(run)) ? run : undefined;
        },
      });
      return value;
    }

    /** The operator's event for the Memcached (the recorder writes asynchronously). */
    const eventFor = async (name: string): Promise<boolean> => {
      const events = await cp.kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace: APP_NS });
      return events.items.some((e) => e.involvedObject.name === name && e.reason === 'ChildrenApplied');
    };

    it('converges a Memcached with zero forbidden responses', async () => {
      const mark = audit.mark();
      const run = await runOperator('one', async (r) => r.ready === 'True' && (await eventFor('one')));
      assert.deepEqual(run.forbidden, []);
      assert.equal(run.forbidden.length, 0);
      assert.deepEqual(audit.forbiddenSince(mark), []);
    });

    it('without the services declaration, applying the Service is refused (and only that)', async () => {
      await apply(
        cp.kubeConfig,
        generatedObjects(/^.*@rbac groups="" resources=services verbs=create;patch\n/m),
      );
      await waitForDecision(
        cp.kubeConfig,
        SA,
        { group: '', resource: 'services', verb: 'patch', namespace: APP_NS },
        false,
      );
      const mark = audit.mark();
      const two = `PATCH /api/v1/namespaces/${APP_NS}/services/two`;
      const run = await runOperator('two', async (r) => r.forbidden.filter((f) => f === two).length >= 2);
      // Every 403 is that call, retried, for the new Memcached and for `one` (re-applied on the new
      // manager's first pass).
      assert.deepEqual([...new Set(run.forbidden)].sort(), [
        `PATCH /api/v1/namespaces/${APP_NS}/services/one`,
        two,
      ]);
      assert.notEqual(run.ready, 'True');
      assert.deepEqual([...new Set(audit.forbiddenSince(mark))], ['patch services']);
      await apply(cp.kubeConfig, generatedObjects());
    });
  },
);
