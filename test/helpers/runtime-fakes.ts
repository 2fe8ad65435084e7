import { defineKind } from '../../src/client/kind.ts';
import type {
  ListOptions,
  ObjectLike,
  ObjectList,
  WatchEvent,
  WatchOptions,
} from '../../src/client/resource-client.ts';
import type { ListWatcher } from '../../src/runtime/watcher.ts';
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

/** One watch request the informer made: the test feeds it events, then ends or fails it. */
export interface WatchSession {
  readonly options: WatchOptions;
  emit(event: WatchEvent<ObjectLike>): void;
  end(): void;
  fail(err: Error): void;
}

/**
 * A narrow fake of the list/watch seam: lists answer from `items` (or fail while `down`), watches
 * become sessions the test drives; a watch opened while `down` fails at once as a refused connection.
 */
export class FakeListWatcher implements ListWatcher<ObjectLike> {
  readonly kind = Thing;
  items: ObjectLike[] = [];
  listRv = '10';
  down = false;
  readonly sessions: WatchSession[] = [];
  /** The options of every list, in order. */
  readonly lists: (Omit<ListOptions, 'continue'> | undefined)[] = [];
  private readonly waiters: ((s: WatchSession) => void)[] = [];

  async listAll(options?: Omit<ListOptions, 'continue'>): Promise<ObjectList<ObjectLike>> {
    this.lists.push(options);
    await Promise.resolve();
    if (this.down) throw refused();
    return { metadata: { resourceVersion: this.listRv }, items: this.items.map((i) => structuredClone(i)) };
  }

  watch(options: WatchOptions, onEvent: (event: WatchEvent<ObjectLike>) => void): Promise<void> {
    if (this.down) return Promise.reject(refused());
    return new Promise((resolve, reject) => {
      options.onOpen?.();
      const session: WatchSession = {
        options,
        emit: (event) => {
          try {
            onEvent(event);
          } catch (err) {
            reject(err as Error);
          }
        },
        end: () => resolve(),
        fail: (err) => reject(err),
      };
      options.signal?.addEventListener('abort', () => resolve(), { once: true });
      this.sessions.push(session);
      this.waiters.shift()?.(session);
    });
  }

  /** The next watch session (already open, or the next one the informer opens). */
  nextSession(after: number): Promise<WatchSession> {
    const existing = this.sessions[after];
    if (existing) return Promise.resolve(existing);
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

export function refused(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
}
