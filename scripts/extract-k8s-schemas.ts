/**
 * Extracts the schemas of Kubernetes' built-in API types from the OpenAPI v3 documents served by the
 * real kube-apiserver of the test control plane, into data/k8s-schemas/v<minor>.json: the source of
 * truth for fields typed with Kubernetes types in `op-gen generate crd`.
 * Run: node scripts/extract-k8s-schemas.ts   (needs `npm run setup:envtest` first)
 */
import { writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { startControlPlane } from '../src/testing/index.ts';
import { ENVTEST_K8S_VERSION } from '../src/testing/binaries.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Keys of the served schemas that matter for a structural CRD schema. */
const KEEP = new Set([
  'type',
  'format',
  'description',
  'properties',
  'additionalProperties',
  'items',
  'required',
  'enum',
  'default',
  'allOf',
  '$ref',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-unions',
  'minimum',
  'maximum',
  'pattern',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'oneOf',
  'anyOf',
  'nullable',
  'x-kubernetes-validations',
]);

function prune(value: Json): Json {
  if (Array.isArray(value)) return value.map(prune);
  if (value !== null && typeof value === 'object') {
    const out: { [k: string]: Json } = {};
    for (const [k, v] of Object.entries(value)) {
      if (!KEEP.has(k)) continue;
      if (k === 'properties' && v && typeof v === 'object' && !Array.isArray(v)) {
        out[k] = Object.fromEntries(Object.entries(v).map(([name, p]) => [name, prune(p)]));
      } else out[k] = prune(v);
    }
    return out;
  }
  return value;
}

const cp = await startControlPlane();
try {
  const cluster = cp.kubeConfig.getCurrentCluster()!;
  const token = cp.kubeConfig.getCurrentUser()!.token!;
  const ca = Buffer.from(cluster.caData!, 'base64');
  const get = (path: string): Promise<Json> =>
    new Promise((resolve, reject) => {
      request(
        `${cp.server}${path}`,
        { headers: { authorization: `Bearer ${token}`, accept: 'application/json' }, ca },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () =>
            res.statusCode === 200
              ? resolve(JSON.parse(body) as Json)
              : reject(new Error(`${path}: ${res.statusCode}`)),
          );
        },
      )
        .on('error', reject)
        .end();
    });
  const index = (await get('/openapi/v3')) as { paths: Record<string, { serverRelativeURL: string }> };
  const definitions: Record<string, Json> = {};
  for (const [path, entry] of Object.entries(index.paths).sort()) {
    if (!/^(api\/v1|apis\/[^/]+\/v[^/]+)$/.test(path) || path.startsWith('apis/apiextensions.k8s.io'))
      continue;
    const doc = (await get(entry.serverRelativeURL)) as { components?: { schemas?: Record<string, Json> } };
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
      if (!name.startsWith('io.k8s.api.') && !name.startsWith('io.k8s.apimachinery.')) continue;
      definitions[name] ??= prune(schema);
    }
  }
  const sorted = Object.fromEntries(Object.entries(definitions).sort(([a], [b]) => a.localeCompare(b)));
  const minor = ENVTEST_K8S_VERSION.split('.').slice(0, 2).join('.');
  const out = join(new URL('..', import.meta.url).pathname, 'data', 'k8s-schemas', `v${minor}.json`);
  writeFileSync(
    out,
    `${JSON.stringify({ kubernetes: `v${ENVTEST_K8S_VERSION}`, source: '/openapi/v3 of kube-apiserver', definitions: sorted })}\n`,
  );
  console.log(`wrote ${Object.keys(sorted).length} definitions to ${out}`);
} finally {
  await cp.stop();
}
