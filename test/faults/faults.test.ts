/**
 * `npm run test:faults`: the scaffolded Memcached operator as a separate process against a real
 * kube-apiserver + etcd, through the faults an operator meets in production (scenarios.ts). Each
 * fault ends with the same check (cluster.ts): every Memcached Ready with observedGeneration ==
 * generation, its Deployment controlled by it with the spec's replicas and image, deleted ones gone;
 * the operator did not crash, leaders never overlapped. The last two groups run the operator
 * scaffolded on dependents (`create api --dependents`) through an API server restart and a watch gap,
 * with their own check (dependents.ts). Figures are printed as `# fault: ...` lines
 * (and appended as JSON lines to $OP_GEN_FAULTS_REPORT when set). Size: OP_GEN_FAULTS_OBJECTS
 * (default 150).
 */
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../src/testing/index.ts';
import { auditLog, type AuditLog } from '../integration/rbac/audit-log.ts';
import { Cluster } from './cluster.ts';
import { DEPENDENTS_CONTROLLER, dependentsApiServerRestart, dependentsWatchGap } from './dependents.ts';
import { MANAGER_USER, underGeneratedRbac } from './generated-rbac.ts';
import { OperatorProcess, scaffoldOperator, type ScaffoldedProject } from './operator.ts';
import {
  apiServerRestart,
  conflictStorm,
  leaderHandoff,
  sigtermUnderLoad,
  userActionFailures,
  watchGap,
  type FaultEnv,
  type Figures,
} from './scenarios.ts';
import { sigtermApiServerHung } from './sigterm-api-hung.ts';
import { threeReplicaHandoff } from './three-replicas.ts';

const N = Number(process.env.OP_GEN_FAULTS_OBJECTS ?? 150);
const skip = controlPlaneSkip();

function report(fault: string, figures: Figures): void {
  const text = Object.entries(figures)
    .map(([k, v]) => `${k} ${Math.round(v)}`)
    .join(', ');
  console.log(`# ${fault}: ${text}`);
  const file = process.env.OP_GEN_FAULTS_REPORT;
  if (file) appendFileSync(file, `${JSON.stringify({ fault, objects: N, ...figures })}\n`);
}

/**
 * A control plane, the scaffolded project and the operators started on it; stopped in after().
 * `audited`: the API server keeps an audit log of the operator's ServiceAccount (generated-rbac.ts).
 * `controller`: the `create api` flags of the project (default: the hand-written Deployment example).
 */
function faultEnv(
  apiServerFlags: readonly string[] = [],
  audited = false,
  controller?: readonly string[],
): { env: () => FaultEnv; projectDir: () => string; audit: () => AuditLog } {
  let cp: ControlPlane;
  let project: ScaffoldedProject;
  let cluster: Cluster;
  let auditDir: string | undefined;
  let audit: AuditLog | undefined;
  const operators: OperatorProcess[] = [];
  before(async () => {
    project = scaffoldOperator(undefined, controller);
    if (audited) {
      auditDir = mkdtempSync(join(tmpdir(), 'op-gen-faults-audit-'));
      audit = auditLog(auditDir, MANAGER_USER);
    }
    cp = await startControlPlane({ apiServerFlags: [...apiServerFlags, ...(audit?.flags ?? [])] });
    cluster = await Cluster.connect(cp, project.crd);
  });
  after(async () => {
    await Promise.all(operators.map((op) => op.stop(5_000)));
    cluster?.close();
    await cp?.stop();
    if (auditDir) rmSync(auditDir, { recursive: true, force: true });
    if (process.env.OP_GEN_KEEP_FAULTS) console.log(`# kept ${project.dir}`);
    else project?.remove();
  });
  return {
    projectDir: () => project.dir,
    audit: () => {
      if (!audit) throw new Error('this fault environment keeps no audit log');
      return audit;
    },
    env: () => ({
      cp,
      cluster,
      objects: N,
      start: async (name, namespace, leaderElect = false, more = {}) => {
        const op = await OperatorProcess.start(project, {
          name,
          namespace,
          kubeconfig: more.kubeconfig ?? cp.kubeconfigPath,
          leaderElect,
          ...(more.podNamespace ? { podNamespace: more.podNamespace } : {}),
          ...(more.extraArgs ? { extraArgs: more.extraArgs } : {}),
        });
        operators.push(op);
        return op;
      },
    }),
  };
}

describe('faults: the scaffolded operator against a real API server', { skip }, () => {
  const { env, projectDir, audit } = faultEnv([], true);

  it('API server killed hard (SIGKILL) under load: converges soon after it is back', async () => {
    report('api-server-restart', await apiServerRestart(env(), 'restart'));
  });

  it('conflict storm from a second client: converges, no hot loop', async () => {
    report('conflict-storm', await conflictStorm(env(), 'conflict'));
  });

  it('SIGTERM during load: exits 0 at once; a new operator converges what was left', async () => {
    report('sigterm-under-load', await sigtermUnderLoad(env(), 'sigterm'));
  });

  it('leader handoff with two replicas: SIGTERM hands over at once, SIGKILL after the lease expires; never two leaders', async () => {
    report('leader-handoff', await leaderHandoff(env(), 'leader'));
  });

  it('leader handoff with three replicas: SIGTERM, then SIGKILL of the new leader; never two leaders by /metrics, logs or Lease', async () => {
    report('three-replicas', await threeReplicaHandoff(env(), 'three'));
  });

  it('SIGTERM with the API server hung: exits 1 within its shutdown deadline, nothing half-applied', async () => {
    report('sigterm-api-hung', await sigtermApiServerHung(env(), 'hung'));
  });

  it('a run with faults under only the generated RBAC: zero 403s', async () => {
    report('generated-rbac', await underGeneratedRbac(env(), 'rbac', projectDir(), audit()));
  });

  it('failures a user must act on show in status and events; foreign Deployments are left alone', async () => {
    report('user-action-failures', await userActionFailures(env(), 'failures'));
  });
});

describe('faults: a watch gap (manager stopped, etcd compacted, no watch cache)', { skip }, () => {
  const { env } = faultEnv(['--watch-cache=false']);

  it('SIGSTOP while objects change and owned objects are deleted; SIGCONT converges', async () => {
    report('watch-gap', await watchGap(env(), 'gap'));
  });
});

describe(
  'faults: an operator on dependents (create api --dependents configmap,deployment,service)',
  { skip },
  () => {
    const { env } = faultEnv([], false, DEPENDENTS_CONTROLLER);

    it('API server killed hard (SIGKILL) under load: every child converges, then a pass writes nothing', async () => {
      report('dependents-api-server-restart', await dependentsApiServerRestart(env(), 'deps-restart'));
    });
  },
);

describe('faults: an operator on dependents through a watch gap (no watch cache)', { skip }, () => {
  const { env } = faultEnv(['--watch-cache=false'], false, DEPENDENTS_CONTROLLER);

  it('SIGSTOP while parents change and children are deleted by hand; SIGCONT: nothing lost, then a pass writes nothing', async () => {
    report('dependents-watch-gap', await dependentsWatchGap(env(), 'deps-gap'));
  });
});
