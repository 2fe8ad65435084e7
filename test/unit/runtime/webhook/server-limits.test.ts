import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { connect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { defineKind } from '../../../../src/client/kind.ts';
import { createLogger } from '../../../../src/runtime/logger.ts';
import { Manager } from '../../../../src/runtime/manager.ts';
import { defaultingHandler } from '../../../../src/runtime/webhook/admission.ts';
import { spoke } from '../../../../src/runtime/webhook/builder.ts';
import { webhookPath } from '../../../../src/runtime/webhook/paths.ts';
import { WebhookServer, type WebhookServerOptions } from '../../../../src/runtime/webhook/server.ts';
import { FakeApiServer } from '../../../../src/testing/fake-api-server.ts';
import { makeWebhookCertificates, type WebhookCertificates } from '../../../../src/testing/webhook-certs.ts';

/**
 * What a hostile client can hold of the webhook server (issue 39, item 8): headers and body each
 * within their own bound, apart from the handler's time; a cap on connections; TLS options as
 * controller-runtime's; and the bad inputs a client can send, each answered while the server keeps
 * serving. Bounds are short here (a few hundred ms) so no test waits long; they wait for the
 * server's close, never a fixed time.
 */

const kind = { group: 'example.com', version: 'v1', kind: 'Widget' };
const Hub = defineKind<{ spec: { n: number } }>({
  ...kind,
  version: 'v2',
  plural: 'widgets',
  namespaced: true,
});
const Spoke = defineKind<{ spec: { s: string } }>({ ...kind, plural: 'widgets', namespaced: true });
const quiet = createLogger({ level: 'error', write: () => {} });
const mutate = webhookPath('mutate', kind);

let certs: WebhookCertificates;
const servers: WebhookServer[] = [];

async function serve(options: WebhookServerOptions): Promise<WebhookServer> {
  const server = new WebhookServer(
    { host: '127.0.0.1', port: 0, certDir: certs.certDir, ...options },
    { logger: quiet },
  );
  server.registerAdmission(
    mutate,
    defaultingHandler<{ spec?: { size?: number; replicas?: number } }>({
      default: async (ctx, obj) => {
        if (obj.spec?.size === -1) await new Promise((r) => setTimeout(r, 1_000)); // a slow handler
        if (obj.spec) obj.spec.replicas = (obj.spec.size ?? 0) * 2;
        void ctx;
      },
    }),
  );
  server.conversionFor(Hub).addSpoke(
    spoke(Spoke, {
      convertTo: (s: { spec: { s: string } }) => ({ spec: { n: Number(s.spec.s) } }),
      convertFrom: (h: { spec: { n: number } }) => ({ spec: { s: String(h.spec.n) } }),
    }),
  );
  await server.start();
  servers.push(server);
  return server;
}

/** A raw TLS connection: what the test writes goes out as is; resolves with all it read at close. */
function rawConnection(
  port: number,
  options: ConnectionOptions = {},
): Promise<{ socket: TLSSocket; closed: Promise<{ text: string; ms: number }> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca: certs.caCert, ...options }, () => {
      const started = performance.now();
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (text += d));
      const closed = new Promise<{ text: string; ms: number }>((done) =>
        socket.on('close', () => done({ text, ms: performance.now() - started })),
      );
      resolve({ socket, closed });
    });
    socket.once('error', reject);
  });
}

function post(
  port: number,
  path: string,
  body: string,
  contentType = 'application/json',
): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        ca: certs.caCert,
        agent: false,
        headers: { 'content-type': contentType },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          let json: Record<string, unknown> = {};
          try {
            json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function admissionReview(object: unknown, uid = 'uid-1'): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind,
      resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
      operation: 'CREATE',
      userInfo: { username: 'u' },
      object,
    },
  });
}

function conversionReview(objects: unknown[]): string {
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: { uid: 'c-1', desiredAPIVersion: 'example.com/v2', objects },
  });
}

async function stillServes(port: number): Promise<void> {
  const res = await post(port, mutate, admissionReview({ spec: { size: 1 } }));
  assert.equal(res.status, 200);
  assert.equal((res.json.response as { allowed?: boolean }).allowed, true);
}

before(async () => {
  certs = await makeWebhookCertificates();
});
after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

