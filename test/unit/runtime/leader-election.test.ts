import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../src/client/api-error.ts';
import type { Transport, TransportRequest } from '../../../src/client/transport.ts';
import { LeaderElector } from '../../../src/runtime/leader-election.ts';
import { createLogger } from '../../../src/runtime/logger.ts';

const quiet = createLogger({ level: 'error', write: () => {} });

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  renewTime?: string;
  acquireTime?: string;
  leaseTransitions?: number;
}

/**
 * A narrow fake of the transport under the elector: one Lease behind GET/POST/PUT (with
 * resourceVersion checks) and watch streams that receive every change of it.
 */
class FakeLeaseServer {
  lease:
    { metadata: { name: string; namespace: string; resourceVersion: string }; spec: LeaseSpec } | undefined;
  private rv = 1;
  private readonly watchers = new Set<(line: string) => void>();
  watchesOpened = 0;

  readonly transport = {
    request: async <T>(req: TransportRequest): Promise<T> => {
      await Promise.resolve();
      if (req.method === 'GET') {
        if (!this.lease) throw new ApiError(404, 'GET', req.path, { reason: 'NotFound' });
        return structuredClone(this.lease) as T;
      }
      const body = req.body as NonNullable<FakeLeaseServer['lease']>;
      if (req.method === 'POST') {
        if (this.lease) throw new ApiError(409, 'POST', req.path, { reason: 'AlreadyExists' });
      } else if (req.method === 'PUT') {
        if (body.metadata.resourceVersion !== this.lease?.metadata.resourceVersion)
          throw new ApiError(409, 'PUT', req.path, { reason: 'Conflict' });
      }
      this.write(body.spec, body.metadata.name, body.metadata.namespace);
      return structuredClone(this.lease) as T;
    },
    stream: (req: TransportRequest, onLine: (line: string) => void, onOpen?: () => void): Promise<void> => {
      this.watchesOpened++;
      onOpen?.();
      if (this.lease) onLine(JSON.stringify({ type: 'ADDED', object: this.lease }));
      this.watchers.add(onLine);
      return new Promise((resolve) => {
        req.signal?.addEventListener(
          'abort',
          () => {
            this.watchers.delete(onLine);
            resolve();
          },
          { once: true },
        );
      });
    },
  };

  /** Another process writes the lease (e.g. the leader renews or releases it). */
  write(spec: LeaseSpec, name = 'op', namespace = 'default'): void {
    this.lease = { metadata: { name, namespace, resourceVersion: String(++this.rv) }, spec };
    const line = JSON.stringify({ type: 'MODIFIED', object: this.lease });
    for (const w of this.watchers) w(line);
  }
}

function elector(server: FakeLeaseServer, identity: string, retryPeriodMs: number): LeaderElector {
  return new LeaderElector(
    server.transport as unknown as Transport,
    { enabled: true, id: 'op', namespace: 'default', identity, retryPeriodMs },
    quiet,
  );
}

function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
    }),
  ]);
}

describe('LeaderElector standby', () => {
  it('takes over as soon as the leader releases the lease, not at its next retry', async () => {
    const server = new FakeLeaseServer();
    const now = new Date().toISOString();
    server.write({ holderIdentity: 'leader', leaseDurationSeconds: 15, renewTime: now, acquireTime: now });
    // A retry period far beyond the test's deadline: only the watch can wake the standby in time.
    const standby = elector(server, 'standby', 10 * 60_000);
    let acquired = false;
    const acquiring = standby.acquire().then((won) => (acquired = won));
    for (let i = 0; i < 50 && server.watchesOpened === 0; i++) await new Promise((r) => setImmediate(r));
    assert.equal(server.watchesOpened, 1, 'the standby watches the lease');
    assert.equal(acquired, false, 'the lease is held');

    // The leader renews: still held, the standby stays put.
    server.write({ holderIdentity: 'leader', leaseDurationSeconds: 15, renewTime: now, acquireTime: now });
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    assert.equal(acquired, false);

    // The leader releases on shutdown (holder emptied), as LeaderElector.release does.
    server.write({ holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now });
    assert.equal(await withDeadline(acquiring, 20_000, 'takeover after release'), true);
    assert.equal(server.lease?.spec.holderIdentity, 'standby');
    assert.equal(standby.isLeader, true);
    await standby.release();
    assert.equal(server.lease?.spec.holderIdentity, '');
  });

  it('stops watching when released before winning', async () => {
    const server = new FakeLeaseServer();
    const now = new Date().toISOString();
    server.write({ holderIdentity: 'leader', leaseDurationSeconds: 15, renewTime: now });
    const standby = elector(server, 'standby', 10 * 60_000);
    const acquiring = standby.acquire();
    for (let i = 0; i < 50 && server.watchesOpened === 0; i++) await new Promise((r) => setImmediate(r));
    await standby.release();
    assert.equal(await withDeadline(acquiring, 20_000, 'acquire after release'), false);
  });
});
