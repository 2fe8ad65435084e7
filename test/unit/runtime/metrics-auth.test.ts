import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, type TransportRequest } from '../../../src/client/index.ts';
import { FakeClock } from '../../../src/runtime/clock.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import {
  bearerToken,
  ExpiringLru,
  MetricsAuthenticator,
  METRICS_AUTH_DEFAULTS,
  type MetricsAuthOptions,
} from '../../../src/runtime/metrics-auth.ts';

const TOKEN_REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews';
const ACCESS_REVIEWS = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

interface Review {
  spec: {
    token?: string;
    user?: string;
    uid?: string;
    groups?: string[];
    extra?: Record<string, string[]>;
    nonResourceAttributes?: { path: string; verb: string };
  };
}

/**
 * A fake API server for the two reviews: `users` maps tokens to users, `allowed` lists the users
 * that may get /metrics; `fail` makes the next answers errors.
 */
function fakeApi() {
  const calls: { path: string; body: Review }[] = [];
  const state = {
    users: new Map<
      string,
      { username: string; uid: string; groups: string[]; extra?: Record<string, string[]> }
    >(),
    allowed: new Set<string>(),
    fail: [] as unknown[],
  };
  const transport = {
    request: async <T>(req: TransportRequest): Promise<T> => {
      const body = req.body as Review;
      calls.push({ path: req.path, body });
      const failure = state.fail.shift();
      if (failure) throw failure;
      if (req.path === TOKEN_REVIEWS) {
        const user = state.users.get(body.spec.token ?? '');
        return {
          status: user
            ? { authenticated: true, user }
            : { authenticated: false, error: 'invalid bearer token' },
        } as T;
      }
      assert.equal(req.path, ACCESS_REVIEWS);
      const a = body.spec.nonResourceAttributes;
      const allowed = state.allowed.has(body.spec.user ?? '') && a?.path === '/metrics' && a.verb === 'get';
      return { status: allowed ? { allowed: true, reason: 'RBAC: allowed' } : { allowed: false } } as T;
    },
  };
  state.users.set('good-token', {
    username: 'system:serviceaccount:monitoring:prometheus',
    uid: 'u-1',
    groups: ['system:serviceaccounts', 'system:authenticated'],
    extra: { 'authentication.kubernetes.io/pod-name': ['prometheus-0'] },
  });
  state.users.set('other-token', {
    username: 'system:serviceaccount:default:stranger',
    uid: 'u-2',
    groups: [],
  });
  state.allowed.add('system:serviceaccount:monitoring:prometheus');
  const count = (path: string) => calls.filter((c) => c.path === path).length;
  return { transport, calls, state, count };
}

