import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineKind } from '../../../../src/client/kind.ts';
import { spoke } from '../../../../src/runtime/webhook/builder.ts';
import { ConversionWebhook, reviewConversion } from '../../../../src/runtime/webhook/conversion.ts';
import type { SpokeConverter } from '../../../../src/runtime/webhook/types.ts';

// v2 is the hub: spec.replicas (number) and spec.tier (hub only); v1 has spec.size (string).
interface Meta {
  name: string;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  resourceVersion?: string;
  uid?: string;
}
interface HubV2 {
  apiVersion: string;
  kind: string;
  metadata: Meta;
  spec: { replicas: number; tier?: string };
}
interface SpokeV1 {
  apiVersion: string;
  kind: string;
  metadata: Meta;
  spec: { size: string };
}

const base = { group: 'example.com', kind: 'Widget', plural: 'widgets', namespaced: true };
const V2 = defineKind<HubV2>({ ...base, version: 'v2' });
const V1 = defineKind<SpokeV1>({ ...base, version: 'v1' });
const V3 = defineKind<{ spec: { count: number } }>({ ...base, version: 'v3' });
const TIER = 'example.com/tier';

const v1: SpokeConverter<SpokeV1, HubV2> = {
  convertTo(s) {
    const { [TIER]: tier, ...annotations } = s.metadata.annotations ?? {};
    return {
      ...s,
      metadata: { ...s.metadata, annotations },
      spec: { replicas: Number(s.spec.size), ...(tier ? { tier } : {}) },
    };
  },
  convertFrom(h) {
    const annotations = { ...h.metadata.annotations, ...(h.spec.tier ? { [TIER]: h.spec.tier } : {}) };
    return { ...h, metadata: { ...h.metadata, annotations }, spec: { size: String(h.spec.replicas) } };
  },
};

function webhook(): ConversionWebhook {
  const w = new ConversionWebhook(V2);
  w.addSpoke(spoke(V1, v1));
  w.addSpoke(
    spoke<{ spec: { count: number } }, HubV2>(V3, {
      convertTo: (s) => ({
        apiVersion: '',
        kind: '',
        metadata: { name: '' },
        spec: { replicas: s.spec.count },
      }),
      convertFrom: (h) => ({ spec: { count: h.spec.replicas } }),
    }),
  );
  return w;
}

const hubObject: HubV2 = {
  apiVersion: 'example.com/v2',
  kind: 'Widget',
  metadata: { name: 'w', resourceVersion: '7', uid: 'abc', labels: { a: 'b' } },
  spec: { replicas: 3, tier: 'gold' },
};

describe('ConversionWebhook', () => {
  it('converts hub → spoke keeping hub-only fields in an annotation, and back unchanged', async () => {
    const w = webhook();
    const down = (await w.convert(hubObject, 'example.com/v1')) as SpokeV1;
    assert.deepEqual(down, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: {
        name: 'w',
        resourceVersion: '7',
        uid: 'abc',
        labels: { a: 'b' },
        annotations: { [TIER]: 'gold' },
      },
      spec: { size: '3' },
    });
    const up = await w.convert(down, 'example.com/v2');
    assert.deepEqual(up, { ...hubObject, metadata: { ...hubObject.metadata, annotations: {} } });
  });

  it('converts spoke → spoke through the hub; metadata other than labels/annotations is the original', async () => {
    const w = webhook();
    const v1Object = (await w.convert(hubObject, 'example.com/v1')) as SpokeV1;
    const v3 = (await w.convert(v1Object, 'example.com/v3')) as {
      apiVersion: string;
      metadata: Meta;
      spec: unknown;
    };
    assert.equal(v3.apiVersion, 'example.com/v3');
    assert.deepEqual(v3.spec, { count: 3 });
    // The v3 converter returned no metadata: the original's is kept, annotations included.
    assert.deepEqual(v3.metadata, v1Object.metadata);
  });

  it('returns an object already in the desired version unchanged', async () => {
    assert.deepEqual(await webhook().convert(hubObject, 'example.com/v2'), hubObject);
  });

  it('refuses a bad registration', () => {
    const w = new ConversionWebhook(V2);
    assert.throws(() => w.addSpoke(spoke(V2, v1 as never)), /is the hub/);
    w.addSpoke(spoke(V1, v1));
    assert.throws(() => w.addSpoke(spoke(V1, v1)), /registered already/);
    assert.throws(
      () => w.addSpoke(spoke(defineKind({ ...base, kind: 'Gadget', version: 'v9' }), v1 as never)),
      /another kind/,
    );
  });
});

describe('reviewConversion', () => {
  const webhooks = new Map([[webhook().groupKind, webhook()]]);

  it('converts every object of a list', async () => {
    const objects = Array.from({ length: 5 }, (_, i) => ({
      ...hubObject,
      metadata: { ...hubObject.metadata, name: `w${i}` },
      spec: { replicas: i },
    }));
    const res = await reviewConversion({ uid: 'r1', desiredAPIVersion: 'example.com/v1', objects }, webhooks);
    assert.equal(res.result.status, 'Success');
    assert.equal(res.uid, 'r1');
    assert.deepEqual(
      (res.convertedObjects as SpokeV1[]).map((o) => [o.apiVersion, o.metadata.name, o.spec.size]),
      objects.map((_, i) => ['example.com/v1', `w${i}`, String(i)]),
    );
  });

  it('fails the review with a clear message', async () => {
    const cases: [unknown[], string, RegExp][] = [
      [
        [{ ...hubObject, apiVersion: 'example.com/v7' }],
        'example.com/v1',
        /has no conversion for version v7 \(known: v2, v1, v3\)/,
      ],
      [[hubObject], 'example.com/v8', /has no conversion for version v8/],
      [
        [{ ...hubObject, kind: 'Gadget' }],
        'example.com/v1',
        /no conversion is registered for Gadget example.com\/v2/,
      ],
      [['not an object'], 'example.com/v1', /no conversion is registered for \(no kind\)/],
      [[hubObject], 'other.com/v1', /cannot convert Widget.example.com to other.com\/v1/],
    ];
    for (const [objects, desired, message] of cases) {
      const res = await reviewConversion({ uid: 'r2', desiredAPIVersion: desired, objects }, webhooks);
      assert.equal(res.result.status, 'Failure');
      assert.match(res.result.message ?? '', message);
      assert.deepEqual(res.convertedObjects, []);
    }
  });

  it('a converter that throws fails the review naming the object and versions', async () => {
    const w = new ConversionWebhook(V2);
    w.addSpoke(
      spoke(V1, {
        convertTo: () => {
          throw new Error('size is not a number');
        },
        convertFrom: v1.convertFrom,
      }),
    );
    const res = await reviewConversion(
      {
        uid: 'r3',
        desiredAPIVersion: 'example.com/v2',
        objects: [{ ...hubObject, apiVersion: 'example.com/v1' }],
      },
      new Map([[w.groupKind, w]]),
    );
    assert.equal(
      res.result.message,
      'converting Widget "w" from example.com/v1 to example.com/v2 failed: size is not a number',
    );
  });
});
