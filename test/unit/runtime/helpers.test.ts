import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Condition } from '../../../src/api-types/index.ts';
import {
  anyOf,
  conditionUnchanged,
  Expectations,
  FakeClock,
  generationChanged,
  labelMatcher,
  labelsChanged,
  predicate,
  setCondition,
  setControllerReference,
  specDrifted,
  specHash,
  stableJson,
  withFinalizer,
  withoutFinalizer,
  withSpecHash,
} from '../../../src/runtime/index.ts';

describe('setCondition (metav1.Condition semantics)', () => {
  const t0 = () => new Date('2026-01-01T00:00:00.000Z');
  const t1 = () => new Date('2026-01-02T00:00:00.000Z');
  const ready = {
    type: 'Ready',
    status: 'False' as const,
    reason: 'Starting',
    message: 'starting',
    observedGeneration: 1,
  };

  it('adds a condition with the current time, without mutating the input', () => {
    const input: Condition[] = [];
    const out = setCondition(input, ready, t0);
    assert.equal(input.length, 0);
    assert.equal(out[0]?.lastTransitionTime, '2026-01-01T00:00:00Z');
  });

  it('keeps lastTransitionTime when only reason, message or generation change', () => {
    const first = setCondition([], ready, t0);
    const second = setCondition(
      first,
      { ...ready, reason: 'StillStarting', message: 'm', observedGeneration: 2 },
      t1,
    );
    assert.equal(second[0]?.lastTransitionTime, '2026-01-01T00:00:00Z');
    assert.equal(second[0]?.reason, 'StillStarting');
    assert.equal(second[0]?.observedGeneration, 2);
  });

  it('moves lastTransitionTime when the status changes, and keeps other conditions', () => {
    const first = setCondition(setCondition([], ready, t0), { ...ready, type: 'Degraded' }, t0);
    const second = setCondition(first, { ...ready, status: 'True', reason: 'Up' }, t1);
    assert.equal(second.find((c) => c.type === 'Ready')?.lastTransitionTime, '2026-01-02T00:00:00Z');
    assert.equal(second.length, 2);
  });

  it('conditionUnchanged tells when a status write can be skipped', () => {
    const list = setCondition([], ready, t0);
    assert.equal(conditionUnchanged(list, ready), true);
    assert.equal(conditionUnchanged(list, { ...ready, observedGeneration: 2 }), false);
    assert.equal(conditionUnchanged(list, { ...ready, type: 'Other' }), false);
  });
});

