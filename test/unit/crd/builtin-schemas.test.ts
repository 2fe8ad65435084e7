import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import {
  builtinSchemaFor,
  clientNodeNames,
  GO_MARKER_FIXES,
  K8S_SCHEMAS_VERSION,
} from '../../../src/generate/crd/builtin-schemas.ts';
import type { JSONSchemaProps } from '../../../src/api-types/json-schema.ts';

/**
 * controller-gen v0.23.0's CRD for test/fixtures/crd-k8s/go (a spec with corev1 PodTemplateSpec,
 * ResourceRequirements, Toleration and LocalObjectReference fields). Regenerate with
 * scripts/regenerate-crd-k8s-golden.sh.
 */
const GOLDEN = new URL('../../golden/crd-k8s/controller-gen-k8s-types.yaml', import.meta.url);

interface Crd {
  spec: {
    versions: {
      schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, JSONSchemaProps> } } } };
    }[];
  };
}
const spec = (parse(readFileSync(GOLDEN, 'utf8')) as Crd).spec.versions[0]!.schema.openAPIV3Schema.properties
  .spec.properties;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Descriptions compared with whitespace collapsed: the served OpenAPI joins Go comment lines with spaces. */
function normalize(value: unknown, dropTopDescription: boolean): Json {
  const walk = (v: unknown, top: boolean): Json => {
    if (Array.isArray(v)) return v.map((x) => walk(x, false));
    if (v !== null && typeof v === 'object') {
      const out: { [k: string]: Json } = {};
      for (const k of Object.keys(v).sort()) {
        const x = (v as Record<string, unknown>)[k];
        if (k === 'description') {
          if (!(top && dropTopDescription)) out[k] = String(x).replace(/\s+/g, ' ').trim();
        } else out[k] = walk(x, false);
      }
      return out;
    }
    return v as Json;
  };
  return walk(value, true);
}

describe('builtinSchemaFor: Kubernetes types as controller-gen emits them', () => {
  // The top-level description is the user's field comment, set by the generator core.
  for (const [field, type] of [
    ['template', 'V1PodTemplateSpec'],
    ['resources', 'V1ResourceRequirements'],
    ['pullSecret', 'V1LocalObjectReference'],
  ] as const) {
    it(`${type} equals controller-gen's schema of the Go type`, () => {
      assert.deepEqual(normalize(builtinSchemaFor(type), true), normalize(spec[field], true));
    });
  }

  it('V1Toleration (as list items) equals controller-gen', () => {
    assert.deepEqual(
      normalize(builtinSchemaFor('V1Toleration'), false),
      normalize(spec.tolerations?.items, false),
    );
  });

  it('reduces embedded ObjectMeta to {type: object}, as controller-gen does by default', () => {
    const meta = builtinSchemaFor('V1PodTemplateSpec')?.properties?.metadata;
    assert.equal(meta?.type, 'object');
    assert.equal(meta?.properties, undefined);
  });

  it('maps Quantity and IntOrString to int-or-string', () => {
    const limits = builtinSchemaFor('V1ResourceRequirements')?.properties?.limits?.additionalProperties;
    assert.ok(typeof limits === 'object' && limits['x-kubernetes-int-or-string'] === true && limits.pattern);
    const port = builtinSchemaFor('V1HTTPGetAction')?.properties?.port;
    assert.equal(port?.['x-kubernetes-int-or-string'], true);
  });

  it('names models like client-node, with the group where two groups share a name', () => {
    const names = clientNodeNames();
    assert.equal(names.get('V1PodTemplateSpec'), 'io.k8s.api.core.v1.PodTemplateSpec');
    assert.equal(names.get('CoreV1Event'), 'io.k8s.api.core.v1.Event');
    assert.equal(names.get('EventsV1Event'), 'io.k8s.api.events.v1.Event');
    assert.equal(names.get('V1Deployment'), 'io.k8s.api.apps.v1.Deployment');
    assert.equal(builtinSchemaFor('V1NoSuchThing'), undefined);
  });

  it('returns a copy each time (callers may edit it)', () => {
    const a = builtinSchemaFor('V1LocalObjectReference')!;
    a.description = 'changed';
    assert.notEqual(builtinSchemaFor('V1LocalObjectReference')!.description, 'changed');
  });

  it('every Go marker fix names a definition and properties of the schema data (none rots silently)', () => {
    const data = JSON.parse(
      readFileSync(new URL(`../../../data/k8s-schemas/${K8S_SCHEMAS_VERSION}.json`, import.meta.url), 'utf8'),
    ) as { definitions: Record<string, { properties?: Record<string, unknown> }> };
    const problems: string[] = [];
    for (const [name, fix] of Object.entries(GO_MARKER_FIXES)) {
      const def = data.definitions[name];
      if (!def) {
        problems.push(`${name}: no such definition`);
        continue;
      }
      const props = [
        ...(fix.dropDefaults ?? []),
        ...Object.keys(fix.itemDescriptions ?? {}),
        ...Object.keys(fix.validations ?? {}),
      ];
      for (const prop of props)
        if (!def.properties?.[prop]) problems.push(`${name}.${prop}: no such property`);
    }
    assert.deepEqual(problems, []);
  });

  it("applies the declarative-validation markers the served OpenAPI lacks (controller-gen's +k8s: markers)", () => {
    const responders = builtinSchemaFor('V1PodSpec')?.properties?.evictionResponders;
    assert.equal(responders?.maxItems, 10);
    assert.equal(responders?.items?.properties?.name?.minLength, 1);
    assert.equal(responders?.items?.properties?.priority?.minimum, 0);
    assert.equal(responders?.items?.properties?.priority?.maximum, 100000);
  });
});
