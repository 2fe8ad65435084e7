import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pluralize } from '../../../src/generate/crd/names.ts';

describe('pluralize (Kubernetes resource names)', () => {
  const cases: [string, string][] = [
    ['Memcached', 'memcacheds'],
    ['Policy', 'policies'],
    ['Gateway', 'gateways'],
    ['Ingress', 'ingresses'],
    ['Box', 'boxes'],
    ['Match', 'matches'],
    ['Mesh', 'meshes'],
    ['Index', 'indices'],
    ['Person', 'people'],
    ['Human', 'humans'],
    ['Endpoints', 'endpoints'],
    ['Status', 'statuses'],
    ['Quiz', 'quizzes'],
  ];
  for (const [kind, plural] of cases) it(`${kind} → ${plural}`, () => assert.equal(pluralize(kind), plural));
});
