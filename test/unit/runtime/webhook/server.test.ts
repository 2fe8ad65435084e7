import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { copyFileSync, existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { TLSSocket } from 'node:tls';
import { KubeConfig } from '@kubernetes/client-node';
import { defineKind } from '../../../../src/client/kind.ts';
import { createLogger } from '../../../../src/runtime/logger.ts';
import { Manager } from '../../../../src/runtime/manager.ts';
import { Registry } from '../../../../src/runtime/metrics.ts';
import { spoke } from '../../../../src/runtime/webhook/builder.ts';
import {
  DEFAULT_WEBHOOK_CERT_DIR,
  WebhookServer,
  WEBHOOK_PROBE_MESSAGE,
  WEBHOOK_PROBE_PATH,
} from '../../../../src/runtime/webhook/server.ts';
import { webhookPath } from '../../../../src/runtime/webhook/paths.ts';
import { defaultingHandler, validatingHandler } from '../../../../src/runtime/webhook/admission.ts';
import { field, ValidationError } from '../../../../src/runtime/webhook/field.ts';
import { makeWebhookCertificates, type WebhookCertificates } from '../../../../src/testing/webhook-certs.ts';

interface Answer {
  status: number;
  body: string;
  json: Record<string, unknown>;
  peer: X509Certificate | undefined;
}

function post(
  port: number,
  path: string,
  body: string | Buffer,
  options: { ca: string; method?: string; contentType?: string; headers?: Record<string, string> },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'POST',
        ca: options.ca,
        agent: false,
        timeout: 10_000,
        headers: {
          'content-type': options.contentType ?? 'application/json',
          ...options.headers,
        },
      },
      (res) => {
        const raw = (res.socket as TLSSocket).getPeerCertificate(false).raw;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          let json: Record<string, unknown> = {};
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            // not JSON
          }
          resolve({
            status: res.statusCode ?? 0,
            body: text,
            json,
            peer: raw ? new X509Certificate(raw) : undefined,
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

const kind = { group: 'example.com', version: 'v1', kind: 'Widget' };
const Hub = defineKind<{ spec: { n: number } }>({
  ...kind,
  version: 'v2',
  plural: 'widgets',
  namespaced: true,
});
const Spoke = defineKind<{ spec: { s: string } }>({ ...kind, plural: 'widgets', namespaced: true });

function admissionReview(request: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'uid-1',
      kind,
      resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
      operation: 'CREATE',
      userInfo: { username: 'u' },
      object: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 2 } },
      ...request,
    },
  });
}