describe('WebhookServer limits', () => {
  it('cuts off a client that sends headers and half a body, then goes quiet (408, closed)', async () => {
    const server = await serve({ headerTimeoutMs: 5_000, bodyTimeoutMs: 300 });
    const { socket, closed } = await rawConnection(server.port!);
    socket.write(
      `POST /convert HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n${'{'.repeat(500)}`,
    );
    const { text, ms } = await closed;
    assert.match(text, /^HTTP\/1\.1 408 /);
    assert.match(text, /the request body was not received within 300 ms \(500 bytes came\)/);
    assert.ok(ms >= 250 && ms < 3_000, `closed after ${ms.toFixed(0)} ms`);
    await stillServes(server.port!);
  });

  it('cuts off a client that sends half its headers, then goes quiet', async () => {
    const server = await serve({ headerTimeoutMs: 300, bodyTimeoutMs: 5_000 });
    const { socket, closed } = await rawConnection(server.port!);
    socket.write('POST /convert HTTP/1.1\r\nHost: x\r\n');
    const { text, ms } = await closed;
    assert.match(text, /^HTTP\/1\.1 408 /);
    assert.ok(ms < 3_000, `closed after ${ms.toFixed(0)} ms`);
    await stillServes(server.port!);
  });

  it('counts the handler’s time apart: a handler slower than header + body bounds still answers', async () => {
    const server = await serve({ headerTimeoutMs: 200, bodyTimeoutMs: 200, requestTimeoutMs: 5_000 });
    const res = await post(server.port!, mutate, admissionReview({ spec: { size: -1 } }));
    assert.equal(res.status, 200);
    assert.equal((res.json.response as { allowed?: boolean }).allowed, true);
  });

  it('closes connections past maxConnections as they arrive', async () => {
    const server = await serve({ maxConnections: 2 });
    const held = [await rawConnection(server.port!), await rawConnection(server.port!)];
    await assert.rejects(rawConnection(server.port!), /socket disconnected|ECONNRESET|socket hang up/);
    for (const c of held) c.socket.destroy();
    await Promise.all(held.map((c) => c.closed));
    await stillServes(server.port!);
  });

  it('TLS: TLS 1.2 at least by default; minVersion, cipherSuites and tlsOpts as given', async () => {
    const byDefault = await serve({});
    const tls12 = await rawConnection(byDefault.port!, { maxVersion: 'TLSv1.2' });
    assert.equal(tls12.socket.getProtocol(), 'TLSv1.2');
    tls12.socket.destroy();
    await assert.rejects(
      rawConnection(byDefault.port!, {
        minVersion: 'TLSv1',
        maxVersion: 'TLSv1.1',
        ciphers: 'DEFAULT:@SECLEVEL=0',
      }),
      /protocol|version|alert/i,
    );

    const only13 = await serve({ minVersion: 'TLSv1.3' });
    await assert.rejects(rawConnection(only13.port!, { maxVersion: 'TLSv1.2' }), /protocol|version|alert/i);

    const hooked = await serve({ tlsOpts: [(o) => void (o.minVersion = 'TLSv1.3')] });
    await assert.rejects(rawConnection(hooked.port!, { maxVersion: 'TLSv1.2' }), /protocol|version|alert/i);
    const tls13 = await rawConnection(hooked.port!);
    assert.equal(tls13.socket.getProtocol(), 'TLSv1.3');
    tls13.socket.destroy();

    const suite = 'ECDHE-ECDSA-AES256-GCM-SHA384';
    const ciphers = await serve({ cipherSuites: [suite] });
    const c = await rawConnection(ciphers.port!, { maxVersion: 'TLSv1.2' });
    assert.equal(c.socket.getCipher().name, suite);
    c.socket.destroy();
  });
});

