import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { Manager, createLogger, type ManagerOptions } from '../../../src/runtime/index.ts';
import { eventually } from './cluster.ts';

/**
 * Runs an operator (`setup` wires its controllers) as the ServiceAccount of `sa`, creates the
 * Memcached `name` in `namespace` as `admin`, and polls `until` (given the 403s the operator got so
 * far) until it gives a value. Returns that value and the 403s (the list the run kept adding to until
 * the manager stopped). A timeout names the 403s and the manager's last log lines. The manager is
 * stopped in every case; a manager crash fails the caller.
 */
export async function runMemcachedOperator<T>(options: {
  readonly sa: KubeConfig;
  readonly admin: KubeConfig;
  readonly namespace: string;
  readonly name: string;
  readonly leaderElection: ManagerOptions['leaderElection'];
  readonly setup: (mgr: Manager) => void;
  readonly until: (forbidden: string[]) => Promise<T | undefined | false>;
  readonly timeoutMs?: number;
}): Promise<{ value: T; forbidden: readonly string[] }> {
  const { name, namespace } = options;
  const forbidden: string[] = [];
  const log: string[] = [];
  const mgr = await Manager.create({
    kubeConfig: options.sa,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    handleSignals: false,
    ...(options.leaderElection ? { leaderElection: options.leaderElection } : {}),
    logger: createLogger({ level: 'error', write: (line) => log.push(line) }),
    gracefulShutdownTimeoutMs: 2_000,
    onResponse: (method, path, status) => {
      if (status === 403) forbidden.push(`${method} ${path.split('?')[0]}`);
    },
  });
  options.setup(mgr);
  const running = mgr.start();
  try {
    await mgr.ready;
    await options.admin.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: 'cache.example.com',
      version: 'v1alpha1',
      namespace,
      plural: 'memcacheds',
      body: {
        apiVersion: 'cache.example.com/v1alpha1',
        kind: 'Memcached',
        metadata: { name },
        spec: { image: 'memcached:1.6', size: 2 },
      },
    });
    try {
      const value = await eventually(
        `operator run ${name}`,
        () => options.until(forbidden),
        options.timeoutMs,
      );
      return { value, forbidden };
    } catch (err) {
      throw new Error(
        `${(err as Error).message}; 403s: ${JSON.stringify(forbidden)}; manager log:\n${log.slice(-10).join('')}`,
        { cause: err },
      );
    }
  } finally {
    await mgr.stop();
    // start() resolves once stopped; a rejection is a manager crash and fails the test.
    await running;
  }
}
