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
import { parse } from 'yaml';
import { generateCrds } from '../../../src/generate/crd/index.ts';
import { builtinSchemaFor, selectedK8sRelease } from '../../../src/generate/crd/builtin-schemas.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';

const FIXTURE = new URL('../../fixtures/crd/', import.meta.url).pathname;

type Obj = Record<string, unknown>;

function codeOf(err: unknown): number | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? (err.code as number) : undefined;
}

function bodyOf(err: unknown): string {
  return typeof err === 'object' && err !== null && 'body' in err ? String(err.body) : String(err);
}

const validSpec = (): Obj => ({
  replicas: 2,
  mode: 'active',
  containers: [{ name: 'web', image: 'nginx', ports: [80], cpu: '500m' }],
  region: 'eu',
  domain: 'shop.example.com',
});

/** `n` labels. */
const labels = (n: number): Record<string, string> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${i}`, 'v']));

/** Each validation kind: a spec change the API server must accept, and one it must reject. */
const CASES: { kind: string; accept: (s: Obj) => void; reject: (s: Obj) => void; message: RegExp }[] = [
  {
    kind: 'minimum',
    accept: (s) => (s.replicas = 0),
    reject: (s) => (s.replicas = -1),
    message: /spec\.replicas in body should be greater than or equal to 0/,
  },
  {
    kind: 'maximum',
    accept: (s) => (s.replicas = 100),
    reject: (s) => (s.replicas = 101),
    message: /spec\.replicas in body should be less than or equal to 100/,
  },
  {
    kind: 'exclusiveMinimum',
    accept: (s) => (s.minReplicas = 1),
    reject: (s) => (s.minReplicas = 0),
    message: /spec\.minReplicas in body should be greater than 0/,
  },
  {
    kind: 'multipleOf',
    accept: (s) => (s.step = 4),
    reject: (s) => (s.step = 3),
    message: /spec\.step in body should be a multiple of 2/,
  },
  {
    kind: 'pattern (via a type alias)',
    accept: (s) => ((s.containers as Obj[])[0]!.name = 'web-1'),
    reject: (s) => ((s.containers as Obj[])[0]!.name = 'Web_1'),
    message: /spec\.containers\[0\]\.name in body should match '\^\[a-z0-9\]/,
  },
  {
    kind: 'enum (literal union)',
    accept: (s) => (s.mode = 'standby'),
    reject: (s) => (s.mode = 'broken'),
    message: /spec\.mode: Unsupported value: "broken": supported values: "active", "standby"/,
  },
  {
    kind: 'enum (TypeScript enum)',
    accept: (s) => (s.logLevel = 'warn'),
    reject: (s) => (s.logLevel = 'trace'),
    message: /spec\.logLevel: Unsupported value: "trace": supported values: "debug", "info", "warn"/,
  },
  {
    kind: 'enum (marker)',
    accept: (s) => (s.tier = 'gold'),
    reject: (s) => (s.tier = 'platinum'),
    message: /spec\.tier: Unsupported value: "platinum": supported values: "bronze", "silver", "gold"/,
  },
  {
    kind: 'required',
    accept: (s) => delete s.color,
    reject: (s) => delete s.region,
    message: /spec\.region: Required value/,
  },
  {
    kind: 'listType=map duplicate keys',
    accept: (s) =>
      (s.containers = [
        { name: 'a', image: 'x' },
        { name: 'b', image: 'x' },
      ]),
    reject: (s) =>
      (s.containers = [
        { name: 'a', image: 'x' },
        { name: 'a', image: 'y' },
      ]),
    message: /spec\.containers\[1\]: Duplicate value: \{"name":"a"\}/,
  },
  {
    kind: 'listType=set duplicates',
    accept: (s) => (s.tags = ['a', 'b']),
    reject: (s) => (s.tags = ['a', 'a']),
    message: /spec\.tags\[1\]: Duplicate value: "a"/,
  },
  {
    kind: 'maxItems',
    accept: (s) => (s.containers = Array.from({ length: 10 }, (_, i) => ({ name: `c${i}`, image: 'x' }))),
    reject: (s) => (s.containers = Array.from({ length: 11 }, (_, i) => ({ name: `c${i}`, image: 'x' }))),
    message: /spec\.containers: Too many: 11: must have at most 10 items/,
  },
  {
    kind: 'minItems',
    accept: () => undefined,
    reject: (s) => (s.containers = []),
    message: /spec\.containers in body should have at least 1 items/,
  },
  {
    kind: 'items:maximum',
    accept: (s) => (s.scores = [0, 5]),
    reject: (s) => (s.scores = [6]),
    message: /spec\.scores\[0\] in body should be less than or equal to 5/,
  },
  {
    kind: 'maxProperties',
    accept: (s) => (s.labels = labels(16)),
    reject: (s) => (s.labels = labels(17)),
    message: /spec\.labels: Too many: 17: must have at most 16 items/,
  },
  {
    kind: 'minProperties',
    accept: (s) => (s.labels = labels(1)),
    reject: (s) => (s.labels = {}),
    message: /spec\.labels in body should have at least 1 properties/,
  },
  {
    kind: 'format ipv4',
    accept: (s) => (delete s.domain, (s.ip = '192.168.0.1')),
    reject: (s) => (delete s.domain, (s.ip = 'not-an-ip')),
    message: /spec\.ip in body must be of type ipv4: "not-an-ip"/,
  },
  {
    kind: 'Quantity pattern',
    accept: (s) => (s.limits = { cpu: '1Gi' }),
    reject: (s) => (s.limits = { cpu: 'lots' }),
    message:
      /spec\.limits\.cpu: Invalid value: "lots": spec\.limits\.cpu in body should match '\^\(\\\+\|-\)\?/,
  },
  {
    kind: 'IntOrString',
    accept: (s) => (s.targetPort = 'http'),
    reject: (s) => (s.targetPort = true),
    message: /spec\.targetPort in body must be of type integer,string: "boolean"/,
  },
  {
    kind: 'int32 type',
    accept: (s) => (s.replicas = 3),
    reject: (s) => (s.replicas = 'three'),
    message: /spec\.replicas in body must be of type integer: "string"/,
  },
  {
    kind: 'discriminated union',
    accept: (s) => (s.payment = { method: 'card', network: 'visa' }),
    reject: (s) => (s.payment = { method: 'cash' }),
    message: /spec\.payment\.method: Unsupported value: "cash": supported values: "card", "bank"/,
  },
  {
    kind: 'discriminated union (a field of another member)',
    accept: (s) => (s.payment = { method: 'bank', iban: 'DE00' }),
    reject: (s) => (s.payment = { method: 'card', network: 'visa', iban: 'DE00' }),
    message:
      /spec\.payment: Invalid value: when method is 'card', network must be set and iban must not be set/,
  },
  {
    kind: 'maxLength (alias)',
    accept: (s) => (s.secretRef = { name: 'a', key: 'k' }),
    reject: (s) => (s.secretRef = { name: 'a'.repeat(64), key: 'k' }),
    message: /spec\.secretRef\.name: Too long: may not be more than 63 bytes/,
  },
];

describe('generated CRDs on a real API server', { timeout: 180_000, skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane;
  let objects: CustomObjectsApi;
  const out = mkdtempSync(join(tmpdir(), 'op-gen-crd-it-'));
  let counter = 0;

  before(async () => {
    cp = await startControlPlane();
    objects = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  });
  after(async () => {
    await cp?.stop();
    rmSync(out, { recursive: true, force: true });
  });

  const store = (spec: Obj, dryRun = true): Promise<unknown> =>
    objects.createNamespacedCustomObject({
      group: 'shop.example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'stores',
      ...(dryRun ? { dryRun: 'All' } : {}),
      body: { apiVersion: 'shop.example.com/v1', kind: 'Store', metadata: { name: `s${++counter}` }, spec },
    });

  it('creates every fixture CRD and each becomes Established', async () => {
    await generateCrds({ cwd: FIXTURE, apiDir: 'api', outDir: out });
    await generateCrds({ cwd: FIXTURE, apiDir: 'api-cel', outDir: out });
    await generateCrds({ cwd: FIXTURE, apiDir: 'api-k8s', outDir: out });
    // Every Kubernetes type of the built-in type parity test (controller-gen's schemas, +k8s: rules included).
    await generateCrds({ cwd: FIXTURE, apiDir: 'api-k8s-all', outDir: out });
    // The controller-gen parity API too (widgets and gadgetries of shop.example.com), in a folder of its
    // own: its shop.example.com group would make the Store CRD a stale file of its output.
    await generateCrds({ cwd: join(FIXTURE, 'parity'), apiDir: 'api', outDir: join(out, 'parity') });
    const ext = cp.kubeConfig.makeApiClient(ApiextensionsV1Api);
    const files = [
      ...readdirSync(out).filter((f) => f.endsWith('.yaml')),
      ...readdirSync(join(out, 'parity')).map((f) => join('parity', f)),
    ].sort();
    assert.equal(files.length, 8);
    for (const file of files) {
      // The client serialises typed models: loadYaml turns the wire form (x-kubernetes-* keys) into one.
      const crd = loadYaml<V1CustomResourceDefinition>(readFileSync(join(out, file), 'utf8'));
      await ext.createCustomResourceDefinition({ body: crd });
    }
    for (const file of files) {
      const name =
        (parse(readFileSync(join(out, file), 'utf8')) as V1CustomResourceDefinition).metadata?.name ?? '';
      let established = false;
      for (let i = 0; i < 100 && !established; i++) {
        const got = await ext.readCustomResourceDefinition({ name });
        established = !!got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
        if (!established) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(established, `${name} never became Established`);
    }
    // The new resource becomes servable a moment after Established: 404 until then, nothing else.
    let served = false;
    for (let i = 0; i < 200 && !served; i++) {
      try {
        await store(validSpec());
        served = true;
      } catch (err) {
        if (codeOf(err) !== 404) throw new Error(bodyOf(err), { cause: err });
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    assert.ok(served, 'the Store resource was still 404 after 20 s of Established');
  });

  it('accepts the valid base object', async () => {
    await store(validSpec());
  });

  for (const c of CASES) {
    it(`${c.kind}: a valid value is accepted, an invalid one rejected`, async () => {
      const good = validSpec();
      c.accept(good);
      try {
        await store(good);
      } catch (err) {
        assert.fail(`valid object rejected: ${bodyOf(err)}`);
      }
      const bad = validSpec();
      c.reject(bad);
      await assert.rejects(store(bad), (err: unknown) => {
        assert.equal(codeOf(err), 422, bodyOf(err));
        // The rule of this case rejected it, not any other (a 422 alone says only that something did).
        assert.match((JSON.parse(bodyOf(err)) as { message: string }).message, c.message);
        return true;
      });
    });
  }

  // api-k8s-all embeds batchv1.JobTemplateSpec: Kubernetes 1.37's declarative validations (+k8s:) come
  // with controller-gen's schemas, and the served OpenAPI's zero defaults do not.
  const app = (spec: Obj, dryRun = true, name = `a${++counter}`): Promise<unknown> =>
    objects.createNamespacedCustomObject({
      group: 'k8s.example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'apps',
      ...(dryRun ? { dryRun: 'All' } : {}),
      body: { apiVersion: 'k8s.example.com/v1', kind: 'App', metadata: { name }, spec },
    });
  const jobSpec = (job: Obj): Obj => ({ template: {}, jobTemplate: { spec: { template: {}, ...job } } });

  // Job scheduling is new in 1.37 (test:matrix runs this file with OP_GEN_K8S_VERSION=1.35 too).
  const noJobScheduling = builtinSchemaFor('V1JobSchedulingConfiguration') === undefined;
  it(
    "embedded Kubernetes types validate as controller-gen's schemas do (+k8s: rules, no zero defaults)",
    { skip: noJobScheduling && `Kubernetes ${selectedK8sRelease()} has no Job scheduling` },
    async () => {
      for (let i = 0; ; i++) {
        try {
          await app(jobSpec({ scheduling: { resourceClaims: [{ name: 'gpu', resourceClaimName: 'c' }] } }));
          break;
        } catch (err) {
          if (codeOf(err) !== 404 || i === 200) throw new Error(bodyOf(err), { cause: err });
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      // +k8s:required on a string: minLength 1.
      await assert.rejects(
        app(jobSpec({ scheduling: { resourceClaims: [{ name: '' }] } })),
        (err: unknown) => {
          assert.equal(codeOf(err), 422, bodyOf(err));
          assert.match(bodyOf(err), /resourceClaims\[0\]\.name/);
          return true;
        },
      );
      // +k8s:maxItems=1 on schedulingConstraints.topology.
      await assert.rejects(
        app(jobSpec({ scheduling: { schedulingConstraints: { topology: [{ key: 'a' }, { key: 'b' }] } } })),
        (err: unknown) => codeOf(err) === 422 && /topology/.test(bodyOf(err)),
      );
      // No `default: ""` on onPodConditions[].status (the served OpenAPI's zero value).
      const created = (await app(
        jobSpec({
          podFailurePolicy: {
            rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }],
          },
        }),
      )) as {
        spec: { jobTemplate: { spec: { podFailurePolicy: { rules: { onPodConditions: Obj[] }[] } } } };
      };
      const condition = created.spec.jobTemplate.spec.podFailurePolicy.rules[0]!.onPodConditions[0]!;
      assert.equal('status' in condition, false, JSON.stringify(condition));
      // +k8s:immutable on scheduling.disruptionMode: self == oldSelf on an object.
      const name = `a${++counter}`;
      const stored = (await app(
        jobSpec({ scheduling: { disruptionMode: { single: {} } } }),
        false,
        name,
      )) as Obj;
      const changed = structuredClone(stored) as { spec: ReturnType<typeof jobSpec> };
      (changed.spec.jobTemplate as { spec: { scheduling: Obj } }).spec.scheduling.disruptionMode = {
        all: {},
      };
      await assert.rejects(
        objects.replaceNamespacedCustomObject({
          group: 'k8s.example.com',
          version: 'v1',
          namespace: 'default',
          plural: 'apps',
          name,
          body: changed,
        }),
        (err: unknown) => codeOf(err) === 422 && /field is immutable/.test(bodyOf(err)),
      );
    },
  );

  it('defaults are applied and nullable keeps null', async () => {
    const created = (await store({ ...validSpec(), note: null, color: null }, false)) as {
      metadata: { name: string };
      spec: Obj;
    };
    assert.equal(created.spec.opensAt, '09:00', '@default applied');
    assert.equal(created.spec.note, null, 'a nullable field keeps null');
    assert.equal('color' in created.spec, false, 'null on a non-nullable field is dropped');
  });

  it('the cluster-scoped kind with a custom plural works, with its default', async () => {
    const created = (await objects.createClusterCustomObject({
      group: 'infra.example.com',
      version: 'v1',
      plural: 'backuppolicies',
      body: {
        apiVersion: 'infra.example.com/v1',
        kind: 'Backup',
        metadata: { name: 'nightly' },
        spec: { schedule: '0 1 * * *' },
      },
    })) as { spec: Obj };
    assert.equal(created.spec.keep, 7);
    await assert.rejects(
      objects.createClusterCustomObject({
        group: 'infra.example.com',
        version: 'v1',
        plural: 'backuppolicies',
        body: {
          apiVersion: 'infra.example.com/v1',
          kind: 'Backup',
          metadata: { name: 'bad' },
          spec: { schedule: '* *' },
        },
      }),
      (err: unknown) => codeOf(err) === 422,
    );
  });

  const guard = (spec: Obj, name = `g${++counter}`): Promise<unknown> =>
    objects.createNamespacedCustomObject({
      group: 'guard.example.com',
      version: 'v1',
      namespace: 'default',
      plural: 'guards',
      dryRun: 'All',
      body: { apiVersion: 'guard.example.com/v1', kind: 'Guard', metadata: { name }, spec },
    });
  const validGuard = (): Obj => ({ replicas: 2, domain: 'a.example.com', owner: 'me' });
  const CEL_CASES: { kind: string; accept: (s: Obj) => void; reject: (s: Obj) => void; message: RegExp }[] = [
    {
      kind: 'rule on a type',
      accept: (s) => (s.minReplicas = 2),
      reject: (s) => (s.minReplicas = 5),
      message: /minReplicas must not exceed replicas/,
    },
    {
      kind: 'rule with reason and fieldPath',
      accept: (s) => (s.slots = [0]),
      reject: (s) => (s.slots = [-1]),
      message: /slots must not be negative/,
    },
    {
      kind: 'messageExpression',
      accept: (s) => (s.slots = [1, 2]),
      reject: (s) => (s.slots = [1, 2, 3, 4, 5, 6, 7, 8, 9]),
      message: /too many slots/,
    },
    {
      kind: '@exactlyOneOf',
      accept: (s) => (delete s.domain, (s.ip = '10.0.0.1')),
      reject: (s) => (s.ip = '10.0.0.1'),
      message: /exactly one of/,
    },
    {
      kind: '@atMostOneOf',
      accept: (s) => (s.tcp = 80),
      reject: (s) => ((s.tcp = 80), (s.udp = 53)),
      message: /at most one of/,
    },
    {
      kind: '@atLeastOneOf',
      accept: (s) => (delete s.owner, (s.team = 't')),
      reject: (s) => delete s.owner,
      message: /at least one of/,
    },
    {
      kind: '@items:validation',
      accept: (s) => (s.gates = [{ name: 'a', width: 10 }]),
      reject: (s) => (s.gates = [{ name: 'a', width: 11 }]),
      message: /a gate is at most 10 wide/,
    },
  ];

  for (const c of CEL_CASES) {
    it(`CEL ${c.kind}: a valid value is accepted, an invalid one rejected`, async () => {
      const good = validGuard();
      c.accept(good);
      try {
        await guard(good);
      } catch (err) {
        assert.fail(`valid object rejected: ${bodyOf(err)}`);
      }
      const bad = validGuard();
      c.reject(bad);
      await assert.rejects(guard(bad), (err: unknown) => {
        assert.equal(codeOf(err), 422, bodyOf(err));
        assert.match(bodyOf(err), c.message);
        return true;
      });
    });
  }

  it('CEL on the kind, @immutable and a transition rule with optionalOldSelf', async () => {
    await assert.rejects(guard(validGuard(), 'x-bad-name'), (err: unknown) =>
      /guard names start with g/.test(bodyOf(err)),
    );
    const target = { group: 'guard.example.com', version: 'v1', namespace: 'default', plural: 'guards' };
    await objects.createNamespacedCustomObject({
      ...target,
      body: {
        apiVersion: 'guard.example.com/v1',
        kind: 'Guard',
        metadata: { name: 'gate' },
        spec: { ...validGuard(), uid: 'one', state: 2 },
      },
    });
    const current = (await objects.getNamespacedCustomObject({ ...target, name: 'gate' })) as Obj & {
      spec: Obj;
    };
    const replace = (spec: Obj): Promise<unknown> =>
      objects.replaceNamespacedCustomObject({
        ...target,
        name: 'gate',
        body: { ...current, spec: { ...current.spec, ...spec } },
      });
    await assert.rejects(
      replace({ uid: 'two' }),
      (err: unknown) => codeOf(err) === 422 && /field is immutable/.test(bodyOf(err)),
    );
    await assert.rejects(
      replace({ state: 1 }),
      (err: unknown) => codeOf(err) === 422 && /state cannot go back/.test(bodyOf(err)),
    );
    await replace({ state: 3 });
  });

  it('Kubernetes built-in types: an App with a pod template is accepted, a container without name rejected', async () => {
    const app = (containers: Obj[]): Promise<unknown> =>
      objects.createNamespacedCustomObject({
        group: 'apps.example.com',
        version: 'v1',
        namespace: 'default',
        plural: 'apps',
        dryRun: 'All',
        body: {
          apiVersion: 'apps.example.com/v1',
          kind: 'App',
          metadata: { name: `a${++counter}` },
          spec: {
            template: { metadata: { labels: { app: 'x' } }, spec: { containers } },
            resources: { limits: { cpu: '500m' } },
            tolerations: [{ key: 'k', operator: 'Exists' }],
          },
        },
      });
    await app([{ name: 'web', image: 'nginx', ports: [{ containerPort: 80 }] }]);
    await assert.rejects(app([{ image: 'nginx' }]), (err: unknown) => {
      assert.equal(codeOf(err), 422, bodyOf(err));
      assert.match(bodyOf(err), /name/);
      return true;
    });
  });
});
