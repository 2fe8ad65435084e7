/**
 * A run under only the RBAC `op-gen generate rbac` wrote for the scaffolded project (config/rbac: the
 * manager ClusterRole from the controller's @rbac markers, the leader election Role, their bindings
 * and the ServiceAccount): two replicas authenticate as that ServiceAccount with a real token, and go
 * through a full run with faults: creation, a leader handoff (SIGTERM), a watch gap (the leader
 * SIGSTOPped while Deployments are deleted, sizes change and Memcacheds are deleted, so finalizers are
 * removed), a Deployment it must not adopt (status and a Warning event). The API server's audit log must
 * record zero 403s for that user (and some requests: with auditing off, zero proves nothing).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import type { AuditLog } from '../integration/rbac/audit-log.ts';
import { apply, waitForDecision } from '../integration/rbac/cluster.ts';
import { OP_GEN_ROOT } from './operator.ts';
import { started, until, type FaultEnv, type Figures } from './scenarios.ts';

/** The ServiceAccount and namespace the scaffold's config/rbac names. */
export const MANAGER_SA = { namespace: 'memcached-operator-system', name: 'controller-manager' };
export const MANAGER_USER = `system:serviceaccount:${MANAGER_SA.namespace}:${MANAGER_SA.name}`;

const RBAC_FILES = [
  'service_account.yaml',
  'role.yaml',
  'role_binding.yaml',
  'leader_election_role.yaml',
  'leader_election_role_binding.yaml',
];

/** Runs `op-gen generate rbac` in the project and reads the objects it (and the scaffold) wrote. */
function generatedRbac(projectDir: string): KubernetesObject[] {
  const r = spawnSync(process.execPath, [join(OP_GEN_ROOT, 'bin/op-gen.js'), 'generate', 'rbac'], {
    cwd: projectDir,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`op-gen generate rbac failed:\n${r.stdout}${r.stderr}`);
  return RBAC_FILES.flatMap((file) =>
    parseAllDocuments(readFileSync(join(projectDir, 'config/rbac', file), 'utf8')).map(
      (d) => d.toJS() as KubernetesObject,
    ),
  );
}

export async function underGeneratedRbac(
  env: FaultEnv,
  ns: string,
  projectDir: string,
  audit: AuditLog,
): Promise<Figures> {
  await env.cluster.createNamespace(ns);
  const admin = env.cp.kubeConfig;
  const objects = generatedRbac(projectDir);
  assert.ok(
    objects.some((o) => o.kind === 'ClusterRole' && o.metadata?.name === 'manager-role'),
    'generate rbac wrote the manager ClusterRole',
  );
  const sa = await env.cp.kubeConfigForServiceAccount(MANAGER_SA.namespace, MANAGER_SA.name);
  await apply(admin, objects);
  for (const attributes of [
    { group: 'cache.example.com', resource: 'memcacheds', verb: 'watch' },
    { group: 'coordination.k8s.io', resource: 'leases', verb: 'update', namespace: MANAGER_SA.namespace },
  ])
    await waitForDecision(admin, MANAGER_SA, attributes, true);
  const kubeconfig = join(projectDir, 'service-account.kubeconfig');
  writeFileSync(kubeconfig, sa.exportConfig(), { mode: 0o600 });
  const more = { kubeconfig, podNamespace: MANAGER_SA.namespace };

  const mark = audit.mark();
  const a = await env.start('rbac-a', ns, true, more);
  await started(a, true);
  const b = await env.start('rbac-b', ns, true, more);
  await until('b standing by', () => (b.loggedAt('waiting to acquire the leader lease') ? true : undefined));
  await env.cluster.createMemcacheds(ns, env.objects);
  const convergedMs = await env.cluster.waitConverged(ns, { expectCount: env.objects });

  // Leader handoff: b takes over.
  a.signal('SIGTERM');
  assert.equal((await a.exited).code, 0, a.logTail());
  await until('b to lead', () => b.loggedAt('acquired the leader lease'));

  // Watch gap on b: Deployments deleted, sizes changed, Memcacheds deleted (b removes finalizers).
  b.signal('SIGSTOP');
  const names = Array.from({ length: env.objects }, (_, i) => `m-${i}`);
  const deleted = names.filter((_, i) => i % 10 === 9);
  try {
    await env.cluster.eachMemcached(
      ns,
      names.filter((_, i) => i % 5 === 0),
      (m) =>
        env.cluster.memcacheds.patch({ namespace: ns, name: m.metadata.name }, 'merge', {
          spec: { size: ((m.spec.size ?? 1) % 3) + 1 },
        }),
    );
    for (const name of names.filter((_, i) => i % 10 === 3)) await env.cluster.deleteDeployment(ns, name);
    for (const name of deleted) await env.cluster.memcacheds.delete({ namespace: ns, name });
  } finally {
    b.signal('SIGCONT');
  }
  const gapMs = await env.cluster.waitConverged(ns, {
    expectCount: env.objects - deleted.length,
    expectGone: deleted,
  });

  // A Deployment it must not adopt: reported in status and by a Warning event (events create).
  await env.cluster.deployments.create({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'foreign', namespace: ns },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'foreign' } },
      template: {
        metadata: { labels: { app: 'foreign' } },
        spec: { containers: [{ name: 'foreign', image: 'registry.k8s.io/pause:3.10' }] },
      },
    },
  } as never);
  await env.cluster.memcacheds.create({
    apiVersion: 'cache.example.com/v1alpha1',
    kind: 'Memcached',
    metadata: { name: 'foreign', namespace: ns },
    spec: { size: 1, image: 'registry.k8s.io/pause:3.10' },
  });
  await until('the Warning event', async () =>
    (await env.cluster.events(ns)).some((e) => e.type === 'Warning' && e.reason === 'DeploymentNotOwned')
      ? true
      : undefined,
  );
  await b.stop();
  assert.equal((await b.exited).code, 0, b.logTail());

  const forbidden = audit.forbiddenSince(mark);
  assert.deepEqual(forbidden, [], 'no request of the operator was refused');
  return {
    convergedMs,
    convergedAfterGapMs: gapMs,
    forbidden: forbidden.length,
  };
}
