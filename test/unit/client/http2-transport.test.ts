import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  constants,
  createSecureServer,
  type Http2SecureServer,
  type IncomingHttpHeaders,
  type ServerHttp2Stream,
} from 'node:http2';
import {
  createConnection,
  createServer as createTcpServer,
  type AddressInfo,
  type Server,
  type Socket,
} from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../../src/client/api-error.ts';
import type { CredentialSource, Credentials } from '../../../src/client/credentials.ts';
import { Http2Transport } from '../../../src/client/http2-transport.ts';
import { HttpTransport, Transport } from '../../../src/client/transport.ts';
import { isServerUnavailable } from '../../../src/runtime/server-unavailable.ts';
import { selfSignedCertificate } from '../../../src/runtime/serving-cert.ts';

/**
 * The HTTP/2 transport against a local HTTP/2 TLS server (and a TCP proxy in front of it that can
 * freeze, as a hung API server or a dead network path does): the same contract as the HTTP/1.1
 * transport (JSON in and out, ApiError, watch lines), one connection for many requests, failures
 * reported as the socket errors the runtime recognises, a cut answer never taken for a whole one,
 * and a connection that stops answering pings closed.
 */
describe('Http2Transport', () => {
  let server: Http2SecureServer;
  let port: number;
  let ca: string;
  const sessions = new Set<unknown>();
  const requests: IncomingHttpHeaders[] = [];
  const bodies: string[] = [];
  /** What a path answers; the default echoes the request. */
  const handlers = new Map<string, (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => void>();

  before(async () => {
    const pair = await selfSignedCertificate();
    ca = pair.cert;
    server = createSecureServer({ cert: pair.cert, key: pair.key });
    server.on('session', (s) => sessions.add(s));
    server.on('stream', (stream, headers) => {
      stream.on('error', () => {});
      requests.push(headers);
      let body = '';
      stream.setEncoding('utf8');
      stream.on('data', (d: string) => (body += d));
      stream.on('end', () => {
        bodies.push(body);
        const path = String(headers[':path']).split('?')[0]!;
        const handler = handlers.get(path);
        if (handler) return handler(stream, headers);
        stream.respond({ ':status': 200, 'content-type': 'application/json' });
        stream.end(JSON.stringify({ path: headers[':path'], method: headers[':method'], body }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.close();
  });

  function source(
    server = `https://127.0.0.1:${port}`,
    headers: Credentials['headers'] = {},
  ): CredentialSource {
    return {
      refreshMs: 60_000,
      resolve: async () => ({ server, tls: { ca }, headers }),
    };
  }

  it('sends JSON, reads JSON, over one connection for many requests', async () => {
    const t = await Http2Transport.fromSource(
      source(`https://127.0.0.1:${port}/prefix/`, { Authorization: 'Bearer abc' }),
    );
    const before = sessions.size;
    requests.length = 0;
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map((i) =>
        t.request<{ path: string; method: string; body: string }>({
          method: 'POST',
          path: `/api/v1/things/${i}`,
          query: { dryRun: 'All', empty: '', none: undefined },
          body: { n: i },
        }),
      ),
    );
    assert.equal(sessions.size - before, 1, 'five requests, one connection');
    assert.deepEqual(answers[2], {
      path: '/prefix/api/v1/things/3?dryRun=All',
      method: 'POST',
      body: '{"n":3}',
    });
    assert.equal(
      requests[0]!.authorization,
      'Bearer abc',
      'credential header names are lower-cased for HTTP/2',
    );
    assert.equal(requests[0]!['content-type'], 'application/json');
    assert.equal(requests[0]!['user-agent'], 'op-gen-runtime');
    t.close();
  });

  it('an error answer is an ApiError with the Status and Retry-After', async () => {
    handlers.set('/busy', (stream) => {
      stream.respond({ ':status': 429, 'retry-after': '7', 'content-type': 'application/json' });
      stream.end(
        JSON.stringify({ kind: 'Status', reason: 'TooManyRequests', message: 'slow down', code: 429 }),
      );
    });
    const t = await Http2Transport.fromSource(source());
    const err = await t.request({ method: 'GET', path: '/busy' }).catch((e: unknown) => e);
    assert.ok(err instanceof ApiError);
    assert.equal(err.statusCode, 429);
    assert.equal(err.retryAfterSeconds, 7);
    assert.match(err.message, /slow down/);
    t.close();
  });

  it('a watch gives every line, split across chunks, the last one without a newline', async () => {
    handlers.set('/watch', (stream) => {
      stream.respond({ ':status': 200 });
      stream.write('{"type":"ADDED","n":1}\n{"type":"MOD');
      setTimeout(() => stream.write('IFIED","n":2}\n\n'), 20);
      setTimeout(() => stream.end('{"type":"DELETED","n":3}'), 40);
    });
    const t = await Http2Transport.fromSource(source());
    const lines: string[] = [];
    let opened = 0;
    await t.stream(
      { method: 'GET', path: '/watch' },
      (l) => lines.push(l),
      () => opened++,
    );
    assert.equal(opened, 1);
    assert.deepEqual(
      lines.map((l) => (JSON.parse(l) as { type: string }).type),
      ['ADDED', 'MODIFIED', 'DELETED'],
    );
    t.close();
  });

  it('an aborted watch resolves', async () => {
    handlers.set('/forever', (stream) => {
      stream.respond({ ':status': 200 });
      stream.write('{"type":"ADDED"}\n');
    });
    const t = await Http2Transport.fromSource(source());
    const ac = new AbortController();
    const lines: string[] = [];
    const done = t.stream({ method: 'GET', path: '/forever', signal: ac.signal }, (l) => lines.push(l));
    await sleep(50);
    ac.abort();
    await done;
    assert.equal(lines.length, 1);
    t.close();
  });

  it('an answer cut by a dropped connection is ECONNRESET, never a short body; the next request reconnects', async () => {
    handlers.set('/cut', (stream) => {
      stream.respond({ ':status': 200 });
      stream.write('{"items":[{"a":1},');
      setTimeout(() => stream.session?.destroy(), 20);
    });
    handlers.set('/cut-watch', (stream) => {
      stream.respond({ ':status': 200 });
      stream.write('{"type":"ADDED"}\n{"type":"MODIF');
      setTimeout(() => stream.session?.destroy(), 20);
    });
    const t = await Http2Transport.fromSource(source());
    const err = await t.request({ method: 'GET', path: '/cut' }).catch((e: unknown) => e);
    assert.equal((err as { code?: string }).code, 'ECONNRESET', String(err));
    assert.ok(isServerUnavailable(err));
    const lines: string[] = [];
    const watchErr = await t
      .stream({ method: 'GET', path: '/cut-watch' }, (l) => lines.push(l))
      .then(
        () => 'resolved',
        (e: unknown) => e,
      );
    assert.equal((watchErr as { code?: string }).code, 'ECONNRESET', String(watchErr));
    assert.deepEqual(lines, ['{"type":"ADDED"}'], 'the cut line is not delivered');
    const again = await t.request<{ path: string }>({ method: 'GET', path: '/again' });
    assert.equal(again.path, '/again');
    t.close();
  });

  it('a connection that closes before the answer began (a killed server) fails the request at once with ECONNRESET', async () => {
    // The server's connection goes away without an error: node:http2 closes the client's stream
    // (code 8, CANCEL) without an 'error' and without its 'response'. A request waiting for one must
    // still settle (it hung until a reconcile's shutdown deadline: test/integration/runtime/http2.test.ts).
    handlers.set('/dropped', (stream) => stream.session?.destroy());
    const t = await Http2Transport.fromSource(source());
    const started = Date.now();
    const outcome = await Promise.race([
      t.request({ method: 'GET', path: '/dropped' }).catch((e: unknown) => e),
      sleep(3_000).then(() => 'still waiting'),
    ]);
    assert.equal((outcome as { code?: string }).code, 'ECONNRESET', String(outcome));
    assert.ok(isServerUnavailable(outcome));
    assert.ok(Date.now() - started < 2_000);
    const again = await t.request<{ path: string }>({ method: 'GET', path: '/again' });
    assert.equal(again.path, '/again', 'the next request reconnects');
    t.close();
  });

  it('an unreachable server is ECONNREFUSED, which the runtime counts as the server being down', async () => {
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const t = await Http2Transport.fromSource(source(`https://127.0.0.1:${freePort}`));
    const err = await t.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
    assert.equal((err as { code?: string }).code, 'ECONNREFUSED', String(err));
    assert.ok(isServerUnavailable(err));
    t.close();
  });

  it('a request the server does not answer fails after timeoutMs, naming the request', async () => {
    handlers.set('/slow', () => {});
    const t = await Http2Transport.fromSource(source(), { timeoutMs: 100 });
    const started = Date.now();
    const err = await t.request({ method: 'GET', path: '/slow' }).catch((e: unknown) => e);
    assert.match(String(err), /GET \/slow: timed out after 100 ms/);
    assert.equal((err as { code?: string }).code, 'ETIMEDOUT');
    assert.ok(Date.now() - started < 2000);
    t.close();
  });

  it('after GOAWAY, new requests go to a new connection and the one in flight finishes', async () => {
    handlers.set('/goaway', (stream) => {
      stream.respond({ ':status': 200 });
      stream.session?.goaway(constants.NGHTTP2_NO_ERROR, stream.id);
      setTimeout(() => stream.end('{"last":true}'), 30);
    });
    const t = await Http2Transport.fromSource(source());
    await t.request({ method: 'GET', path: '/warm' });
    const before = sessions.size;
    const last = t.request<{ last: boolean }>({ method: 'GET', path: '/goaway' });
    await sleep(10);
    const next = await t.request<{ path: string }>({ method: 'GET', path: '/next' });
    assert.deepEqual(await last, { last: true });
    assert.equal(next.path, '/next');
    assert.equal(sessions.size - before, 1, 'one new connection after GOAWAY');
    t.close();
  });

  it('a stream the server refused unprocessed (REFUSED_STREAM) is sent again on a new connection', async () => {
    let refusals = 0;
    handlers.set('/refused-once', (stream) => {
      if (refusals++ === 0) {
        stream.close(constants.NGHTTP2_REFUSED_STREAM);
        return;
      }
      stream.respond({ ':status': 200 });
      stream.end('{"second":true}');
    });
    let always = 0;
    handlers.set('/refused-always', (stream) => {
      always++;
      stream.close(constants.NGHTTP2_REFUSED_STREAM);
    });
    const t = await Http2Transport.fromSource(source());
    await t.request({ method: 'GET', path: '/warm' });
    const before = sessions.size;
    assert.deepEqual(await t.request({ method: 'POST', path: '/refused-once', body: { a: 1 } }), {
      second: true,
    });
    assert.equal(refusals, 2);
    assert.equal(sessions.size - before, 1, 'the second attempt went to a new connection');
    await assert.rejects(
      t.request({ method: 'GET', path: '/refused-always' }),
      (err: NodeJS.ErrnoException) => {
        assert.equal(err.code, 'ECONNRESET', String(err));
        return true;
      },
    );
    assert.equal(always, 3, 'three attempts in all, then the error');
    t.close();
  });

  it(
    'a connection that stops answering pings is closed: the open watch fails with ETIMEDOUT',
    { timeout: 10_000 },
    async () => {
      // A TCP proxy that can freeze: bytes stop flowing both ways, as with a SIGSTOPped API server.
      const sockets: Socket[] = [];
      let frozen = false;
      const proxy: Server = createTcpServer((client) => {
        const upstream = createConnection(port, '127.0.0.1');
        sockets.push(client, upstream);
        client.on('data', (d) => frozen || upstream.write(d));
        upstream.on('data', (d) => frozen || client.write(d));
        client.on('error', () => {});
        upstream.on('error', () => {});
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const proxyPort = (proxy.address() as AddressInfo).port;
      handlers.set('/quiet-watch', (stream) => {
        stream.respond({ ':status': 200 });
        stream.write('{"type":"ADDED"}\n');
      });
      const t = await Http2Transport.fromSource(source(`https://127.0.0.1:${proxyPort}`), {
        pingIntervalMs: 100,
        pingTimeoutMs: 200,
      });
      const lines: string[] = [];
      const watch = t
        .stream({ method: 'GET', path: '/quiet-watch' }, (l) => lines.push(l))
        .then(
          () => 'resolved',
          (e: unknown) => e,
        );
      await sleep(300); // pings answered: the watch stays open
      assert.equal(lines.length, 1);
      frozen = true;
      const started = Date.now();
      const err = await watch;
      assert.equal((err as { code?: string }).code, 'ETIMEDOUT', String(err));
      assert.ok(isServerUnavailable(err));
      assert.ok(Date.now() - started < 1500, `closed after ${Date.now() - started} ms`);
      t.close();
      for (const s of sockets) s.destroy();
      proxy.close();
    },
  );

  it('an idle connection does not keep the process alive; an open request does, on an old connection or a new one', async () => {
    handlers.set('/late', (stream) => {
      setTimeout(() => {
        // A stream opened on the connection that got the GOAWAY is refused (the client sends it
        // again on a new connection): there is nothing to answer on it.
        if (stream.destroyed) return;
        stream.respond({ ':status': 200 });
        stream.end('{"late":true}');
      }, 300);
    });
    handlers.set('/goaway-soon', (stream) => {
      stream.respond({ ':status': 200 });
      stream.session?.goaway(constants.NGHTTP2_NO_ERROR, stream.id);
      setTimeout(() => stream.end('{"first":true}'), 50);
    });
    // The child makes requests and never closes the transport: it must still exit on its own, and
    // only after the late answer. The late request goes to a second connection (the first got a
    // GOAWAY) while the first still has a stream open: each connection must hold the process alive
    // for its own streams.
    const script = `
      import { Http2Transport } from ${JSON.stringify(new URL('../../../src/client/http2-transport.ts', import.meta.url).href)};
      const t = await Http2Transport.fromSource({ refreshMs: 60000, resolve: async () => ({ server: 'https://127.0.0.1:${port}', tls: { ca: ${JSON.stringify(ca)} }, headers: {} }) });
      const first = t.request({ method: 'GET', path: '/goaway-soon' });
      await new Promise((r) => setTimeout(r, 20));
      t.request({ method: 'GET', path: '/late' }).then((a) => console.log(JSON.stringify(a)));
      await first;
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const deadline = new AbortController();
    const code = await Promise.race([
      new Promise<number | null>((resolve) => child.once('exit', resolve)),
      sleep(10_000, 'still running', { signal: deadline.signal }).catch(() => 'aborted'),
    ]);
    deadline.abort();
    if (code === 'still running') child.kill();
    assert.equal(code, 0, 'the child exits by itself');
    assert.equal(out.trim(), '{"late":true}');
  });

  it('Transport.fromSource speaks HTTP/2 to https servers when asked, HTTP/1.1 to http servers', async () => {
    const h2 = await Transport.fromSource(source(), { http2: true, retry: false });
    assert.ok(h2 instanceof Http2Transport);
    h2.close();
    const h1 = await Transport.fromSource(source(), { http2: false, retry: false });
    assert.ok(h1 instanceof HttpTransport);
    h1.close();
    const plain = await Transport.fromSource(source('http://127.0.0.1:1'), { http2: true, retry: false });
    assert.ok(plain instanceof HttpTransport);
    plain.close();
    assert.throws(
      () => Http2Transport.fromCredentials(source(), { server: 'http://x', tls: {}, headers: {} }),
      /https/,
    );
  });
});
