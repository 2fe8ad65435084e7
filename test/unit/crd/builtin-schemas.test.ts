import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, it } from 'node:test';
import {
  builtinSchemaFor,
  clientNodeNames,
  k8sSchemaReleases,
  selectedK8sRelease,
} from '../../../src/generate/crd/builtin-schemas.ts';
import { OpGenError } from '../../../src/errors.ts';

/**
 * The schema data (data/k8s-schemas/, made by scripts/generate-k8s-schemas.ts with controller-gen) and
 * its loader. The comparison with controller-gen's CRD on a whole API is test/unit/crd/builtin-types.test.ts.
 */
const DATA = new URL('../../../data/k8s-schemas/', import.meta.url);
const read = <T>(url: URL): T => JSON.parse(readFileSync(url, 'utf8')) as T;

interface Manifest {
  command: string;
  controllerTools: string;
  default: string;
  releases: Record<string, { kubernetes: string; 'k8s.io/api': string; 'k8s.io/apimachinery': string }>;
}
const manifest = read<Manifest>(new URL('manifest.json', DATA));
const versions = read<{ default: string; releases: Record<string, { kubernetes: string }> }>(
  new URL('../../../tools/envtest/versions.json', import.meta.url),
);

const saved = process.env.OP_GEN_K8S_VERSION;
afterEach(() => {
  if (saved === undefined) delete process.env.OP_GEN_K8S_VERSION;
  else process.env.OP_GEN_K8S_VERSION = saved;
});

describe('the built-in type data: one file per supported release, made by controller-gen', () => {
  it('the manifest names the releases of tools/envtest/versions.json, at their k8s.io/api versions', () => {
    assert.equal(manifest.default, versions.default);
    assert.deepEqual(Object.keys(manifest.releases), Object.keys(versions.releases));
    for (const [minor, release] of Object.entries(versions.releases)) {
      const api = `v0.${release.kubernetes.split('.').slice(1).join('.')}`;
      assert.deepEqual(
        { ...manifest.releases[minor], types: undefined, refusedByControllerGen: undefined },
        {
          kubernetes: release.kubernetes,
          'k8s.io/api': api,
          'k8s.io/apimachinery': api,
          types: undefined,
          refusedByControllerGen: undefined,
        },
        `release ${minor}: regenerate with ${manifest.command}`,
      );
    }
    assert.equal(manifest.command, 'node scripts/generate-k8s-schemas.ts');
    assert.match(
      readFileSync(new URL('../../../docs/generate-crd-builtin-types.md', import.meta.url), 'utf8'),
      /node scripts\/generate-k8s-schemas\.ts/,
    );
    assert.deepEqual(k8sSchemaReleases(), Object.keys(versions.releases));
  });

  it('holds exactly one data file per release, each for its Kubernetes version', () => {
    const files = readdirSync(DATA)
      .filter((f) => f !== 'manifest.json')
      .sort();
    assert.deepEqual(
      files,
      Object.keys(versions.releases)
        .map((m) => `v${m}.json`)
        .sort(),
    );
    for (const [minor, release] of Object.entries(versions.releases)) {
      const data = read<{ kubernetes: string; source: string }>(new URL(`v${minor}.json`, DATA));
      assert.equal(data.kubernetes, `v${release.kubernetes}`);
      assert.match(
        data.source,
        new RegExp(
          `controller-gen ${manifest.controllerTools} on k8s.io/api ${manifest.releases[minor]!['k8s.io/api']}`,
        ),
      );
    }
  });

  it('every $ref of every release names a definition (every client-node name inlines)', () => {
    for (const minor of k8sSchemaReleases()) {
      let count = 0;
      for (const name of clientNodeNames(minor).keys()) {
        assert.ok(builtinSchemaFor(name, minor), `${minor}: ${name}`);
        count++;
      }
      assert.ok(count > 600, `${minor}: ${count} names`);
    }
  });
});

