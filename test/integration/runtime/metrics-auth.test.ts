import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { after, before, describe, it } from 'node:test';
import type { TLSSocket } from 'node:tls';
import { parseAllDocuments } from 'yaml';
import { renderRbacManifests } from '../../../src/generate/rbac/manifests.ts';
import { Manager, Transport } from '../../../src/runtime/index.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { eventually, memoryLogger } from './helpers.ts';

/**
 * Secure metrics against a real API server: the manager runs as a ServiceAccount with exactly the
 * RBAC `op-gen generate rbac` writes (metrics_auth_role.yaml and its binding), and callers present
 * real ServiceAccount tokens from the TokenRequest API.
 */

const NS = 'metrics-system';

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly contentType: string | undefined;
  readonly peer: X509Certificate;
}

/** GET over HTTPS, verifying the server against `ca` (the certificate the manager reports) as localhost. */
function httpsGet(port: number, ca: string, token?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/metrics',
        servername: 'localhost',
        ca,
        agent: false,
        timeout: 30_000,
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      },
      (res) => {
        const peer = new X509Certificate((res.socket as TLSSocket).getPeerCertificate(false).raw);
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, contentType: res.headers['content-type'], peer }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** The generated metrics RBAC for ServiceAccount `manager` in NS, as objects. */
function generatedMetricsRbac(manager: string): Record<string, unknown>[] {
  const files = renderRbacManifests({ roles: [], serviceAccount: manager, namespace: NS });
  const wanted = ['metrics_auth_role.yaml', 'metrics_auth_role_binding.yaml', 'metrics_reader_role.yaml'];
  const objects = files
    .filter((f) => wanted.includes(f.name))
    .flatMap((f) => parseAllDocuments(f.content).map((d) => d.toJS() as Record<string, unknown>));
  assert.equal(
    objects.length,
    3,
    'the generator writes the metrics auth role, its binding and metrics-reader',
  );
  return objects;
}