describe('WebhookServer bad input (default size limits)', () => {
  let port: number;
  before(async () => {
    port = (await serve({})).port!;
  });

  it('null and non-object objects', async () => {
    const nullObject = await post(port, mutate, admissionReview(null));
    assert.ok(nullObject.status === 200 || (nullObject.status >= 400 && nullObject.status < 500));
    if (nullObject.status === 200) {
      assert.equal(
        (nullObject.json.response as { allowed?: boolean }).allowed,
        false,
        'refused in the review',
      );
    }
    const conv = await post(port, '/convert', conversionReview([null, 5, 'x', []]));
    assert.equal(conv.status, 200);
    assert.equal((conv.json.response as { result: { status: string } }).result.status, 'Failure');
    await stillServes(port);
  });

  it('200,000-deep nesting', async () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const res = await post(
      port,
      mutate,
      admissionReview(null).replace('"object":null', `"object":{"spec":${deep}}`),
    );
    assert.ok(res.status === 200 || (res.status >= 400 && res.status < 500), `status ${res.status}`);
    await stillServes(port);
  });

  it('`__proto__` keys pollute nothing', async () => {
    const body = admissionReview(null).replace(
      '"object":null',
      '"object":{"__proto__":{"polluted":"yes"},"spec":{"size":1,"__proto__":{"polluted":"yes"}}}',
    );
    const res = await post(port, mutate, body);
    assert.equal(res.status, 200);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
  });

  it('wrong content type and an unknown path', async () => {
    assert.equal((await post(port, mutate, admissionReview({}), 'text/plain')).status, 415);
    assert.equal((await post(port, '/nothing', admissionReview({}))).status, 404);
  });

  it('an 8 MiB AdmissionReview is refused (413, over the 7 MiB limit); an 8 MiB ConversionReview converts', async () => {
    const pad = 'x'.repeat(8 * 1024 * 1024);
    const big = await post(port, mutate, admissionReview({ spec: { size: 1 }, pad }));
    assert.equal(big.status, 413);
    const conv = await post(
      port,
      '/convert',
      conversionReview([
        {
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { name: 'w', annotations: { pad } },
          spec: { s: '3' },
        },
      ]),
    );
    assert.equal(conv.status, 200);
    const response = conv.json.response as {
      result: { status: string };
      convertedObjects: { spec: unknown }[];
    };
    assert.equal(response.result.status, 'Success');
    assert.deepEqual(response.convertedObjects[0]!.spec, { n: 3 });
    await stillServes(port);
  });

  it('a 60 MiB ConversionReview (a list of 15,000 objects of 4 KiB) converts within the default bounds', async () => {
    const objects = Array.from({ length: 15_000 }, (_, i) => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: `w-${i}`, namespace: 'ns', annotations: { pad: 'y'.repeat(4_096) } },
      spec: { s: String(i) },
    }));
    const body = conversionReview(objects);
    assert.ok(body.length > 60 * 1024 * 1024 && body.length < 64 * 1024 * 1024, `${body.length} bytes`);
    const conv = await post(port, '/convert', body);
    assert.equal(conv.status, 200);
    const response = conv.json.response as {
      result: { status: string };
      convertedObjects: { spec: { n: number } }[];
    };
    assert.equal(response.result.status, 'Success');
    assert.equal(response.convertedObjects.length, 15_000);
    assert.equal(response.convertedObjects[14_999]!.spec.n, 14_999);
  });

  it('500 concurrent requests are all answered', async () => {
    const answers = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        post(port, mutate, admissionReview({ spec: { size: i } }, `u-${i}`)),
      ),
    );
    assert.equal(answers.filter((a) => a.status === 200).length, 500);
  });
});

describe('Manager metrics and health servers', () => {
  it('hold the same header bound and connection cap (serverLimits)', async () => {
    const server = new FakeApiServer();
    const mgr = await Manager.create({
      transport: server.transport(),
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '127.0.0.1:0',
      handleSignals: false,
      logger: quiet,
      serverLimits: { headerTimeoutMs: 300, maxConnections: 4 },
    });
    const running = mgr.start();
    await mgr.ready;
    try {
      for (const port of [mgr.ports.metrics!, mgr.ports.health!]) {
        const { createConnection } = await import('node:net');
        const socket = createConnection({ host: '127.0.0.1', port });
        await new Promise((r) => socket.once('connect', r));
        const started = performance.now();
        socket.write('GET /metrics HTTP/1.1\r\nHost: x\r\n');
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (d: string) => (text += d));
        await new Promise((r) => socket.once('close', r));
        assert.match(text, /^HTTP\/1\.1 408 /);
        assert.ok(performance.now() - started < 3_000);
      }
    } finally {
      await mgr.stop();
      await running.catch(() => {});
    }
  });
});
