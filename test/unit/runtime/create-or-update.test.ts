import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Condition } from '../../../src/api-types/index.ts';
import type { Kind } from '../../../src/client/kind.ts';
import type { ObjectKey, ObjectLike } from '../../../src/client/resource-client.ts';
import {
  findCondition,
  isConditionTrue,
  removeCondition,
  setCondition,
} from '../../../src/runtime/conditions.ts';
import { createOrUpdate } from '../../../src/runtime/create-or-update.ts';
import type { ReconcileClient } from '../../../src/runtime/reconcile-client.ts';

interface ConfigMap extends ObjectLike {
  data?: Record<string, string>;
}
const CM = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
} as unknown as Kind<ConfigMap>;
const KEY: ObjectKey = { namespace: 'ns', name: 'cfg' };

/** The three ReconcileClient calls createOrUpdate makes, recorded; `stored` is what get returns. */
function fakeClient(stored: ConfigMap | undefined): { client: ReconcileClient; calls: string[] } {
  const calls: string[] = [];
  const client = {
    async get(_kind: unknown, key: ObjectKey) {
      calls.push(`get ${key.namespace}/${key.name}`);
      return stored;
    },
    async create(_kind: unknown, obj: ConfigMap) {
      calls.push(`create ${JSON.stringify(obj.data)}`);
      return { ...obj, metadata: { ...obj.metadata, resourceVersion: '1' } };
    },
    async update(_kind: unknown, obj: ConfigMap) {
      calls.push(`update rv=${obj.metadata?.resourceVersion} ${JSON.stringify(obj.data)}`);
      return { ...obj, metadata: { ...obj.metadata, resourceVersion: '8' } };
    },
  };
  return { client: client as unknown as ReconcileClient, calls };
}

const existing = (): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'ns', name: 'cfg', resourceVersion: '7' },
  data: { a: '1' },
});

describe('createOrUpdate', () => {
  it('creates what mutate builds when the object is absent (mutate sees undefined)', async () => {
    const { client, calls } = fakeClient(undefined);
    let saw: ConfigMap | undefined | null = null;
    const out = await createOrUpdate(client, CM, KEY, (current) => {
      saw = current;
      return {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: 'ns', name: 'cfg' },
        data: { a: '1' },
      };
    });
    assert.equal(saw, undefined);
    assert.equal(out.result, 'created');
    assert.equal(out.object.metadata?.resourceVersion, '1');
    assert.deepEqual(calls, ['get ns/cfg', 'create {"a":"1"}']);
  });

  it('writes nothing when mutate changes nothing', async () => {
    const current = existing();
    const { client, calls } = fakeClient(current);
    const out = await createOrUpdate(client, CM, KEY, (c) => c!);
    assert.equal(out.result, 'unchanged');
    assert.equal(out.object, current);
    assert.deepEqual(calls, ['get ns/cfg']);
  });

  it('updates with the read resourceVersion when mutate changes something, on a copy of the cached object', async () => {
    const current = existing();
    const { client, calls } = fakeClient(current);
    const out = await createOrUpdate(client, CM, KEY, (c) => {
      c!.data = { ...c!.data, b: '2' };
      return c!;
    });
    assert.equal(out.result, 'updated');
    assert.equal(out.object.metadata?.resourceVersion, '8');
    assert.deepEqual(calls, ['get ns/cfg', 'update rv=7 {"a":"1","b":"2"}']);
    assert.deepEqual(current.data, { a: '1' }, 'the cached object is not mutated');
  });

  it('passes a write error (Conflict from a stale cache) to the caller', async () => {
    const { client } = fakeClient(existing());
    (client as unknown as { update: () => Promise<never> }).update = async () => {
      throw new Error('409 Conflict');
    };
    await assert.rejects(
      createOrUpdate(client, CM, KEY, (c) => ({ ...c!, data: { a: '2' } })),
      /409 Conflict/,
    );
  });
});

describe('condition helpers', () => {
  const at = () => new Date('2026-03-01T10:00:00.000Z');
  const conditions: Condition[] = setCondition(
    setCondition(undefined, { type: 'Ready', status: 'True', reason: 'Up', message: 'up' }, at),
    { type: 'Degraded', status: 'False', reason: 'Fine', message: 'fine' },
    at,
  );

  it('findCondition finds by type; undefined for a missing type or list', () => {
    assert.deepEqual(findCondition(conditions, 'Ready'), {
      type: 'Ready',
      status: 'True',
      lastTransitionTime: '2026-03-01T10:00:00Z',
      reason: 'Up',
      message: 'up',
    });
    assert.equal(findCondition(conditions, 'Progressing'), undefined);
    assert.equal(findCondition(undefined, 'Ready'), undefined);
  });

  it('isConditionTrue only for status True', () => {
    assert.equal(isConditionTrue(conditions, 'Ready'), true);
    assert.equal(isConditionTrue(conditions, 'Degraded'), false);
    assert.equal(isConditionTrue(conditions, 'Progressing'), false);
    assert.equal(isConditionTrue(undefined, 'Ready'), false);
    const unknown = setCondition(
      conditions,
      { type: 'Ready', status: 'Unknown', reason: 'Lost', message: '?' },
      at,
    );
    assert.equal(isConditionTrue(unknown, 'Ready'), false);
  });

  it('removeCondition drops one type, keeps the rest and the input', () => {
    assert.deepEqual(
      removeCondition(conditions, 'Ready').map((c) => c.type),
      ['Degraded'],
    );
    assert.equal(conditions.length, 2, 'the input is not mutated');
    assert.deepEqual(removeCondition(conditions, 'Progressing'), conditions);
    assert.deepEqual(removeCondition(undefined, 'Ready'), []);
  });
});