describe(
  'secure metrics: TokenReview + SubjectAccessReview',
  { timeout: 180_000, skip: controlPlaneSkip() },
  () => {
    let cp: ControlPlane;
    let admin: Transport;
    let mgr: Manager;
    let running: Promise<void>;
    let port: number;
    let cert: string;
    const tokens: Record<'scraper' | 'stranger', string> = { scraper: '', stranger: '' };
    const managerLog = memoryLogger();

    const create = (path: string, body: unknown) => admin.request({ method: 'POST', path, body });
    const tokenOf = async (name: string): Promise<string> => {
      const token = (await cp.kubeConfigForServiceAccount(NS, name)).getCurrentUser()?.token;
      assert.ok(token, `no token for ${name}`);
      return token;
    };

    before(async () => {
      cp = await startControlPlane();
      admin = await Transport.fromKubeConfig(cp.kubeConfig);
      const managerConfig = await cp.kubeConfigForServiceAccount(NS, 'controller-manager');
      for (const o of generatedMetricsRbac('controller-manager')) {
        const kind = o.kind === 'ClusterRole' ? 'clusterroles' : 'clusterrolebindings';
        await create(`/apis/rbac.authorization.k8s.io/v1/${kind}`, o);
      }
      // What a Prometheus ServiceAccount gets: the generated metrics-reader ClusterRole, bound to it.
      tokens.scraper = await tokenOf('prometheus');
      tokens.stranger = await tokenOf('stranger');
      await create('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'prometheus-metrics-reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'metrics-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'prometheus', namespace: NS }],
      });

      // RBAC takes effect when the authorizer's informers see the bindings: wait for that, so a denial
      // the manager would cache for 30 s cannot come from a binding not seen yet.
      const allowed = (spec: Record<string, unknown>) =>
        eventually(`SubjectAccessReview ${JSON.stringify(spec)}`, async () => {
          const sar = await admin.request<{ status?: { allowed?: boolean } }>({
            method: 'POST',
            path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
            body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec },
          });
          return sar.status?.allowed === true;
        });
      await allowed({
        user: `system:serviceaccount:${NS}:controller-manager`,
        resourceAttributes: { group: 'authentication.k8s.io', resource: 'tokenreviews', verb: 'create' },
      });
      await allowed({
        user: `system:serviceaccount:${NS}:controller-manager`,
        resourceAttributes: {
          group: 'authorization.k8s.io',
          resource: 'subjectaccessreviews',
          verb: 'create',
        },
      });
      await allowed({
        user: `system:serviceaccount:${NS}:prometheus`,
        nonResourceAttributes: { path: '/metrics', verb: 'get' },
      });

      mgr = await Manager.create({
        kubeConfig: managerConfig,
        metricsBindAddress: '127.0.0.1:0',
        metricsSecure: true,
        healthProbeBindAddress: '0',
        handleSignals: false,
        logger: managerLog.logger,
      });
      running = mgr.start();
      await mgr.ready;
      port = mgr.ports.metrics ?? 0;
      cert = mgr.metricsCertificate ?? '';
      assert.match(cert, /BEGIN CERTIFICATE/);
    });

    after(async () => {
      await mgr?.stop();
      await running;
      admin?.close();
      await cp?.stop();
    });

    it('answers 401 to a request without a token', async () => {
      const res = await httpsGet(port, cert);
      assert.equal(res.status, 401);
      assert.equal(res.body, 'Unauthorized\n');
      assert.ok(res.peer.raw.equals(new X509Certificate(cert).raw), 'the self-signed certificate it reports');
    });

    it('answers 401 to a token the API server does not authenticate', async () => {
      const forged = `${tokens.scraper.slice(0, -4)}AAAA`;
      assert.equal((await httpsGet(port, cert, forged)).status, 401);
      assert.equal((await httpsGet(port, cert, 'not-a-token')).status, 401);
    });

    it('answers 403 to a ServiceAccount no role lets get /metrics', async () => {
      const res = await httpsGet(port, cert, tokens.stranger);
      assert.equal(res.status, 403);
      assert.equal(res.body, `Authorization denied for user system:serviceaccount:${NS}:stranger\n`);
    });

    it('serves the Prometheus text to a ServiceAccount bound to metrics-reader (nonResourceURLs /metrics, get)', async () => {
      const res = await httpsGet(port, cert, tokens.scraper);
      assert.equal(res.status, 200, res.body);
      assert.equal(res.contentType, 'text/plain; version=0.0.4; charset=utf-8');
      assert.match(res.body, /^# HELP controller_runtime_reconcile_total /m);
      assert.match(res.body, /^# TYPE workqueue_depth gauge$/m);
    });

    it('without the generated metrics-auth-role the manager cannot ask: 500, and an error naming the role', async () => {
      const bare = memoryLogger();
      const other = await Manager.create({
        kubeConfig: await cp.kubeConfigForServiceAccount(NS, 'bare-manager'),
        metricsBindAddress: '127.0.0.1:0',
        metricsSecure: true,
        healthProbeBindAddress: '0',
        handleSignals: false,
        logger: bare.logger,
      });
      const otherRunning = other.start();
      try {
        await other.ready;
        const res = await httpsGet(other.ports.metrics ?? 0, other.metricsCertificate ?? '', tokens.scraper);
        assert.equal(res.status, 500);
        assert.equal(res.body, 'Authentication failed\n');
        const error = bare.lines.find((l) => l.level === 'error');
        assert.match(String(error?.error), /tokenreviews.*forbidden.*metrics_auth_role\.yaml/s);
        assert.ok(!JSON.stringify(bare.lines).includes(tokens.scraper), 'the token is not logged');
      } finally {
        await other.stop();
        await otherRunning;
      }
    });

    it('never logs a token', () => {
      const text = JSON.stringify(managerLog.lines);
      assert.ok(managerLog.lines.length > 0);
      for (const token of Object.values(tokens)) assert.ok(!text.includes(token));
    });
  },
);