describe('builtinSchemaFor', () => {
  it('names models like client-node, with the group where two groups share a name', () => {
    const names = clientNodeNames('1.37');
    assert.equal(names.get('V1PodTemplateSpec'), 'io.k8s.api.core.v1.PodTemplateSpec');
    assert.equal(names.get('CoreV1Event'), 'io.k8s.api.core.v1.Event');
    assert.equal(names.get('EventsV1Event'), 'io.k8s.api.events.v1.Event');
    assert.equal(names.get('V1Deployment'), 'io.k8s.api.apps.v1.Deployment');
    assert.equal(names.get('V1Condition'), 'io.k8s.apimachinery.pkg.apis.meta.v1.Condition');
    assert.equal(builtinSchemaFor('V1NoSuchThing', '1.37'), undefined);
  });

  it("names Kubernetes' named string types the same way, never renaming an object type", () => {
    const names = clientNodeNames('1.37');
    assert.equal(names.get('V1PullPolicy'), 'io.k8s.api.core.v1.PullPolicy');
    assert.equal(names.get('V2MetricTargetType'), 'io.k8s.api.autoscaling.v2.MetricTargetType');
    assert.equal(names.get('MetaV1ConditionStatus'), 'io.k8s.apimachinery.pkg.apis.meta.v1.ConditionStatus');
    assert.equal(names.get('CoreV1ConditionStatus'), 'io.k8s.api.core.v1.ConditionStatus');
    assert.equal(names.get('V1ConditionStatus'), undefined);
    const pull = builtinSchemaFor('V1PullPolicy', '1.37');
    assert.equal(pull?.type, 'string');
    assert.match(pull?.description ?? '', /PullPolicy describes/);
  });

  it('reduces embedded ObjectMeta to {type: object}, as controller-gen does by default', () => {
    const meta = builtinSchemaFor('V1PodTemplateSpec', '1.37')?.properties?.metadata;
    assert.equal(meta?.type, 'object');
    assert.equal(meta?.properties, undefined);
  });

  it('maps Quantity and IntOrString to int-or-string', () => {
    const limits = builtinSchemaFor('V1ResourceRequirements', '1.37')?.properties?.limits
      ?.additionalProperties;
    assert.ok(typeof limits === 'object' && limits['x-kubernetes-int-or-string'] === true && limits.pattern);
    const port = builtinSchemaFor('V1HTTPGetAction', '1.37')?.properties?.port;
    assert.equal(port?.['x-kubernetes-int-or-string'], true);
  });

  it("a nested type gets the field's description, not its type's", () => {
    const spec = builtinSchemaFor('V1PodTemplateSpec', '1.37')?.properties?.spec;
    assert.match(spec?.description ?? '', /^Specification of the desired behavior of the pod/);
    assert.ok(spec?.properties?.containers?.items?.properties?.image);
  });

  it('returns a copy each time (callers may edit it)', () => {
    const a = builtinSchemaFor('V1LocalObjectReference', '1.37')!;
    a.description = 'changed';
    assert.notEqual(builtinSchemaFor('V1LocalObjectReference', '1.37')!.description, 'changed');
  });

  it("carries 1.37's declarative validations (+k8s:) and no default controller-gen does not write", () => {
    const job = builtinSchemaFor('V1JobTemplateSpec', '1.37')?.properties?.spec?.properties;
    const scheduling = job?.scheduling?.properties;
    assert.deepEqual(scheduling?.disruptionMode?.['x-kubernetes-validations'], [
      { message: 'field is immutable', rule: 'self == oldSelf' },
    ]);
    assert.ok(scheduling?.resourceClaims?.['x-kubernetes-validations']);
    const status =
      job?.podFailurePolicy?.properties?.rules?.items?.properties?.onPodConditions?.items?.properties?.status;
    assert.equal(status?.type, 'string');
    assert.equal(status && 'default' in status, false);
    const responders = builtinSchemaFor('V1PodSpec', '1.37')?.properties?.evictionResponders;
    assert.equal(responders?.maxItems, 10);
    assert.equal(responders?.items?.properties?.name?.minLength, 1);
  });

  it('selects the release by OP_GEN_K8S_VERSION, the newest by default', () => {
    delete process.env.OP_GEN_K8S_VERSION;
    assert.equal(selectedK8sRelease(), versions.default);
    process.env.OP_GEN_K8S_VERSION = '1.35';
    assert.equal(selectedK8sRelease(), '1.35');
    // PodSpec.evictionResponders is new in 1.37.
    assert.equal(builtinSchemaFor('V1PodSpec')?.properties?.evictionResponders, undefined);
    process.env.OP_GEN_K8S_VERSION = 'v1.36.3';
    assert.equal(selectedK8sRelease(), '1.36');
    process.env.OP_GEN_K8S_VERSION = '1.20';
    assert.throws(
      () => builtinSchemaFor('V1PodSpec'),
      (e: unknown) =>
        e instanceof OpGenError &&
        /OP_GEN_K8S_VERSION=1\.20 is not a supported Kubernetes release; supported: 1\.35, 1\.36, 1\.37/.test(
          e.message,
        ),
    );
  });
});