describe('setControllerReference', () => {
  const owner = {
    apiVersion: 'cache.example.com/v1',
    kind: 'Memcached',
    metadata: { name: 'm', namespace: 'ns', uid: 'u1' },
  };

  it('adds a controller reference that blocks owner deletion', () => {
    const child = setControllerReference(owner, { metadata: { name: 'c', namespace: 'ns' } });
    const ref = (child.metadata as { ownerReferences?: unknown[] }).ownerReferences;
    assert.deepEqual(ref, [
      {
        apiVersion: 'cache.example.com/v1',
        kind: 'Memcached',
        name: 'm',
        uid: 'u1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  });

  it('refuses a second controller, a cross-namespace child and an owner not read from the API', () => {
    const other = {
      metadata: {
        name: 'c',
        namespace: 'ns',
        ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u2', controller: true }],
      },
    };
    assert.throws(() => setControllerReference(owner, other), /already controlled by X x/);
    assert.throws(
      () => setControllerReference(owner, { metadata: { name: 'c', namespace: 'elsewhere' } }),
      /cannot own an object in namespace elsewhere/,
    );
    assert.throws(
      () => setControllerReference({ ...owner, metadata: { name: 'm' } }, { metadata: { name: 'c' } }),
      /metadata\.uid/,
    );
  });
});

describe('finalizer edits', () => {
  it('adds once and removes, returning copies', () => {
    const obj = { metadata: { name: 'a', finalizers: ['x'] } };
    const added = withFinalizer(obj, 'mine');
    assert.deepEqual((added.metadata as { finalizers: string[] }).finalizers, ['x', 'mine']);
    assert.equal(withFinalizer(added, 'mine'), added, 'unchanged when present');
    assert.deepEqual((withoutFinalizer(added, 'mine').metadata as { finalizers: string[] }).finalizers, [
      'x',
    ]);
    assert.deepEqual(obj.metadata.finalizers, ['x'], 'input not mutated');
  });
});

describe('spec hash', () => {
  it('is stable under key order and detects drift', () => {
    assert.equal(specHash({ a: 1, b: { c: [1, 2] } }), specHash({ b: { c: [1, 2] }, a: 1 }));
    assert.notEqual(specHash({ a: 1 }), specHash({ a: 2 }));
    assert.equal(stableJson({ b: 1, a: undefined, c: [{ z: 1, y: 2 }] }), '{"b":1,"c":[{"y":2,"z":1}]}');
    const child = withSpecHash({ metadata: { name: 'c' } }, { replicas: 2 });
    assert.equal(specDrifted(child, { replicas: 2 }), false);
    assert.equal(specDrifted(child, { replicas: 3 }), true);
    assert.equal(specDrifted(undefined, { replicas: 3 }), true);
  });
});

describe('label selectors', () => {
  it('match equality, inequality, set-based and existence terms', () => {
    const m = labelMatcher('app=web,tier!=db,env in (prod, staging),!legacy,team');
    assert.equal(m({ app: 'web', env: 'prod', team: 'a' }), true);
    assert.equal(m({ app: 'web', env: 'dev', team: 'a' }), false);
    assert.equal(m({ app: 'web', env: 'prod', team: 'a', legacy: 'y' }), false);
    assert.equal(m({ app: 'web', env: 'prod', team: 'a', tier: 'db' }), false);
    assert.equal(m({ app: 'web', env: 'prod' }), false, 'team must exist');
    assert.equal(labelMatcher({ app: 'web' })({ app: 'web', x: 'y' }), true);
    assert.equal(labelMatcher(undefined)(undefined), true);
    assert.throws(() => labelMatcher('a in b'), /unable to parse requirement: found 'b' expected: '\('/);
  });
});

describe('predicates', () => {
  const o = (generation: number, labels: Record<string, string> = {}) => ({
    metadata: { generation, labels },
  });
  it('generationChanged passes spec edits, not status writes', () => {
    assert.equal(generationChanged.update?.(o(1), o(2)), true);
    assert.equal(generationChanged.update?.(o(1), o(1)), false);
  });
  it('labelsChanged and anyOf', () => {
    assert.equal(labelsChanged.update?.(o(1, { a: '1' }), o(1, { a: '2' })), true);
    const either = anyOf(generationChanged, labelsChanged);
    assert.equal(either.update?.(o(1, { a: '1' }), o(1, { a: '1' })), false);
    assert.equal(either.update?.(o(1), o(2)), true);
    const named = predicate<{ metadata: { name: string } }>((obj) => obj.metadata.name.startsWith('keep'));
    assert.equal(named.create?.({ metadata: { name: 'keep-1' } }), true);
    assert.equal(named.delete?.({ metadata: { name: 'drop' } }), false);
  });
});

describe('Expectations', () => {
  it('is unsatisfied until every expected creation is observed, or the expectation expires', () => {
    const clock = new FakeClock(0);
    const e = new Expectations({ clock, ttlMs: 1000 });
    assert.equal(e.satisfied('ns/a'), true);
    e.expectCreations('ns/a', 2);
    e.creationObserved('ns/a');
    assert.equal(e.satisfied('ns/a'), false);
    e.creationObserved('ns/a');
    assert.equal(e.satisfied('ns/a'), true);
    e.expectDeletions('ns/b', 1);
    assert.equal(e.satisfied('ns/b'), false);
    clock.step(1001);
    assert.equal(e.satisfied('ns/b'), true, 'expired: a lost event must not block forever');
  });
});