describe('WebhookServer', () => {
  let certs: WebhookCertificates;
  let server: WebhookServer;
  let registry: Registry;
  let port: number;
  const lines: string[] = [];
  const mutate = webhookPath('mutate', kind);
  const validate = webhookPath('validate', kind);

  before(async () => {
    certs = await makeWebhookCertificates();
    registry = new Registry();
    server = new WebhookServer(
      {
        host: '127.0.0.1',
        port: 0,
        certDir: certs.certDir,
        requestTimeoutMs: 300,
        maxAdmissionBytes: 4096,
        certPollMs: 50,
      },
      { registry, logger: createLogger({ level: 'debug', write: (l) => lines.push(l) }) },
    );
    server.registerAdmission(
      mutate,
      defaultingHandler<{ spec: { size: number; replicas?: number } }>({
        default: (_ctx, obj) => void (obj.spec.replicas = obj.spec.size * 2),
      }),
    );
    server.registerAdmission(
      validate,
      validatingHandler<{ spec: { size: number } }>({
        validateCreate: (_ctx, obj) => {
          if (obj.spec.size > 5)
            throw new ValidationError([field.invalid('spec.size', obj.spec.size, 'at most 5')]);
          return ['careful'];
        },
        validateUpdate: () => {
          throw new Error('update handler bug');
        },
        validateDelete: async (ctx) => {
          // Never answers on its own: the per-request timeout must.
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
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
    port = server.port ?? 0;
  });
  after(() => server.stop());

  it('defaults: answers a base64 JSON patch in an AdmissionReview v1', async () => {
    const res = await post(port, mutate, admissionReview({}), { ca: certs.caCert });
    assert.equal(res.status, 200);
    const review = res.json as {
      apiVersion: string;
      kind: string;
      response: { uid: string; allowed: boolean; patch: string };
    };
    assert.equal(review.apiVersion, 'admission.k8s.io/v1');
    assert.equal(review.kind, 'AdmissionReview');
    assert.equal(review.response.uid, 'uid-1');
    assert.deepEqual(JSON.parse(Buffer.from(review.response.patch, 'base64').toString()), [
      { op: 'add', path: '/spec/replicas', value: 4 },
    ]);
  });

  it('validates: warnings when allowed, causes when refused', async () => {
    const ok = await post(port, validate, admissionReview({}), { ca: certs.caCert });
    assert.deepEqual((ok.json.response as { warnings: string[] }).warnings, ['careful']);
    const refused = await post(
      port,
      validate,
      admissionReview({ object: { metadata: { name: 'big' }, spec: { size: 9 } } }),
      { ca: certs.caCert },
    );
    const response = refused.json.response as {
      allowed: boolean;
      status: { code: number; details: { causes: unknown[] } };
    };
    assert.equal(response.allowed, false);
    assert.equal(response.status.code, 422);
    assert.deepEqual(response.status.details.causes, [
      { reason: 'FieldValueInvalid', message: 'Invalid value: 9: at most 5', field: 'spec.size' },
    ]);
  });

  it('a handler that throws is refused with 500; one that hangs is refused at the timeout', async () => {
    const thrown = await post(
      port,
      validate,
      admissionReview({ operation: 'UPDATE', oldObject: { spec: {} } }),
      {
        ca: certs.caCert,
      },
    );
    assert.equal(thrown.status, 200);
    const r1 = thrown.json.response as { allowed: boolean; status: { code: number; message: string } };
    assert.equal(r1.allowed, false);
    assert.equal(r1.status.code, 500);
    assert.match(r1.status.message, /update handler bug/);
    const hung = await post(
      port,
      validate,
      admissionReview({ operation: 'DELETE', oldObject: { spec: {} } }),
      {
        ca: certs.caCert,
      },
    );
    const r2 = hung.json.response as { allowed: boolean; status: { code: number; message: string } };
    assert.equal(r2.allowed, false);
    assert.equal(r2.status.code, 500);
    assert.match(r2.status.message, /did not answer in time/);
  });

  it('converts a ConversionReview v1', async () => {
    const res = await post(
      port,
      '/convert',
      JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: {
          uid: 'c1',
          desiredAPIVersion: 'example.com/v2',
          objects: [
            { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'a' }, spec: { s: '4' } },
          ],
        },
      }),
      { ca: certs.caCert },
    );
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: {
        uid: 'c1',
        convertedObjects: [
          { apiVersion: 'example.com/v2', kind: 'Widget', metadata: { name: 'a' }, spec: { n: 4 } },
        ],
        result: { status: 'Success' },
      },
    });
  });

  it('answers every bad input with a 4xx and a message, and keeps serving', async () => {
    const ca = certs.caCert;
    const cases: [string, Promise<Answer>, number, RegExp][] = [
      [
        'unknown path',
        post(port, '/mutate-nothing', admissionReview({}), { ca }),
        404,
        /no webhook is served on \/mutate-nothing/,
      ],
      ['GET', post(port, mutate, '', { ca, method: 'GET' }), 405, /GET is not allowed/],
      [
        'content type',
        post(port, mutate, 'x', { ca, contentType: 'text/plain' }),
        415,
        /"text\/plain" is not supported/,
      ],
      ['empty body', post(port, mutate, '', { ca }), 400, /body is empty/],
      ['malformed JSON', post(port, mutate, '{"apiVersion": ', { ca }), 400, /not JSON/],
      ['JSON array', post(port, mutate, '[1]', { ca }), 400, /not a AdmissionReview/],
      [
        'v1beta1 review',
        post(port, mutate, admissionReview({}).replace('admission.k8s.io/v1', 'admission.k8s.io/v1beta1'), {
          ca,
        }),
        400,
        /unsupported review AdmissionReview admission.k8s.io\/v1beta1.*admissionReviewVersions: \[v1\]/,
      ],
      [
        'conversion review to an admission path',
        post(
          port,
          mutate,
          JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' }),
          { ca },
        ),
        400,
        /unsupported review ConversionReview/,
      ],
      [
        'no request',
        post(port, mutate, JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }), {
          ca,
        }),
        400,
        /has no request/,
      ],
      ['no uid', post(port, mutate, admissionReview({ uid: '' }), { ca }), 400, /has no uid/],
      ['no kind', post(port, mutate, admissionReview({ kind: null }), { ca }), 400, /no kind or operation/],
      [
        'oversized (declared)',
        post(port, mutate, admissionReview({ object: { pad: 'x'.repeat(5000) } }), { ca }),
        413,
        /exceeds the limit of 4096 bytes/,
      ],
      [
        'oversized (chunked)',
        post(port, mutate, admissionReview({ object: { pad: 'x'.repeat(5000) } }), {
          ca,
          headers: { 'transfer-encoding': 'chunked' },
        }),
        413,
        /exceeds the limit of 4096 bytes/,
      ],
      [
        'conversion without objects',
        post(
          port,
          '/convert',
          JSON.stringify({
            apiVersion: 'apiextensions.k8s.io/v1',
            kind: 'ConversionReview',
            request: { uid: 'x' },
          }),
          { ca },
        ),
        400,
        /no desiredAPIVersion or objects/,
      ],
    ];
    for (const [what, answer, status, message] of cases) {
      const res = await answer;
      assert.equal(res.status, status, `${what}: ${res.body}`);
      assert.match(String(res.json.message), message, what);
    }
    // An unknown kind on a valid review is refused inside the review (the API server shows the message).
    const unknown = await post(
      port,
      '/convert',
      JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: {
          uid: 'u',
          desiredAPIVersion: 'x.io/v1',
          objects: [{ apiVersion: 'x.io/v2', kind: 'Nope' }],
        },
      }),
      { ca },
    );
    assert.match(JSON.stringify(unknown.json), /no conversion is registered for Nope x.io\/v2/);
    const still = await post(port, mutate, admissionReview({}), { ca });
    assert.equal((still.json.response as { allowed: boolean }).allowed, true);
  });

  it('answers the probe path with the probe refusal', async () => {
    const res = await post(port, WEBHOOK_PROBE_PATH, admissionReview({}), { ca: certs.caCert });
    assert.equal(
      (res.json.response as { status: { message: string } }).status.message,
      WEBHOOK_PROBE_MESSAGE,
    );
  });

  it('counts requests by path and code, with latency and in-flight series', async () => {
    const text = await registry.render();
    assert.match(
      text,
      new RegExp(`controller_runtime_webhook_requests_total\\{code="200",webhook="${mutate}"\\} \\d+`),
    );
    assert.match(
      text,
      new RegExp(`controller_runtime_webhook_requests_total\\{code="413",webhook="${mutate}"\\} 2`),
    );
    assert.match(
      text,
      new RegExp(`controller_runtime_webhook_latency_seconds_count\\{webhook="${validate}"\\} \\d+`),
    );
    assert.match(
      text,
      new RegExp(`controller_runtime_webhook_requests_in_flight\\{webhook="${mutate}"\\} 0`),
    );
    assert.doesNotMatch(text, /webhook="\/mutate-nothing"/);
  });

  it('serves a renewed certificate from the directory without a restart', async () => {
    const renewed = await makeWebhookCertificates();
    const before = (await post(port, mutate, admissionReview({}), { ca: certs.caCert })).peer;
    copyFileSync(join(renewed.certDir, 'tls.key'), join(certs.certDir, 'tls.key'));
    copyFileSync(join(renewed.certDir, 'tls.crt'), join(certs.certDir, 'tls.crt'));
    const deadline = Date.now() + 20_000;
    let peer = before;
    while (Date.now() < deadline) {
      try {
        peer = (await post(port, mutate, admissionReview({}), { ca: renewed.caCert })).peer;
        if (peer && peer.fingerprint256 !== before?.fingerprint256) break;
      } catch {
        // still the old certificate: the new CA does not verify it
      }
      await sleep(50);
    }
    assert.notEqual(peer?.fingerprint256, before?.fingerprint256);
    assert.equal(peer?.fingerprint256, new X509Certificate(renewed.cert).fingerprint256);
  });

  it('refuses a taken path', () => {
    assert.throws(
      () => server.registerAdmission(mutate, async (ctx) => ({ uid: ctx.uid, allowed: true })),
      /taken already/,
    );
  });

  it('refuses a path taken by conversion, and one without a leading /', () => {
    const allow = async (ctx: { uid: string }) => ({ uid: ctx.uid, allowed: true });
    assert.throws(() => server.registerAdmission('/convert', allow), {
      message: 'webhook path /convert is taken already (conversion)',
    });
    assert.throws(() => server.registerAdmission('mutate-x', allow), {
      message: 'webhook path "mutate-x" must start with /',
    });
  });

  it('refuses a second start while it serves, and keeps serving', async () => {
    await assert.rejects(server.start(), { message: 'the webhook server is started already' });
    assert.equal(server.serving, true);
    assert.equal(server.port, port);
  });

  it('one hub per kind: the same hub is the same conversion webhook, another version of it is refused', () => {
    assert.equal(server.conversionFor(Hub), server.conversionFor(Hub));
    assert.throws(() => server.conversionFor(Spoke), {
      message: 'conversion of Widget.example.com: the hub is v2 already, not v1',
    });
  });
});

