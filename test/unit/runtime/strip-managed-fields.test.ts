import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { stripManagedFields } from '../../../src/runtime/informer.ts';

// V8's own check of whether an object is in fast (shape-sharing) mode, not dictionary mode.
setFlagsFromString('--allow-natives-syntax');
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;

const parsed = () =>
  JSON.parse(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'a',
        namespace: 'ns',
        resourceVersion: '7',
        managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': {} } }],
        labels: { app: 'x' },
      },
      data: { k: 'v' },
    }),
  ) as { metadata: Record<string, unknown>; data: unknown };

describe('stripManagedFields', () => {
  it('drops metadata.managedFields and keeps everything else, in order', () => {
    const obj = stripManagedFields(parsed());
    assert.deepEqual(Object.keys(obj.metadata), ['name', 'namespace', 'resourceVersion', 'labels']);
    assert.deepEqual(obj.metadata.labels, { app: 'x' });
    assert.deepEqual(obj.data, { k: 'v' });
  });

  it('leaves the metadata in fast mode (a delete would make it a dictionary: more heap per object)', () => {
    const obj = stripManagedFields(parsed());
    assert.equal(hasFastProperties(obj.metadata), true);
    const deleted = parsed();
    delete deleted.metadata.managedFields;
    assert.equal(hasFastProperties(deleted.metadata), false, 'the check tells the two apart');
  });

  it('returns an object without managedFields (or metadata) as it is', () => {
    const none = { metadata: { name: 'a' } };
    assert.equal(stripManagedFields(none).metadata, none.metadata);
    const bare = {};
    assert.equal(stripManagedFields(bare), bare);
  });
});
