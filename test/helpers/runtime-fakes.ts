import { defineKind } from '../../src/client/kind.ts';
import type { ObjectLike } from '../../src/client/resource-client.ts';
import { createLogger } from '../../src/runtime/logger.ts';

/** A namespaced custom kind for runtime unit tests whose fakes stand in for the API server. */
export const Thing = defineKind<ObjectLike>({
  group: 'test.op-gen.dev',
  version: 'v1',
  kind: 'Thing',
  plural: 'things',
  namespaced: true,
});

/** A logger that drops everything below error, and errors too. */
export const quietLogger = createLogger({ level: 'error', write: () => {} });

/** Lets promise chains and setImmediate callbacks run: `turns` turns of the event loop, no real waiting. */
export async function settle(turns = 30): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((r) => setImmediate(r));
}
