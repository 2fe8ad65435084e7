import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TLSSocket } from 'node:tls';
import { KubeConfig } from '@kubernetes/client-node';
import { FakeClock } from '../../../src/runtime/clock.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { Manager } from '../../../src/runtime/manager.ts';
import { CertificateDir, selfSignedCertificate } from '../../../src/runtime/serving-cert.ts';

interface Answer {
  status: number;
  body: string;
  contentType: string | undefined;
  peer: X509Certificate | undefined;
}

/** GET over HTTPS; `ca` pins the server's certificate (verified, servername localhost), else unverified. */
function httpsGet(
  port: number,
  path: string,
  options: { token?: string; ca?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        servername: 'localhost',
        headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
        ...(options.ca ? { ca: options.ca } : { rejectUnauthorized: false }),
        agent: false,
        timeout: 5_000,
      },
      (res) => {
        const raw = (res.socket as TLSSocket).getPeerCertificate(false).raw;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body,
            contentType: res.headers['content-type'],
            peer: raw ? new X509Certificate(raw) : undefined,
          }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

function httpGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: false, timeout: 5_000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** An API server that answers only the two reviews: token `allowed` may get /metrics, `denied` may not. */
async function fakeApiServer(): Promise<{ server: Server; url: string; reviews: string[] }> {
  const reviews: string[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      const body = JSON.parse(text || '{}') as { spec: { token?: string; user?: string } };
      reviews.push(req.url ?? '');
      let status: unknown;
      if (req.url === '/apis/authentication.k8s.io/v1/tokenreviews') {
        const token = body.spec.token;
        status =
          token === 'allowed' || token === 'denied'
            ? { authenticated: true, user: { username: token, groups: ['system:authenticated'] } }
            : { authenticated: false };
      } else if (req.url === '/apis/authorization.k8s.io/v1/subjectaccessreviews') {
        status = { allowed: body.spec.user === 'allowed' };
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"kind":"Status","code":404}');
        return;
      }
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...body, status }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, reviews };
}

function kubeConfigFor(url: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'fake', server: url, skipTLSVerify: true }],
    users: [{ name: 'manager', token: 'manager-token' }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'manager' }],
    currentContext: 'fake',
  });
  return kc;
}

async function startManager(kubeConfig: KubeConfig, options: { secure: boolean; certDir?: string }) {
  const lines: string[] = [];
  const mgr = await Manager.create({
    kubeConfig,
    metricsBindAddress: '127.0.0.1:0',
    healthProbeBindAddress: '0',
    metricsSecure: options.secure,
    ...(options.certDir ? { metricsCertDir: options.certDir } : {}),
    handleSignals: false,
    logger: createLogger({ level: 'debug', write: (l) => lines.push(l) }),
  });
  const running = mgr.start();
  await mgr.ready;
  return { mgr, running, lines, port: mgr.ports.metrics ?? 0 };
}

describe('selfSignedCertificate', () => {
  it('makes a one-year EC certificate for localhost and the loopback addresses, with its key', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const pair = await selfSignedCertificate(clock);
    const cert = new X509Certificate(pair.cert);
    assert.match(cert.subjectAltName ?? '', /DNS:localhost/);
    assert.match(cert.subjectAltName ?? '', /IP Address:127\.0\.0\.1/);
    if (/^[a-z0-9.-]+$/.test(hostname().toLowerCase()))
      assert.ok(cert.subjectAltName?.includes(`DNS:${hostname().toLowerCase()}`), 'the host (pod) name');
    assert.equal(cert.publicKey.asymmetricKeyType, 'ec');
    assert.ok(cert.checkPrivateKey(createPrivateKey(pair.key)));
    const days = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 86_400_000;
    assert.ok(Math.abs(days - 365) < 1, `valid ${days} days`);
    assert.equal(cert.ca, false);
  });
});

describe('CertificateDir', () => {
  let dir: string;
  let first: { cert: string; key: string };
  let second: { cert: string; key: string };
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'op-gen-certdir-'));
    [first, second] = await Promise.all([selfSignedCertificate(), selfSignedCertificate()]);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const write = (pair: { cert: string; key: string }) => {
    writeFileSync(join(dir, 'tls.crt'), pair.cert);
    writeFileSync(join(dir, 'tls.key'), pair.key);
  };

  it('refuses a directory without tls.crt and tls.key, naming it', async () => {
    await assert.rejects(
      new CertificateDir(join(dir, 'missing')).load(),
      /missing: cannot read tls\.crt and tls\.key/,
    );
  });

  it('loads the pair, then hands a renewed one over on the next look (and only then)', async () => {
    write(first);
    const clock = new FakeClock();
    const lines: string[] = [];
    const certs = new CertificateDir(dir, {
      clock,
      pollMs: 10_000,
      logger: createLogger({ write: (l) => lines.push(l) }),
    });
    assert.equal((await certs.load()).cert, first.cert);
    const seen: string[] = [];
    assert.equal(await certs.check((p) => seen.push(p.cert)), false, 'unchanged');

    write({ cert: second.cert, key: first.key });
    assert.equal(
      await certs.check((p) => seen.push(p.cert)),
      false,
      'a certificate beside the wrong key is refused',
    );
    assert.equal(certs.current?.cert, first.cert, 'the previous pair stays');
    assert.equal(lines.filter((l) => l.includes('"level":"error"')).length, 1);
    assert.equal(await certs.check((p) => seen.push(p.cert)), false);
    assert.equal(
      lines.filter((l) => l.includes('"level":"error"')).length,
      1,
      'a refused pair is reported once',
    );
    assert.ok(!lines.some((l) => l.includes('PRIVATE KEY')), 'no key material in the log');

    // The watch loop on the fake clock: a look every pollMs.
    const reloaded = new Promise<string>((resolve) => certs.watch((p) => resolve(p.cert)));
    write(second);
    clock.step(9_999);
    await new Promise((r) => setImmediate(r));
    assert.equal(certs.current?.cert, first.cert, 'not looked yet');
    clock.step(1);
    assert.equal(await reloaded, second.cert);
    certs.stop();
    assert.equal(clock.waiting, 0, 'stop() cancels the next look');
  });
});

