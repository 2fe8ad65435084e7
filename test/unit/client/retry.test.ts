import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../src/client/api-error.ts';
import { defineKind } from '../../../src/client/kind.ts';
import { ResourceClient, type ObjectLike } from '../../../src/client/resource-client.ts';
import { isIdempotent, withRetries } from '../../../src/client/retry.ts';
import { retryAfter } from '../../../src/client/transport.ts';
import { FakeClock } from '../../../src/shared/clock.ts';
import { FakeApiServer, statusError, type FakeRequest } from '../../../src/testing/fake-api-server.ts';

/**
 * The transport's retries, on the fake API server and the fake clock: 429 is retried for every
 * request, 5xx only for idempotent ones, Retry-After is honoured, and the budget of tries and time
 * is bounded.
 */
const Thing = defineKind<ObjectLike & { spec?: Record<string, unknown> }>({
  group: 'test.op-gen.dev',
  version: 'v1',
  kind: 'Thing',
  plural: 'things',
  namespaced: true,
});

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((r) => setImmediate(r));
}

/** Fails the first `times` requests `match` picks with `error()`. */
function failing(
  server: FakeApiServer,
  times: number,
  error: () => Error,
  match: (r: FakeRequest) => boolean,
) {
  let left = times;
  server.fault((r) => (match(r) && left-- > 0 ? error() : undefined));
}

function setup(options: { budgetMs?: number; maxRetries?: number } = {}) {
  const clock = new FakeClock();
  const server = new FakeApiServer({ clock }).register(Thing);
  const delays: number[] = [];
  const transport = withRetries(server.transport(), {
    clock,
    ...options,
    onRetry: (_req, _err, ms) => delays.push(ms),
  });
  const client = new ResourceClient(transport, Thing);
  return { clock, server, client, delays };
}

/** Runs `p` while stepping the clock to each timer the retries set. */
async function drive<T>(clock: FakeClock, p: Promise<T>): Promise<T> {
  let done = false;
  const result = p.finally(() => (done = true));
  result.catch(() => undefined);
  for (let i = 0; i < 100 && !done; i++) {
    await settle();
    if (clock.waiting > 0) clock.step(60_000);
  }
  return result;
}

describe('withRetries', () => {
  it('retries a 429 after the Retry-After the server asks for, even for a create', async () => {
    const { clock, server, client, delays } = setup();
    failing(
      server,
      2,
      () => statusError(429, 'TooManyRequests', 'slow down', { retryAfterSeconds: 3 }),
      (r) => r.method === 'POST',
    );
    const created = await drive(clock, client.create({ metadata: { name: 'a', namespace: 'ns' } }));
    assert.equal(created.metadata?.name, 'a');
    assert.deepEqual(delays, [3_000, 3_000]);
    assert.equal(server.requests.filter((r) => r.method === 'POST').length, 3);
  });

  it('retries 5xx for a GET with exponential backoff, and not for a create', async () => {
    const { clock, server, client, delays } = setup();
    await client.create({ metadata: { name: 'a', namespace: 'ns' } });
    failing(
      server,
      3,
      () => statusError(503, 'ServiceUnavailable'),
      (r) => r.method === 'GET',
    );
    await drive(clock, client.get({ namespace: 'ns', name: 'a' }));
    assert.deepEqual(delays, [250, 500, 1_000]);
    failing(
      server,
      1,
      () => statusError(500, 'InternalError'),
      (r) => r.method === 'POST',
    );
    await assert.rejects(
      drive(clock, client.create({ metadata: { name: 'b', namespace: 'ns' } })),
      (err: unknown) => err instanceof ApiError && err.statusCode === 500,
    );
    assert.equal(delays.length, 3, 'the create was not retried');
  });

  it('gives up when Retry-After exceeds the time budget, or after maxRetries', async () => {
    const slow = setup({ budgetMs: 10_000 });
    failing(
      slow.server,
      1,
      () => statusError(429, 'TooManyRequests', 'later', { retryAfterSeconds: 60 }),
      () => true,
    );
    await assert.rejects(
      drive(slow.clock, slow.client.list()),
      (err: unknown) => err instanceof ApiError && err.statusCode === 429,
    );
    assert.deepEqual(slow.delays, []);

    const few = setup({ maxRetries: 2 });
    failing(
      few.server,
      5,
      () => statusError(503, 'ServiceUnavailable'),
      () => true,
    );
    await assert.rejects(
      drive(few.clock, few.client.list()),
      (err: unknown) => err instanceof ApiError && err.statusCode === 503,
    );
    assert.equal(few.server.requests.length, 3, 'the first try and two retries');
  });

  it('does not retry answers that will not change (404, 409, 422)', async () => {
    const { clock, client, delays } = setup();
    await assert.rejects(drive(clock, client.get({ namespace: 'ns', name: 'missing' })), /NotFound/);
    assert.deepEqual(delays, []);
  });

  it('idempotent: GET, PUT with resourceVersion, apply and merge patches; not POST, JSON patch, DELETE', () => {
    const put = (rv?: string) => ({
      method: 'PUT' as const,
      path: '/x',
      body: { metadata: rv ? { resourceVersion: rv } : {} },
    });
    const patch = (contentType: string) => ({ method: 'PATCH' as const, path: '/x', contentType });
    assert.equal(isIdempotent({ method: 'GET', path: '/x' }), true);
    assert.equal(isIdempotent(put('5')), true);
    assert.equal(isIdempotent(put()), false);
    assert.equal(isIdempotent(patch('application/apply-patch+yaml')), true);
    assert.equal(isIdempotent(patch('application/merge-patch+json')), true);
    assert.equal(isIdempotent(patch('application/json-patch+json')), false);
    assert.equal(isIdempotent(patch('application/strategic-merge-patch+json')), false);
    assert.equal(isIdempotent({ method: 'POST', path: '/x' }), false);
    assert.equal(isIdempotent({ method: 'DELETE', path: '/x' }), false);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(retryAfter({ headers: { 'retry-after': '7' } }, now), 7);
    assert.equal(retryAfter({ headers: { 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' } }, now), 5);
    assert.equal(retryAfter({ headers: {} }, now), undefined);
    assert.equal(retryAfter({ headers: { 'retry-after': 'soon' } }, now), undefined);
  });
});
