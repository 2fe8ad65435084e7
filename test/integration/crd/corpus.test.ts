import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  loadYaml,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { corpusProjects } from '../../../bench/compare/corpus-go.ts';
import { generateCrds } from '../../../src/generate/crd/index.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';

/**
 * The corpus (test/corpus/README.md) on a real API server: for each project, op-gen's CRDs and
 * controller-gen's (expected/; each installed under a group of its own so both are served at once)
 * must get the same verdict: both CRDs accepted or both refused, and for every object below the
 * same outcome (accepted, or refused with the same causes), which must also be the outcome named.
 */

const CORPUS = new URL('../../corpus/', import.meta.url).pathname;
type Obj = Record<string, unknown>;

const pod = (name: string): Obj => ({ spec: { containers: [{ name, image: 'busybox' }] } });
const jobTemplate: Obj = {
  spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } } },
};
const cq = (resources: Obj[], covered = ['cpu']): Obj => ({
  resourceGroups: [{ coveredResources: covered, flavors: [{ name: 'default', resources }] }],
});

/** Per project: per `<plural>/<version>`, specs the API server must accept and specs it must refuse. */
const CASES: Record<string, Record<string, { valid: Obj[]; invalid: Obj[] }>> = {
  'kubebuilder-cronjob': {
    'cronjobs/v1': {
      valid: [
        { schedule: '*/5 * * * *', jobTemplate },
        { schedule: '@daily', jobTemplate, concurrencyPolicy: 'Forbid' },
      ],
      invalid: [
        { schedule: '@daily', jobTemplate, concurrencyPolicy: 'Sometimes' },
        { schedule: '@daily', jobTemplate, startingDeadlineSeconds: -1 },
        { schedule: '@daily' },
        {
          schedule: '@daily',
          jobTemplate: { spec: { template: { spec: { containers: [{ image: 'x' }] } } } },
        },
      ],
    },
  },
  'kubebuilder-multiversion': {
    'cronjobs/v1': {
      valid: [{ schedule: '0 * * * *', jobTemplate }],
      invalid: [{ schedule: { minute: '0' }, jobTemplate }],
    },
    'cronjobs/v2': {
      valid: [{ schedule: { minute: '0', hour: '*/2' }, jobTemplate }],
      invalid: [
        { schedule: '0 * * * *', jobTemplate },
        { schedule: {}, jobTemplate, failedJobsHistoryLimit: -3 },
      ],
    },
  },
  'kubebuilder-memcached': {
    'memcacheds/v1alpha1': {
      valid: [{ size: 1 }, { size: 3 }, {}],
      invalid: [{ size: 0 }, { size: 4 }, { size: '2' }],
    },
  },
  'kubebuilder-project-v4': {
    'admirales/v1': { valid: [{ foo: 'a' }], invalid: [{ foo: 1 }] },
    'captains/v1': { valid: [{ foo: 'a' }], invalid: [{ foo: true }] },
    'firstmates/v1': { valid: [{}], invalid: [{ foo: [] }] },
    'firstmates/v2': { valid: [{ foo: 'b' }], invalid: [{ foo: {} }] },
    'navigators/v1': { valid: [{ foo: 'n' }], invalid: [{ foo: 2 }] },
    'sailors/v1': { valid: [{ foo: 's' }], invalid: [{ foo: false }] },
  },
  lws: {
    'leaderworkersets/v1': {
      valid: [
        { leaderWorkerTemplate: { workerTemplate: pod('w') } },
        {
          replicas: 2,
          startupPolicy: 'LeaderReady',
          leaderWorkerTemplate: { leaderTemplate: pod('l'), workerTemplate: pod('w'), size: 4 },
          rolloutStrategy: {
            type: 'RollingUpdate',
            rollingUpdateConfiguration: { maxUnavailable: '50%', maxSurge: 1 },
          },
          networkConfig: { subdomainPolicy: 'Shared' },
        },
      ],
      invalid: [
        { replicas: 2000000, leaderWorkerTemplate: { workerTemplate: pod('w') } },
        { startupPolicy: 'Never', leaderWorkerTemplate: { workerTemplate: pod('w') } },
        { leaderWorkerTemplate: { workerTemplate: pod('w') }, networkConfig: {} },
        {
          leaderWorkerTemplate: { workerTemplate: pod('w') },
          rolloutStrategy: { type: 'RollingUpdate', rollingUpdateConfiguration: { maxSurge: true } },
        },
        { leaderWorkerTemplate: {} },
      ],
    },
  },
  jobset: {
    'jobsets/v1alpha2': {
      valid: [{ replicatedJobs: [{ name: 'workers', template: jobTemplate, replicas: 2 }] }],
      invalid: [
        {
          replicatedJobs: [
            { name: 'a', template: jobTemplate },
            { name: 'a', template: jobTemplate },
          ],
        },
        {
          replicatedJobs: [{ name: 'a', template: jobTemplate, dependsOn: [{ name: 'b', status: 'Ready' }] }],
          startupPolicy: { startupPolicyOrder: 'InOrder' },
        },
        { replicatedJobs: [{ name: 'a', template: jobTemplate }], successPolicy: { operator: 'Some' } },
      ],
    },
  },
  kueue: {
    'clusterqueues/v1beta2': {
      valid: [
        cq([{ name: 'cpu', nominalQuota: '10' }]),
        { cohortName: 'all', ...cq([{ name: 'cpu', nominalQuota: '500m', borrowingLimit: 2 }]) },
      ],
      invalid: [
        cq([{ name: 'cpu', nominalQuota: 'ten' }]),
        cq([{ name: 'cpu', nominalQuota: 1, borrowingLimit: 1 }]),
        cq([{ name: 'cpu', nominalQuota: 1 }], ['cpu', 'memory']),
        { queueingStrategy: 'LIFO' },
        { preemption: { reclaimWithinCohort: 'Never', borrowWithinCohort: { policy: 'LowerPriority' } } },
      ],
    },
    'cohorts/v1beta2': { valid: [{ parentName: 'root' }], invalid: [{ parentName: 'Not_A_Name' }] },
    'resourceflavors/v1beta2': {
      valid: [{ nodeLabels: { zone: 'a' }, tolerations: [{ key: 'k', operator: 'Equal', value: 'v' }] }],
      invalid: [
        { topologyName: 'default' },
        { tolerations: [{ key: 'k', operator: 'Near' }] },
        { nodeLabels: Object.fromEntries([...Array(9).keys()].map((i) => [`k${i}`, 'v'])) },
      ],
    },
    'topologies/v1beta2': {
      valid: [{ levels: [{ nodeLabel: 'cloud.example.com/zone' }, { nodeLabel: 'kubernetes.io/hostname' }] }],
      invalid: [
        { levels: [{ nodeLabel: 'kubernetes.io/hostname' }, { nodeLabel: 'cloud.example.com/zone' }] },
        { levels: [{ nodeLabel: 'zone' }, { nodeLabel: 'zone' }] },
        { levels: [] },
        { levels: [{ nodeLabel: 'bad label' }] },
      ],
    },
  },
  'flux-notification': {
    'receivers/v1': {
      valid: [
        { type: 'github', resources: [{ kind: 'GitRepository', name: 'app' }], secretRef: { name: 's' } },
      ],
      invalid: [
        { type: 'generic-oidc', resources: [{ kind: 'GitRepository', name: 'app' }] },
        { type: 'svn', resources: [], secretRef: { name: 's' } },
        { type: 'github', interval: '10 minutes', resources: [], secretRef: { name: 's' } },
        { type: 'github', resources: [{ kind: 'Deployment', name: 'x' }], secretRef: { name: 's' } },
      ],
    },
    'alerts/v1beta3': {
      valid: [{ providerRef: { name: 'p' }, eventSources: [{ kind: 'Kustomization', name: '*' }] }],
      invalid: [
        { providerRef: { name: 'p' }, eventSources: [], eventSeverity: 'warn' },
        { providerRef: { name: 'p' }, eventSources: [], summary: 'x'.repeat(256) },
      ],
    },
    'providers/v1beta3': {
      valid: [
        { type: 'github', commitStatusExpr: "'x'" },
        { type: 'slack', timeout: '30s' },
      ],
      invalid: [
        { type: 'slack', commitStatusExpr: "'x'" },
        { type: 'slack', proxy: 'ftp://p' },
        { type: 'slack', timeout: '1h' },
      ],
    },
  },
};

