// The op-gen side of the dependents comparison (bench/compare/dependents-compare.ts), plain JavaScript
// on the built op-gen/runtime (dist/), bundled by `op-gen build` as a user's operator is. The
// operator of go-dependents/main.go, declared: for each BenchApp a ConfigMap and a Secret, a
// Deployment depending on both, a Service depending on the Deployment; the workflow writes the
// conditions ConfigReady, SecretReady, DeploymentReady, ServiceReady and Ready. A child is ready once
// it exists, on both sides (no kube-controller-manager runs on the test control plane: no Deployment
// ever becomes available).
// Usage: KUBECONFIG=... node bench/compare/op-gen-dependents-operator.mjs --workers 4 --metrics-bind-address 127.0.0.1:PORT
import { parseArgs } from 'node:util';
import { builtinKinds, defineKind, dependent, Manager } from '../../dist/runtime/index.js';

const BenchAppKind = defineKind({
  group: 'bench.op-gen.dev',
  version: 'v1',
  kind: 'BenchApp',
  plural: 'benchapps',
  namespaced: true,
});

const { values } = parseArgs({
  options: {
    workers: { type: 'string', default: '4' },
    'metrics-bind-address': { type: 'string', default: '0' },
  },
});

const labels = (app) => ({
  'app.kubernetes.io/name': 'benchapp',
  'app.kubernetes.io/instance': app.metadata.name,
});
const exists = () => true;

const config = dependent(builtinKinds.ConfigMap, {
  name: 'config',
  ready: exists,
  desired: (app) => ({
    metadata: { name: `${app.metadata.name}-config`, labels: labels(app) },
    data: { IMAGE: app.spec.image },
  }),
});
const secret = dependent(builtinKinds.Secret, {
  name: 'secret',
  ready: exists,
  // "bench", as go-dependents/main.go's []byte("bench").
  desired: (app) => ({
    metadata: { name: `${app.metadata.name}-secret`, labels: labels(app) },
    data: { token: 'YmVuY2g=' },
  }),
});
const deployment = dependent(builtinKinds.Deployment, {
  name: 'deployment',
  ready: exists,
  desired: (app) => ({
    metadata: { name: app.metadata.name, labels: labels(app) },
    spec: {
      replicas: app.spec.replicas,
      selector: { matchLabels: labels(app) },
      template: {
        metadata: { labels: labels(app) },
        spec: {
          containers: [
            {
              name: 'app',
              image: app.spec.image,
              envFrom: [
                { configMapRef: { name: `${app.metadata.name}-config` } },
                { secretRef: { name: `${app.metadata.name}-secret` } },
              ],
            },
          ],
        },
      },
    },
  }),
});
const service = dependent(builtinKinds.Service, {
  name: 'service',
  ready: exists,
  desired: (app) => ({
    metadata: { name: app.metadata.name, labels: labels(app) },
    spec: { selector: labels(app), ports: [{ name: 'http', port: 80 }] },
  }),
});

const mgr = await Manager.create({
  metricsBindAddress: values['metrics-bind-address'],
  metricsSecure: false,
  healthProbeBindAddress: '0',
  logLevel: 'warn',
});
mgr
  .controller('benchapp')
  .for(BenchAppKind)
  .dependents([config, secret, deployment.dependsOn(config, secret), service.dependsOn(deployment)])
  .withOptions({ maxConcurrentReconciles: Number(values.workers) })
  .complete();
await mgr.start();
