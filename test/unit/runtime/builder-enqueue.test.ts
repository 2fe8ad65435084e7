import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Kind } from '../../../src/client/kind.ts';
import type { ObjectLike } from '../../../src/client/resource-client.ts';
import { ControllerBuilder, type BuilderHost } from '../../../src/runtime/builder.ts';
import { builtinKinds } from '../../../src/runtime/builtin-kinds.ts';
import type { Controller } from '../../../src/runtime/controller.ts';
import { InformerStore, type InformerHandlers } from '../../../src/runtime/informer-store.ts';
import { predicate } from '../../../src/runtime/predicates.ts';
import { LOW_PRIORITY } from '../../../src/runtime/workqueue.ts';
import { Thing } from '../../helpers/runtime-fakes.ts';

/**
 * The informer handler → queue path of a built controller: the for-kind's key is the one the store
 * computed (handed to the handler), and an event enqueues each key once, as controller-runtime's
 * handlers do (an update of a for-kind object was two adds of one key).
 */
const ConfigMap = builtinKinds.ConfigMap as Kind<ObjectLike>;

function build(configure: (b: ControllerBuilder<ObjectLike>) => ControllerBuilder<ObjectLike>): {
  handlers: Map<string, InformerHandlers<ObjectLike>>;
  enqueued: string[];
} {
  const handlers = new Map<string, InformerHandlers<ObjectLike>>();
  const enqueued: string[] = [];
  const stub = {
    enqueue: (key: string, priority?: number) =>
      void enqueued.push(priority === undefined ? key : `${key}@${priority}`),
  };
  const host: BuilderHost = {
    cache: {
      addHandlers: (kind: Kind<ObjectLike>, h: InformerHandlers<ObjectLike>) => handlers.set(kind.kind, h),
    } as unknown as BuilderHost['cache'],
    register: () => undefined,
    newController: () => stub as unknown as Controller<never>,
  };
  configure(new ControllerBuilder(host, 'things')).complete({ reconcile: async () => undefined });
  return { handlers, enqueued };
}

const thing = (name: string, rv = '1'): ObjectLike => ({
  metadata: { name, namespace: 'ns', resourceVersion: rv },
});
const ownedBy = (owner: string, rv = '1'): ObjectLike => ({
  metadata: {
    name: 'cm',
    namespace: 'ns',
    resourceVersion: rv,
    ownerReferences: [
      { apiVersion: 'test.op-gen.dev/v1', kind: 'Thing', name: owner, uid: owner, controller: true },
    ],
  } as ObjectLike['metadata'],
});

describe('builder: informer events to the queue', () => {
  it('the for-kind enqueues the key the store hands over (objectKey when none)', () => {
    const { handlers, enqueued } = build((b) => b.for(Thing));
    const h = handlers.get('Thing')!;
    h.onAdd?.(thing('a'), true, 'ns/a');
    h.onAdd?.(thing('b'), false);
    h.onUpdate?.(thing('a'), thing('a', '2'), 'ns/a');
    assert.deepEqual(enqueued, [`ns/a@${LOW_PRIORITY}`, 'ns/b', 'ns/a']);
    // The key given wins (the store's string, computed once per object).
    h.onAdd?.(thing('c'), false, 'the/store-key');
    assert.equal(enqueued.at(-1), 'the/store-key');
  });

  it('an InformerStore hands its key to onAdd and onUpdate', () => {
    const store = new InformerStore<ObjectLike>();
    const keys: (string | undefined)[] = [];
    store.addHandlers({
      onAdd: (_o, _i, key) => keys.push(key),
      onUpdate: (_o, _n, key) => keys.push(key),
    });
    store.apply({ type: 'list', objects: [thing('a'), thing('b')], resourceVersion: '1' });
    store.apply({ type: 'applied', object: thing('a', '2') });
    assert.deepEqual(keys, ['ns/a', 'ns/b', 'ns/a']);
  });

  it('an update enqueues each key once: for-kind, unchanged owner, owner change', () => {
    const { handlers, enqueued } = build((b) => b.for(Thing).owns(ConfigMap));
    handlers.get('Thing')!.onUpdate?.(thing('a'), thing('a', '2'), 'ns/a');
    assert.deepEqual(enqueued.splice(0), ['ns/a'], 'one add per for-kind update');
    const owned = handlers.get('ConfigMap')!;
    owned.onUpdate?.(ownedBy('p'), ownedBy('p', '2'), 'ns/cm');
    assert.deepEqual(enqueued.splice(0), ['ns/p'], 'the same owner once');
    owned.onUpdate?.(ownedBy('p', '2'), ownedBy('q', '3'), 'ns/cm');
    assert.deepEqual(enqueued.splice(0), ['ns/q', 'ns/p'], 'new owner, then the old one');
    const same = ownedBy('p', '3');
    owned.onUpdate?.(same, same, 'ns/cm');
    assert.deepEqual(enqueued.splice(0), [`ns/p@${LOW_PRIORITY}`], 'a resync: low priority, once');
  });

  it('predicates still filter every event', () => {
    const { handlers, enqueued } = build((b) =>
      b.for(Thing).withEventFilter(predicate((o) => o.metadata?.name !== 'skip')),
    );
    const h = handlers.get('Thing')!;
    h.onAdd?.(thing('skip'), true, 'ns/skip');
    h.onUpdate?.(thing('skip'), thing('skip', '2'), 'ns/skip');
    h.onDelete?.(thing('skip'));
    h.onDelete?.(thing('keep'));
    assert.deepEqual(enqueued, ['ns/keep']);
  });
});
