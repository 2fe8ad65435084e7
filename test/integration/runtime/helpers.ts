import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { Transport, type Kind, type ObjectLike } from '../../../src/client/index.ts';
import { installCrd } from '../../../src/testing/install-crd.ts';
import { createLogger, type Logger } from '../../../src/runtime/index.ts';

/** Polls `fn` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/** Installs a CRD file with op-gen/testing's raw-JSON installCrd (keeps `enum` and x-kubernetes-* keys). */
export async function installCrdFile(kc: KubeConfig, file: URL, served: Kind<ObjectLike>): Promise<void> {
  const transport = await Transport.fromKubeConfig(kc);
  try {
    await installCrd(transport, readFileSync(file, 'utf8'), served);
  } finally {
    transport.close();
  }
}

export async function createNamespace(kc: KubeConfig, name: string): Promise<void> {
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
}

/** A logger that keeps lines for assertions (and prints errors when OP_GEN_TEST_LOG is set). */
export function memoryLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: 'debug',
    write: (line) => {
      lines.push(JSON.parse(line) as Record<string, unknown>);
      if (process.env.OP_GEN_TEST_LOG) process.stderr.write(line);
    },
  });
  return { logger, lines };
}
