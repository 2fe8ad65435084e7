/**
 * `npm run test:faults`: the scaffolded Memcached operator as a separate process against a real
 * kube-apiserver + etcd, through the faults an operator meets in production (scenarios.ts). Each
 * fault ends with the same check (cluster.ts): every Memcached Ready with observedGeneration ==
 * generation, its Deployment controlled by it with the spec's replicas and image, deleted ones gone;
 * the operator did not crash, leaders never overlapped. Figures are printed as `# fault: ...` lines
 * (and appended as JSON lines to $OP_GEN_FAULTS_REPORT when set). Size: OP_GEN_FAULTS_OBJECTS
 * (default 150).
 */
import { appendFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../src/testing/index.ts';
import { Cluster } from './cluster.ts';
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

/** A control plane, the scaffolded project and the operators started on it; stopped in after(). */
function faultEnv(apiServerFlags: readonly string[] = []): { env: () => FaultEnv } {
  let cp: ControlPlane;
  let project: ScaffoldedProject;
  let cluster: Cluster;
  const operators: OperatorProcess[] = [];
  before(async () => {
    project = scaffoldOperator();
    cp = await startControlPlane({ apiServerFlags });
    cluster = await Cluster.connect(cp, project.crd);
  });
  after(async () => {
    await Promise.all(operators.map((op) => op.stop(5_000)));
    cluster?.close();
    await cp?.stop();
    if (process.env.OP_GEN_KEEP_FAULTS) console.log(`# kept ${project.dir}`);
    else project?.remove();
  });
  return {
    env: () => ({
      cp,
      cluster,
      objects: N,
      start: async (name, namespace, leaderElect = false) => {
        const op = await OperatorProcess.start(project, {
          name,
          namespace,
          kubeconfig: cp.kubeconfigPath,
          leaderElect,
        });
        operators.push(op);
        return op;
      },
    }),
  };
}

describe('faults: the scaffolded operator against a real API server', { skip }, () => {
  const { env } = faultEnv();

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