type Verdict = 'accepted' | { refused: string[] };

const codeOf = (err: unknown): number | undefined =>
  typeof err === 'object' && err !== null && 'code' in err ? (err.code as number) : undefined;
const bodyOf = (err: unknown): string =>
  typeof err === 'object' && err !== null && 'body' in err ? String(err.body) : String(err);

/** The causes of a refusal, without the group (which differs between the two CRDs by design). */
function causes(err: unknown, group: string): string[] {
  let body: { details?: { causes?: { field?: string; message?: string }[] }; message?: string };
  try {
    body = JSON.parse(bodyOf(err)) as typeof body;
  } catch {
    return [bodyOf(err)];
  }
  const list = body.details?.causes?.map((c) => `${c.field ?? ''}: ${c.message ?? ''}`) ?? [
    body.message ?? '',
  ];
  return list.map((c) => c.replaceAll(group, '<group>')).sort();
}

describe(
  'corpus CRDs on a real API server: op-gen and controller-gen give the same verdicts',
  { timeout: 600_000, skip: controlPlaneSkip() },
  () => {
    let cp: ControlPlane;
    let crds: ApiextensionsV1Api;
    let objects: CustomObjectsApi;
    const work = mkdtempSync(join(tmpdir(), 'op-gen-corpus-it-'));
    let counter = 0;

    before(async () => {
      cp = await startControlPlane();
      crds = cp.kubeConfig.makeApiClient(ApiextensionsV1Api);
      objects = cp.kubeConfig.makeApiClient(CustomObjectsApi);
    });
    after(async () => {
      await cp?.stop();
      rmSync(work, { recursive: true, force: true });
    });

    async function create(crd: V1CustomResourceDefinition, version: string, spec: Obj): Promise<Verdict> {
      const { group, names, scope } = crd.spec;
      const body = {
        apiVersion: `${group}/${version}`,
        kind: names.kind,
        metadata: { name: `o${++counter}` },
        spec,
      };
      try {
        if (scope === 'Cluster') {
          await objects.createClusterCustomObject({
            group,
            version,
            plural: names.plural,
            dryRun: 'All',
            body,
          });
        } else {
          await objects.createNamespacedCustomObject({
            group,
            version,
            namespace: 'default',
            plural: names.plural,
            dryRun: 'All',
            body,
          });
        }
        return 'accepted';
      } catch (err) {
        if (codeOf(err) !== 422 && codeOf(err) !== 400) throw new Error(bodyOf(err), { cause: err });
        return { refused: causes(err, group) };
      }
    }

    /** Installs a CRD; its refusal, or undefined once its first version serves objects. */
    async function install(crd: V1CustomResourceDefinition, probe: Obj): Promise<string | undefined> {
      try {
        await crds.createCustomResourceDefinition({ body: crd });
      } catch (err) {
        if (codeOf(err) !== 422) throw new Error(bodyOf(err), { cause: err });
        return (JSON.parse(bodyOf(err)) as { message: string }).message
          .replaceAll(crd.metadata!.name!, '<name>')
          .replaceAll(crd.spec.group, '<group>');
      }
      const version = crd.spec.versions.find((v) => v.served)!.name;
      for (let i = 0; i < 300; i++) {
        try {
          await create(crd, version, probe);
          return undefined;
        } catch (err) {
          if (!/404|not found/i.test(String(err))) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      throw new Error(`${crd.metadata?.name} never served objects`);
    }

    for (const [project, byResource] of Object.entries(CASES)) {
      it(`${project}: same CRD verdicts and same object verdicts, as expected`, async () => {
        const out = join(work, project);
        const embedded = corpusProjects()[project]?.generateEmbeddedObjectMeta === true;
        await generateCrds({
          cwd: join(CORPUS, project),
          apiDir: 'api',
          outDir: out,
          maxDescLen: 0,
          generateEmbeddedObjectMeta: embedded,
        });
        const files = readdirSync(join(CORPUS, project, 'expected')).sort();
        assert.deepEqual(readdirSync(out).sort(), files);
        let checked = 0;
        for (const file of files) {
          const ours = loadYaml<V1CustomResourceDefinition>(readFileSync(join(out, file), 'utf8'));
          const theirs = loadYaml<V1CustomResourceDefinition>(
            readFileSync(join(CORPUS, project, 'expected', file), 'utf8'),
          );
          // Each CRD under a group of its own, so that both are served at once and no project's CRD
          // meets another's (kubebuilder-cronjob and kubebuilder-multiversion share a name).
          for (const [crd, tool] of [
            [ours, 'og'],
            [theirs, 'cg'],
          ] as const) {
            crd.spec.group = `${tool}-${project}.${crd.spec.group}`;
            crd.metadata = { ...crd.metadata, name: `${crd.spec.names.plural}.${crd.spec.group}` };
          }
          const cases = Object.entries(byResource).filter(([key]) =>
            key.startsWith(`${ours.spec.names.plural}/`),
          );
          assert.ok(cases.length > 0, `${file} has object cases`);
          const probe = cases[0]![1].valid[0]!;
          const ourRefusal = await install(ours, probe);
          const theirRefusal = await install(theirs, probe);
          assert.equal(ourRefusal, theirRefusal, `${file}: the API server's verdict on the CRD`);
          assert.equal(ourRefusal, undefined, `${file}: the API server accepts the CRD`);
          for (const [key, { valid, invalid }] of cases) {
            const version = key.split('/')[1]!;
            for (const [expect, specs] of [
              ['accepted', valid],
              ['refused', invalid],
            ] as const) {
              for (const spec of specs) {
                const a = await create(ours, version, spec);
                const b = await create(theirs, version, spec);
                assert.deepEqual(
                  a,
                  b,
                  `${key} ${JSON.stringify(spec)}: op-gen ${JSON.stringify(a)} vs controller-gen ${JSON.stringify(b)}`,
                );
                assert.equal(
                  a === 'accepted' ? 'accepted' : 'refused',
                  expect,
                  `${key} ${JSON.stringify(spec)}: ${JSON.stringify(a)}`,
                );
                checked++;
              }
            }
          }
        }
        assert.ok(checked >= 3, `${project}: ${checked} objects checked`);
      });
    }
  },
);