function setup(options: MetricsAuthOptions = {}) {
  const api = fakeApi();
  const clock = new FakeClock(1_000_000);
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', write: (l) => lines.push(l) });
  const auth = new MetricsAuthenticator(api.transport, { clock, logger, ...options });
  const get = (token?: string, path = '/metrics', method = 'GET') =>
    auth.decide({ method, path, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  return { api, clock, lines, auth, get };
}

/** Lets pending promise callbacks run, stepping the fake clock by `stepMs` each round, until `p` settles. */
async function settle<T>(p: Promise<T>, clock: FakeClock, stepMs: number): Promise<T> {
  let done = false;
  void p.finally(() => (done = true)).catch(() => {});
  for (let i = 0; i < 100 && !done; i++) {
    await new Promise((r) => setImmediate(r));
    if (!done) clock.step(stepMs);
  }
  return p;
}

describe('bearerToken', () => {
  it('reads `Bearer <token>` as the API server does (scheme case-insensitive, trimmed)', () => {
    assert.equal(bearerToken('Bearer abc'), 'abc');
    assert.equal(bearerToken('  bearer abc  '), 'abc');
    assert.equal(bearerToken(['Bearer abc']), 'abc');
    assert.equal(bearerToken(undefined), undefined);
    assert.equal(bearerToken(''), undefined);
    assert.equal(bearerToken('Bearer'), undefined);
    assert.equal(bearerToken('Bearer '), undefined);
    assert.equal(bearerToken('Basic dXNlcjpwYXNz'), undefined);
  });
});

describe('ExpiringLru', () => {
  it('forgets an entry at its TTL', () => {
    const clock = new FakeClock();
    const c = new ExpiringLru<string>(10, clock);
    c.set('a', 'x', 1000);
    clock.step(999);
    assert.equal(c.get('a'), 'x');
    clock.step(1);
    assert.equal(c.get('a'), undefined);
    assert.equal(c.size, 0);
  });

  it('holds at most `max` entries, dropping the least recently used', () => {
    const clock = new FakeClock();
    const c = new ExpiringLru<number>(2, clock);
    c.set('a', 1, 1000);
    c.set('b', 2, 1000);
    assert.equal(c.get('a'), 1); // a is now the most recently used
    c.set('c', 3, 1000);
    assert.equal(c.size, 2);
    assert.equal(c.get('b'), undefined);
    assert.equal(c.get('a'), 1);
    assert.equal(c.get('c'), 3);
  });
});

describe('MetricsAuthenticator', () => {
  it('answers 401 without a bearer token, asking the API nothing', async () => {
    const { get, api, auth } = setup();
    assert.deepEqual(await get(), { status: 401 });
    assert.deepEqual(
      await auth.decide({ method: 'GET', path: '/metrics', headers: { authorization: 'Basic eDp5' } }),
      {
        status: 401,
      },
    );
    assert.equal(api.calls.length, 0);
  });

  it('answers 401 for a token the TokenReview does not authenticate, and asks no SubjectAccessReview', async () => {
    const { get, api } = setup();
    assert.deepEqual(await get('forged'), { status: 401 });
    assert.equal(api.count(TOKEN_REVIEWS), 1);
    assert.equal(api.count(ACCESS_REVIEWS), 0);
    assert.deepEqual(api.calls[0]?.body.spec, { token: 'forged' });
  });

  it('allows an authorized user, passing user, uid, groups, extra, path and lowercased verb to the SubjectAccessReview', async () => {
    const { get, api } = setup();
    assert.deepEqual(await get('good-token'), {
      status: 200,
      user: 'system:serviceaccount:monitoring:prometheus',
    });
    const sar = api.calls.find((c) => c.path === ACCESS_REVIEWS);
    assert.deepEqual(sar?.body, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'system:serviceaccount:monitoring:prometheus',
        uid: 'u-1',
        groups: ['system:serviceaccounts', 'system:authenticated'],
        extra: { 'authentication.kubernetes.io/pod-name': ['prometheus-0'] },
        nonResourceAttributes: { path: '/metrics', verb: 'get' },
      },
    });
  });

  it('answers 403 for an authenticated user RBAC does not allow', async () => {
    const { get } = setup();
    const d = await get('other-token');
    assert.equal(d.status, 403);
    assert.equal('user' in d && d.user, 'system:serviceaccount:default:stranger');
    const head = await get('good-token', '/metrics', 'HEAD');
    assert.equal(head.status, 403, 'verb head is not get');
  });

  it('reuses an allowed decision: TokenReview for 60 s, SubjectAccessReview for 5 min', async () => {
    const { get, api, clock } = setup();
    await get('good-token');
    assert.deepEqual([api.count(TOKEN_REVIEWS), api.count(ACCESS_REVIEWS)], [1, 1]);
    clock.step(59_999);
    assert.equal((await get('good-token')).status, 200);
    assert.deepEqual([api.count(TOKEN_REVIEWS), api.count(ACCESS_REVIEWS)], [1, 1], 'both cached');
    clock.step(1);
    assert.equal((await get('good-token')).status, 200);
    assert.deepEqual([api.count(TOKEN_REVIEWS), api.count(ACCESS_REVIEWS)], [2, 1], 'token reviewed again');
    clock.step(5 * 60_000 - 60_000 - 1);
    await get('good-token');
    assert.equal(api.count(ACCESS_REVIEWS), 1, 'access still cached just before 5 min');
    clock.step(1);
    await get('good-token');
    assert.equal(api.count(ACCESS_REVIEWS), 2, 'access reviewed again at 5 min');
  });

  it('reuses a denial for 30 s only, so a new RoleBinding takes effect soon', async () => {
    const { get, api, clock } = setup();
    assert.equal((await get('other-token')).status, 403);
    api.state.allowed.add('system:serviceaccount:default:stranger');
    clock.step(29_999);
    assert.equal((await get('other-token')).status, 403, 'denial cached');
    assert.equal(api.count(ACCESS_REVIEWS), 1);
    clock.step(1);
    assert.equal((await get('other-token')).status, 200);
    assert.equal(api.count(ACCESS_REVIEWS), 2);
  });

  it('reuses an unauthenticated answer for 60 s', async () => {
    const { get, api, clock } = setup();
    await get('forged');
    clock.step(59_999);
    await get('forged');
    assert.equal(api.count(TOKEN_REVIEWS), 1);
    clock.step(1);
    await get('forged');
    assert.equal(api.count(TOKEN_REVIEWS), 2);
  });

  it("takes its TTLs from the options, and the defaults are controller-runtime's", async () => {
    assert.deepEqual(
      [
        METRICS_AUTH_DEFAULTS.authenticationTtlMs,
        METRICS_AUTH_DEFAULTS.allowTtlMs,
        METRICS_AUTH_DEFAULTS.denyTtlMs,
      ],
      [60_000, 300_000, 30_000],
    );
    const { get, api, clock } = setup({ authenticationTtlMs: 1000, allowTtlMs: 2000 });
    await get('good-token');
    clock.step(1000);
    await get('good-token');
    assert.deepEqual([api.count(TOKEN_REVIEWS), api.count(ACCESS_REVIEWS)], [2, 1]);
    clock.step(1000);
    await get('good-token');
    assert.deepEqual([api.count(TOKEN_REVIEWS), api.count(ACCESS_REVIEWS)], [3, 2]);
  });

  it('keeps decisions per token and per path', async () => {
    const { get, api } = setup();
    api.state.users.set('second-token', api.state.users.get('good-token')!);
    await get('good-token');
    await get('second-token');
    await get('good-token', '/metrics/extra');
    assert.deepEqual([api.count(TOKEN_REVIEWS), api.count(ACCESS_REVIEWS)], [2, 3]);
  });

  it('bounds both caches by maxEntries', async () => {
    const { get, api, auth } = setup({ maxEntries: 3 });
    for (let i = 0; i < 10; i++) {
      api.state.users.set(`t${i}`, { username: `u${i}`, uid: `${i}`, groups: [] });
      await get(`t${i}`);
    }
    assert.deepEqual(auth.cacheSizes, [3, 3]);
  });

  it('shares one review between concurrent requests with the same token', async () => {
    const { get, api } = setup();
    const all = await Promise.all([get('good-token'), get('good-token'), get('good-token')]);
    assert.deepEqual(
      all.map((d) => d.status),
      [200, 200, 200],
    );
    assert.deepEqual([api.count(TOKEN_REVIEWS), api.count(ACCESS_REVIEWS)], [1, 1]);
  });

  it('answers 500 when the manager may not create reviews, logs why, and caches nothing', async () => {
    const { get, api, lines } = setup();
    api.state.fail.push(new ApiError(403, 'POST', TOKEN_REVIEWS, { message: 'tokenreviews is forbidden' }));
    assert.deepEqual(await get('good-token'), { status: 500, message: 'Authentication failed' });
    const error = lines
      .map((l) => JSON.parse(l) as { level: string; error?: string })
      .find((l) => l.level === 'error');
    assert.match(error?.error ?? '', /tokenreviews is forbidden.*metrics_auth_role\.yaml/);
    assert.equal((await get('good-token')).status, 200, 'the failure was not cached');
    api.state.fail.push(
      new ApiError(403, 'POST', ACCESS_REVIEWS, { message: 'subjectaccessreviews is forbidden' }),
    );
    assert.equal((await get('good-token', '/metrics', 'POST')).status, 500);
  });

  it('retries a review that failed with 503 or a network error, with backoff from 500 ms', async () => {
    const { get, api, clock } = setup();
    api.state.fail.push(new ApiError(503, 'POST', TOKEN_REVIEWS, {}), new Error('socket hang up'));
    const started = clock.now();
    assert.equal((await settle(get('good-token'), clock, 250)).status, 200);
    assert.equal(api.count(TOKEN_REVIEWS), 3);
    assert.ok(clock.now() - started >= 500 + 750, `waited ${clock.now() - started} ms`);
  });

  it('gives up after `attempts` and answers 500', async () => {
    const { get, api, clock } = setup({ attempts: 2 });
    api.state.fail.push(new Error('connect ECONNREFUSED'), new Error('connect ECONNREFUSED'));
    assert.equal((await settle(get('good-token'), clock, 500)).status, 500);
    assert.equal(api.count(TOKEN_REVIEWS), 2);
  });

  it('never writes a token to the log', async () => {
    const { get, api, lines, clock } = setup({ attempts: 2 });
    await get('good-token');
    await get('other-token');
    await get('forged');
    api.state.fail.push(new ApiError(500, 'POST', TOKEN_REVIEWS, { message: 'etcd down' }));
    api.state.fail.push(new ApiError(500, 'POST', TOKEN_REVIEWS, { message: 'etcd down' }));
    assert.equal((await settle(get('fresh-token'), clock, 500)).status, 500);
    assert.ok(lines.length > 0);
    for (const token of ['good-token', 'other-token', 'forged', 'fresh-token'])
      assert.ok(!lines.some((l) => l.includes(token)), `${token} appears in the log`);
  });

  it('as a filter: lets an allowed request through and answers the others with a text body', async () => {
    const { auth } = setup();
    const filter = auth.filter();
    const req = (authorization?: string) => ({
      method: 'GET',
      path: '/metrics',
      headers: authorization ? { authorization } : {},
    });
    assert.equal(await filter(req('Bearer good-token')), undefined);
    assert.deepEqual(await filter(req()), {
      status: 401,
      body: 'Unauthorized\n',
      contentType: 'text/plain; charset=utf-8',
    });
    assert.deepEqual(await filter(req('Bearer other-token')), {
      status: 403,
      body: 'Authorization denied for user system:serviceaccount:default:stranger\n',
      contentType: 'text/plain; charset=utf-8',
    });
  });
});
