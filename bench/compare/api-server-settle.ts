/**
 * Waits until a fresh API server has finished the work a new CRD sets off, so that work does not land in
 * a measured phase. Measured (load generator alone, no operator, 2,000 BenchApps): started 1.5 s after
 * the CRD was served, creating them took 2.4-2.7 s or 4.5-5.1 s (3 of 8 runs slow); with this wait and
 * its default 5 s settle, 2.3-3.3 s (5 runs). The server publishes the CRD's OpenAPI in the background
 * once it is served; this waits until /openapi/v3 lists the group version, then a settle period for
 * what follows it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import { Transport } from '../../src/client/index.ts';

export async function waitForApiServerSettled(
  kc: KubeConfig,
  groupVersion: string,
  settleMs = Number(process.env.OP_GEN_BENCH_SETTLE_MS ?? 5000),
  timeoutMs = 60_000,
): Promise<void> {
  const started = performance.now();
  const transport = await Transport.fromKubeConfig(kc);
  try {
    for (;;) {
      const discovery = await transport.request<{ paths?: Record<string, unknown> }>({
        method: 'GET',
        path: '/openapi/v3',
      });
      if (discovery.paths && `apis/${groupVersion}` in discovery.paths) break;
      if (performance.now() - started > timeoutMs) {
        throw new Error(`/openapi/v3 did not list apis/${groupVersion} within ${timeoutMs} ms`);
      }
      await sleep(100);
    }
  } finally {
    transport.close();
  }
  await sleep(settleMs);
}