describe('Manager metrics server (against a fake API server)', () => {
  let api: Awaited<ReturnType<typeof fakeApiServer>>;
  let dir: string;
  before(async () => {
    api = await fakeApiServer();
    dir = mkdtempSync(join(tmpdir(), 'op-gen-metrics-'));
  });
  after(() => {
    api.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('by default serves /metrics over plain HTTP to anyone', async () => {
    const { mgr, running, port } = await startManager(kubeConfigFor(api.url), { secure: false });
    try {
      const res = await httpGet(port, '/metrics');
      assert.equal(res.status, 200);
      assert.match(res.body, /# TYPE workqueue_depth gauge/);
      assert.equal(mgr.metricsCertificate, undefined);
    } finally {
      await mgr.stop();
      await running;
    }
  });

  it('secure: HTTPS with a self-signed certificate, and only for an authorized token', async () => {
    api.reviews.length = 0;
    const { mgr, running, port, lines } = await startManager(kubeConfigFor(api.url), { secure: true });
    try {
      const pinned = mgr.metricsCertificate;
      assert.ok(pinned);
      const ok = await httpsGet(port, '/metrics', { token: 'allowed', ca: pinned });
      assert.equal(ok.status, 200, ok.body);
      assert.equal(ok.contentType, 'text/plain; version=0.0.4; charset=utf-8');
      assert.match(ok.body, /# TYPE controller_runtime_reconcile_total counter/);
      assert.ok(ok.peer?.raw.equals(new X509Certificate(pinned).raw), 'presents the certificate it reports');
      assert.equal((await httpsGet(port, '/metrics')).status, 401);
      assert.equal((await httpsGet(port, '/metrics', { token: 'nobody' })).status, 401);
      const denied = await httpsGet(port, '/metrics', { token: 'denied' });
      assert.equal(denied.status, 403);
      assert.equal(denied.body, 'Authorization denied for user denied\n');
      assert.equal((await httpsGet(port, '/other', { token: 'allowed' })).status, 404);
      // Plain HTTP gets no answer from the HTTPS port: the TLS server drops the connection at once
      // (any other error, a timeout included, is not that).
      await assert.rejects(httpGet(port, '/metrics'), { code: 'ECONNRESET', message: 'socket hang up' });
      assert.deepEqual(
        api.reviews.filter((r) => r.endsWith('tokenreviews')).length,
        3,
        'one TokenReview per token (allowed, nobody, denied)',
      );
      assert.ok(lines.some((l) => l.includes('"secure":true') && l.includes('"certificate":"self-signed"')));
    } finally {
      await mgr.stop();
      await running;
    }
  });

  it("secure with metricsCertDir: presents the directory's certificate", async () => {
    const pair = await selfSignedCertificate();
    writeFileSync(join(dir, 'tls.crt'), pair.cert);
    writeFileSync(join(dir, 'tls.key'), pair.key);
    const { mgr, running, port } = await startManager(kubeConfigFor(api.url), { secure: true, certDir: dir });
    try {
      assert.equal(mgr.metricsCertificate, pair.cert);
      const ok = await httpsGet(port, '/metrics', { token: 'allowed', ca: pair.cert });
      assert.equal(ok.status, 200);
      assert.ok(ok.peer?.raw.equals(new X509Certificate(pair.cert).raw));
    } finally {
      await mgr.stop();
      await running;
    }
  });

  it('secure with a metricsCertDir that has no certificate: start() fails, naming the directory', async () => {
    const mgr = await Manager.create({
      kubeConfig: kubeConfigFor(api.url),
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '0',
      metricsSecure: true,
      metricsCertDir: join(dir, 'absent'),
      handleSignals: false,
      logger: createLogger({ write: () => {} }),
    });
    await assert.rejects(mgr.start(), /absent: cannot read tls\.crt and tls\.key/);
    await mgr.stop();
  });
});
