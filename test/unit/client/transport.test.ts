import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { CredentialSource, Credentials } from '../../../src/client/credentials.ts';
import { Transport } from '../../../src/client/transport.ts';

/**
 * Requests go through op-gen's HTTP/1.1 client (http1-pool.ts, the default) or Node's http
 * (`httpClient: 'node'`, OP_GEN_HTTP_CLIENT=node): every test below runs on both.
 */
const HTTP_CLIENTS = ['op-gen', 'node'] as const;

/** Which client sent a request: Node's http announces keep-alive, op-gen's client sends no Connection header. */
function clientOf(req: IncomingMessage): 'op-gen' | 'node' {
  return req.headers.connection === 'keep-alive' ? 'node' : 'op-gen';
}

for (const httpClient of HTTP_CLIENTS) {
  /**
   * The transport's credentials and timeouts against a local HTTP server: bearer tokens are re-resolved
   * once they are older than the source's refreshMs (rotating service-account tokens, exec plugins),
   * concurrent requests share one refresh, a failed refresh fails the request and is retried by the
   * next one, and a request the server never answers fails after timeoutMs.
   */
  describe(`Transport (${httpClient} client): credential refresh, token rotation and request timeout`, () => {
    let server: Server;
    let base: string;
    const seen: string[] = [];
    const clients: string[] = [];
    const hanging: ServerResponse[] = [];

    before(async () => {
      server = createServer((req: IncomingMessage, res: ServerResponse) => {
        if (req.url === '/hang') {
          hanging.push(res);
          return;
        }
        seen.push(String(req.headers.authorization));
        clients.push(clientOf(req));
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ kind: 'Status', path: req.url }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    /** A source whose token number goes up on every resolve; refreshMs can be changed by the test. */
    function rotatingSource(): CredentialSource & { resolves: number; refresh: number; fail: boolean } {
      const source = {
        resolves: 0,
        refresh: 60_000,
        fail: false,
        get refreshMs(): number {
          return source.refresh;
        },
        async resolve(): Promise<Credentials> {
          await sleep(5);
          if (source.fail) throw new Error('exec plugin failed');
          source.resolves++;
          return { server: base, tls: {}, headers: { authorization: `Bearer token-${source.resolves}` } };
        },
      };
      return source;
    }

    it(`sends requests through the ${httpClient} client`, async () => {
      const t = await Transport.fromSource(rotatingSource(), { httpClient });
      clients.length = 0;
      await t.request({ method: 'GET', path: '/which' });
      await t.request({ method: 'POST', path: '/which', body: {} });
      assert.deepEqual(clients, [httpClient, httpClient]);
      t.close();
    });

    it('keeps a token while it is fresh, then sends the rotated one', async () => {
      const source = rotatingSource();
      const t = await Transport.fromSource(source, { httpClient });
      seen.length = 0;
      for (let i = 0; i < 3; i++) await t.request({ method: 'GET', path: `/fresh/${i}` });
      assert.equal(source.resolves, 1, 'no refresh while the token is fresh');
      source.refresh = -1; // every token is now stale
      await t.request({ method: 'GET', path: '/rotated' });
      assert.deepEqual(seen, ['Bearer token-1', 'Bearer token-1', 'Bearer token-1', 'Bearer token-2']);
      t.close();
    });

    it('concurrent requests with a stale token share one refresh', async () => {
      const source = rotatingSource();
      const t = await Transport.fromSource(source, { httpClient });
      source.refresh = -1;
      seen.length = 0;
      await Promise.all([1, 2, 3, 4, 5].map((i) => t.request({ method: 'GET', path: `/c/${i}` })));
      assert.equal(source.resolves, 2, 'the initial resolve and one shared refresh');
      assert.deepEqual(seen, Array(5).fill('Bearer token-2'));
      t.close();
    });

    it('a failed refresh fails the request with its cause; the next request tries again', async () => {
      const source = rotatingSource();
      const t = await Transport.fromSource(source, { httpClient });
      source.refresh = -1;
      source.fail = true;
      await assert.rejects(t.request({ method: 'GET', path: '/x' }), /exec plugin failed/);
      source.fail = false;
      seen.length = 0;
      await t.request({ method: 'GET', path: '/y' });
      assert.deepEqual(seen, ['Bearer token-2']);
      t.close();
    });

    it('a request the server never answers fails after timeoutMs, naming the request', async () => {
      const t = await Transport.fromSource(rotatingSource(), { httpClient, timeoutMs: 50 });
      await assert.rejects(
        t.request({ method: 'GET', path: '/hang' }),
        /^Error: GET \/hang: timed out after 50 ms$/,
      );
      const answered = await t.request<{ path: string }>({ method: 'GET', path: '/after' });
      assert.equal(answered.path, '/after', 'the transport still works after a timeout');
      t.close();
    });
  });

  /**
   * How the transport reads an answer: a body in many chunks arrives whole; an answer whose connection is
   * cut after part of its body fails with ECONNRESET, one that stops arriving with the request's timeout
   * error; neither is ever taken for a short or empty body.
   */
  describe(`Transport (${httpClient} client): reading an answer`, () => {
    let server: Server;
    let base: string;
    const body = JSON.stringify({ kind: 'List', items: Array.from({ length: 500 }, (_, i) => ({ i })) });

    before(async () => {
      server = createServer((req: IncomingMessage, res: ServerResponse) => {
        res.setHeader('content-type', 'application/json');
        if (req.url === '/chunks') {
          // Written in 7 parts with pauses: the client sees several data events.
          const parts = 7;
          const size = Math.ceil(body.length / parts);
          let i = 0;
          const next = (): void => {
            const part = body.slice(i * size, (i + 1) * size);
            i++;
            if (i >= parts) res.end(part);
            else {
              res.write(part);
              setTimeout(next, 2);
            }
          };
          next();
          return;
        }
        if (req.url === '/big') {
          // ~1.2 MB in 12 parts with pauses: several batches of items.
          const big = JSON.stringify({
            kind: 'ConfigMapList',
            metadata: { resourceVersion: '77' },
            items: Array.from({ length: 12_000 }, (_, i) => ({
              metadata: { name: `cm-${i}` },
              data: { k: 'v'.repeat(60) },
            })),
          });
          const parts = 12;
          const size = Math.ceil(big.length / parts);
          let i = 0;
          const next = (): void => {
            const part = big.slice(i * size, (i + 1) * size);
            i++;
            if (i >= parts) res.end(part);
            else {
              res.write(part);
              setTimeout(next, 2);
            }
          };
          next();
          return;
        }
        if (req.url === '/missing') {
          res.statusCode = 404;
          res.end(
            JSON.stringify({ kind: 'Status', code: 404, message: 'configmaps not found', items: [{}, {}] }),
          );
          return;
        }
        if (req.url === '/cut') {
          res.setHeader('content-length', String(body.length));
          res.write(body.slice(0, 100));
          setTimeout(() => res.socket?.destroy(), 10);
          return;
        }
        if (req.url === '/stall') {
          res.setHeader('content-length', String(body.length));
          res.write(body.slice(0, 100));
          return;
        }
        res.end(body);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    const source: CredentialSource = {
      refreshMs: 60_000,
      resolve: () => Promise.resolve({ server: base, tls: {}, headers: {} }),
    };

    it('a body sent in several chunks is read whole', async () => {
      const t = await Transport.fromSource(source, { httpClient });
      const list = await t.request<{ items: { i: number }[] }>({ method: 'GET', path: '/chunks' });
      assert.equal(list.items.length, 500);
      assert.equal(list.items[499]!.i, 499);
      t.close();
    });

    it('a connection cut in the middle of the body fails with ECONNRESET, not a short body', async () => {
      const t = await Transport.fromSource(source, { httpClient });
      await assert.rejects(t.request({ method: 'GET', path: '/cut' }), (err: NodeJS.ErrnoException) => {
        assert.equal(err.code, 'ECONNRESET', String(err));
        return true;
      });
      const whole = await t.request<{ items: unknown[] }>({ method: 'GET', path: '/whole' });
      assert.equal(whole.items.length, 500, 'the transport still works after a cut answer');
      t.close();
    });

    it('requestItems hands on a large list in batches while it arrives, then the rest of the answer', async () => {
      const t = await Transport.fromSource(source, { httpClient });
      const names: string[] = [];
      let batches = 0;
      const rest = (await t.requestItems!({ method: 'GET', path: '/big' }, (items) => {
        batches++;
        for (const item of items) names.push((item as { metadata: { name: string } }).metadata.name);
      })) as { metadata: unknown; items: unknown[] };
      assert.equal(names.length, 12_000);
      assert.equal(names[11_999], 'cm-11999');
      assert.ok(batches >= 3, `${batches} batches`);
      assert.deepEqual(rest, { kind: 'ConfigMapList', metadata: { resourceVersion: '77' }, items: [] });
      // A small answer: its items at the end, in one batch.
      const small: unknown[] = [];
      await t.requestItems!({ method: 'GET', path: '/whole' }, (items) => small.push(...items));
      assert.equal(small.length, 500);
      t.close();
    });

    it('requestItems: an error answer is an ApiError (no item handed on), a cut one ECONNRESET, a throw from onItems its own error', async () => {
      const t = await Transport.fromSource(source, { httpClient });
      let handed = 0;
      await assert.rejects(
        t.requestItems!({ method: 'GET', path: '/missing' }, () => handed++),
        (err: { statusCode?: number; message?: string }) => {
          assert.equal(err.statusCode, 404);
          assert.match(String(err.message), /configmaps not found/);
          return true;
        },
      );
      assert.equal(handed, 0);
      await assert.rejects(
        t.requestItems!({ method: 'GET', path: '/cut' }, () => handed++),
        (err: NodeJS.ErrnoException) => err.code === 'ECONNRESET',
      );
      await assert.rejects(
        t.requestItems!({ method: 'GET', path: '/big' }, () => {
          throw new Error('the store refused it');
        }),
        /the store refused it/,
      );
      const whole = await t.request<{ items: unknown[] }>({ method: 'GET', path: '/whole' });
      assert.equal(whole.items.length, 500, 'the transport still works after them');
      t.close();
    });

    it('a body that stops arriving fails when the timeout fires, naming the request', async () => {
      const t = await Transport.fromSource(source, { httpClient, timeoutMs: 100 });
      await assert.rejects(
        t.request({ method: 'GET', path: '/stall' }),
        /GET \/stall: timed out after 100 ms/,
      );
      t.close();
    });
  });
}

describe('Transport: OP_GEN_HTTP_CLIENT chooses the default request client', () => {
  let server: Server;
  let base: string;
  const clients: string[] = [];
  before(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      clients.push(clientOf(req));
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const source: CredentialSource = {
    refreshMs: 60_000,
    resolve: () => Promise.resolve({ server: base, tls: {}, headers: {} }),
  };

  for (const [env, expected] of [
    [undefined, 'op-gen'],
    ['op-gen', 'op-gen'],
    ['node', 'node'],
  ] as const)
    it(`OP_GEN_HTTP_CLIENT=${env ?? '(unset)'} sends requests through the ${expected} client`, async () => {
      const saved = process.env.OP_GEN_HTTP_CLIENT;
      if (env === undefined) delete process.env.OP_GEN_HTTP_CLIENT;
      else process.env.OP_GEN_HTTP_CLIENT = env;
      try {
        const t = await Transport.fromSource(source);
        clients.length = 0;
        await t.request({ method: 'GET', path: '/default' });
        assert.deepEqual(clients, [expected]);
        t.close();
      } finally {
        if (saved === undefined) delete process.env.OP_GEN_HTTP_CLIENT;
        else process.env.OP_GEN_HTTP_CLIENT = saved;
      }
    });

  it('OP_GEN_HTTP_CLIENT with another value fails, naming the choices', async () => {
    const saved = process.env.OP_GEN_HTTP_CLIENT;
    process.env.OP_GEN_HTTP_CLIENT = 'http2';
    try {
      await assert.rejects(
        Transport.fromSource(source),
        /^Error: OP_GEN_HTTP_CLIENT must be op-gen or node, got http2$/,
      );
    } finally {
      if (saved === undefined) delete process.env.OP_GEN_HTTP_CLIENT;
      else process.env.OP_GEN_HTTP_CLIENT = saved;
    }
  });
});
