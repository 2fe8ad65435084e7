import { Watch, type KubeConfig } from '@kubernetes/client-node';
import { Transport } from '../../src/client/index.ts';

export const BENCH_GROUP = 'bench.op-gen.dev';
export const BENCH_VERSION = 'v1';
export const BENCH_PLURAL = 'benchapps';

interface BenchAppObject {
  metadata?: { name?: string };
  status?: { conditions?: { type: string; status: string }[] };
}

function isReady(obj: BenchAppObject): boolean {
  return obj.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/**
 * Watches the namespace and resolves with the time (performance.now()) when `count` distinct BenchApps
 * have reported Ready. Starts watching before anything is created so no event is missed.
 */
export async function watchAllReady(
  kc: KubeConfig,
  namespace: string,
  count: number,
  timeoutMs: number,
): Promise<{ done: Promise<number>; abort: () => void }> {
  const ready = new Set<string>();
  let resolveDone: (t: number) => void = () => {};
  let rejectDone: (e: Error) => void = () => {};
  const done = new Promise<number>((res, rej) => {
    resolveDone = res;
    rejectDone = rej;
  });
  const timer = setTimeout(
    () => rejectDone(new Error(`only ${ready.size}/${count} Ready after ${timeoutMs} ms`)),
    timeoutMs,
  );
  const watch = new Watch(kc);
  let stopped = false;
  let current: AbortController | undefined;
  const start = (): Promise<AbortController> =>
    watch.watch(
      `/apis/${BENCH_GROUP}/${BENCH_VERSION}/namespaces/${namespace}/${BENCH_PLURAL}`,
      { allowWatchBookmarks: false },
      (_type: string, obj: BenchAppObject) => {
        const name = obj.metadata?.name;
        if (name && isReady(obj) && !ready.has(name)) {
          ready.add(name);
          if (ready.size === count) {
            clearTimeout(timer);
            resolveDone(performance.now());
          }
        }
      },
      // The watch ended: with an error, or closed by a busy API server (its watch cache drops a
      // watcher that reads too slowly, with no error: 7 of 2,000 seen, the rest missed). Watch again:
      // a new watch starts with every object as it is now, so nothing is missed.
      () => {
        if (stopped || ready.size >= count) return;
        void establish().catch((err: unknown) =>
          rejectDone(err instanceof Error ? err : new Error(String(err))),
        );
      },
    );
  // A busy API server may answer 429 (priority and fairness) to a new watch: retry with backoff.
  const establish = async (): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      try {
        current = await start();
        if (stopped) current.abort();
        return;
      } catch (err) {
        if (attempt >= 20 || (err as { statusCode?: number }).statusCode !== 429) throw err;
        await new Promise((r) => setTimeout(r, 250 * (attempt + 1)));
      }
    }
  };
  await establish();
  return {
    done,
    abort: () => {
      stopped = true;
      clearTimeout(timer);
      current?.abort();
    },
  };
}

/** Creates `count` BenchApps with at most `concurrency` requests in flight; returns when all are created. */
export async function createBenchApps(
  kc: KubeConfig,
  namespace: string,
  count: number,
  concurrency: number,
  /** Index of the first name (app-<first>), to add objects to those already created. */
  first = 0,
): Promise<void> {
  // One keep-alive connection per request in flight: @kubernetes/client-node (used before 2026-11-25)
  // opened a TLS connection per create, and the load generator's own CPU, competing with the operator
  // and the API server for the machine's two cores, was most of the phase.
  const transport = await Transport.fromKubeConfig(kc, { maxSockets: concurrency, userAgent: 'bench-load' });
  const path = `/apis/${BENCH_GROUP}/${BENCH_VERSION}/namespaces/${namespace}/${BENCH_PLURAL}`;
  let next = first;
  const worker = async (): Promise<void> => {
    while (next < first + count) {
      const i = next++;
      await transport.request({
        method: 'POST',
        path,
        body: {
          apiVersion: `${BENCH_GROUP}/${BENCH_VERSION}`,
          kind: 'BenchApp',
          metadata: { name: `app-${String(i).padStart(5, '0')}` },
          spec: { image: 'registry.example/app:1.0', replicas: 1 },
        },
      });
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    transport.close();
  }
}