function kubeConfigFor(url: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'fake', server: url, skipTLSVerify: true }],
    users: [{ name: 'manager', token: 't' }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'manager' }],
    currentContext: 'fake',
  });
  return kc;
}

function httpGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: false, timeout: 5_000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('WebhookServer without a certificate directory', () => {
  it('serves a self-signed certificate and warns that it is for local development', async (t) => {
    if (existsSync(join(DEFAULT_WEBHOOK_CERT_DIR, 'tls.crt'))) {
      t.skip(`${DEFAULT_WEBHOOK_CERT_DIR} holds a certificate on this machine`);
      return;
    }
    const lines: string[] = [];
    const server = new WebhookServer(
      { host: '127.0.0.1', port: 0 },
      { logger: createLogger({ write: (l) => lines.push(l) }) },
    );
    await server.start();
    try {
      assert.ok(server.certificate);
      const warning = lines
        .map((l) => JSON.parse(l) as { level: string; msg: string })
        .find((l) => l.level === 'warn');
      assert.match(
        warning?.msg ?? '',
        /self-signed certificate, which no API server trusts \(local development only/,
      );
      // The flag a user of the scaffold has, not only the option name.
      assert.match(warning?.msg ?? '', /--webhook-cert-dir/);
    } finally {
      await server.stop();
    }
  });
});

describe('Manager webhooks', () => {
  it('runs the webhook server for registered webhooks and reports it in /readyz', async () => {
    const certs = await makeWebhookCertificates();
    const mgr = await Manager.create({
      kubeConfig: kubeConfigFor('http://127.0.0.1:1'),
      metricsBindAddress: '0',
      healthProbeBindAddress: '127.0.0.1:0',
      handleSignals: false,
      webhook: { host: '127.0.0.1', port: 0, certDir: certs.certDir },
      logger: createLogger({ write: () => {} }),
    });
    mgr
      .webhookFor(defineKind<{ spec: { size: number } }>({ ...kind, plural: 'widgets', namespaced: true }))
      .withDefaulter({ default: (_ctx, obj) => void (obj.spec.size = 1) })
      .complete();
    assert.throws(() => mgr.webhookFor(Hub).complete(), /nothing to serve/);
    const running = mgr.start();
    await mgr.ready;
    try {
      assert.ok(mgr.ports.webhook);
      assert.deepEqual(mgr.webhookServer.paths, [webhookPath('mutate', kind)]);
      const ready = await httpGet(mgr.ports.health ?? 0, '/readyz');
      assert.equal(ready.status, 200);
      assert.match(ready.body, /\[\+\]webhook ok/);
      const res = await post(mgr.ports.webhook ?? 0, webhookPath('mutate', kind), admissionReview({}), {
        ca: certs.caCert,
      });
      assert.equal((res.json.response as { patchType: string }).patchType, 'JSONPatch');
      assert.throws(() => mgr.webhookFor(Hub), /before the manager starts/);
    } finally {
      await mgr.stop();
      await running;
    }
  });

  it('refuses to start when a given certificate directory has no certificate', async () => {
    const mgr = await Manager.create({
      kubeConfig: kubeConfigFor('http://127.0.0.1:1'),
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      handleSignals: false,
      webhook: { host: '127.0.0.1', port: 0, certDir: '/nonexistent-op-gen' },
      logger: createLogger({ write: () => {} }),
    });
    mgr
      .webhookFor(Hub)
      .withConversion(
        spoke(Spoke, { convertTo: () => ({ spec: { n: 1 } }), convertFrom: () => ({ spec: { s: '' } }) }),
      )
      .complete();
    await assert.rejects(
      mgr.start(),
      /webhook certificate directory \/nonexistent-op-gen: cannot read tls\.crt/,
    );
    await mgr.stop();
  });
});
