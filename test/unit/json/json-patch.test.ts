import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applyJsonPatch,
  applyPatch,
  createPatch,
  JsonPatchError,
  type JsonPatchOperation,
  type JsonValue,
} from '../../../src/json/json-patch.ts';

/**
 * src/json/json-patch.ts is op-gen's one RFC 6902 implementation: kustomize/ applies the patches of
 * a kustomization with applyJsonPatch, the runtime's defaulting webhooks answer with createPatch.
 */

/** A small seeded PRNG (mulberry32), so a failure can be replayed from its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ['a', 'b', 'c/d', 'e~f', '', 'spec', '0'];

function randomValue(r: () => number, depth: number): JsonValue {
  const pick = Math.floor(r() * (depth > 3 ? 5 : 7));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return Math.floor(r() * 10) - 3;
    case 3:
      return ['x', 'y', ''][Math.floor(r() * 3)]!;
    case 4:
      return r() * 4;
    case 5: {
      const n = Math.floor(r() * 4);
      return Array.from({ length: n }, () => randomValue(r, depth + 1));
    }
    default: {
      const o: Record<string, JsonValue> = {};
      for (const k of KEYS) if (r() < 0.4) o[k] = randomValue(r, depth + 1);
      return o;
    }
  }
}

/** A variation of `v`: some keys removed, added or changed, arrays grown or shrunk. */
function mutate(r: () => number, v: JsonValue, depth: number): JsonValue {
  if (r() < 0.15) return randomValue(r, depth);
  if (Array.isArray(v)) {
    const out = v.map((x) => (r() < 0.3 ? mutate(r, x, depth + 1) : x));
    if (r() < 0.2) out.push(randomValue(r, depth + 1));
    if (r() < 0.2) out.pop();
    return out;
  }
  if (v !== null && typeof v === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [k, x] of Object.entries(v)) if (r() > 0.2) out[k] = r() < 0.4 ? mutate(r, x, depth + 1) : x;
    for (const k of KEYS) if (!(k in out) && r() < 0.1) out[k] = randomValue(r, depth + 1);
    return out;
  }
  return v;
}

describe('createPatch', () => {
  it('is empty for equal documents', () => {
    assert.deepEqual(createPatch({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), []);
  });
  it('adds, replaces and removes keys with escaped pointers', () => {
    assert.deepEqual(
      createPatch({ spec: { a: 1, 'x/y': 2, gone: true } }, { spec: { a: 2, 'x/y': 3, 'n~': 'v' } }),
      [
        { op: 'remove', path: '/spec/gone' },
        { op: 'replace', path: '/spec/a', value: 2 },
        { op: 'replace', path: '/spec/x~1y', value: 3 },
        { op: 'add', path: '/spec/n~0', value: 'v' },
      ],
    );
  });
  it('adds a missing parent object whole', () => {
    assert.deepEqual(createPatch({ metadata: {} }, { metadata: {}, spec: { replicas: 1 } }), [
      { op: 'add', path: '/spec', value: { replicas: 1 } },
    ]);
  });
  it('diffs arrays of the same length element-wise and replaces resized ones', () => {
    assert.deepEqual(createPatch({ l: [1, 2] }, { l: [1, 3] }), [{ op: 'replace', path: '/l/1', value: 3 }]);
    assert.deepEqual(createPatch({ l: [1, 2] }, { l: [1, 2, 3] }), [
      { op: 'replace', path: '/l', value: [1, 2, 3] },
    ]);
  });
  it('writes what JSON would: undefined keys are absent, a Date is its ISO string', () => {
    const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
    assert.deepEqual(createPatch({ a: 1, b: 2 }, { a: undefined, b: 2, c: undefined, d: at }), [
      { op: 'remove', path: '/a' },
      { op: 'add', path: '/d', value: '2026-01-02T03:04:05.000Z' },
    ]);
    assert.deepEqual(createPatch({ d: '2026-01-02T03:04:05.000Z' }, { d: at }), []);
    assert.deepEqual(createPatch({ l: [1] }, { l: [undefined] }), [
      { op: 'replace', path: '/l', value: [null] },
    ]);
  });
  it('applying the patch gives the target, for 2,000 random document pairs', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const r = rng(seed);
      const from = randomValue(r, 0);
      const to = mutate(r, from, 0);
      const patch = createPatch(from, to);
      assert.deepEqual(applyPatch(from, patch), to, `seed ${seed}`);
    }
  });
});

describe('applyJsonPatch (kustomize patches)', () => {
  const apply = (doc: JsonValue, ops: JsonPatchOperation[]): JsonValue => {
    applyJsonPatch(doc, ops);
    return doc;
  };
  it('applies add, remove, replace, move, copy and test in place, in order', () => {
    const doc: JsonValue = { spec: { replicas: 1, list: ['a', 'c'], 'x/y': { '~': 1 } } };
    applyJsonPatch(doc, [
      { op: 'add', path: '/spec/list/1', value: 'b' },
      { op: 'add', path: '/spec/list/-', value: 'd' },
      { op: 'replace', path: '/spec/replicas', value: 3 },
      { op: 'test', path: '/spec/replicas', value: 3 },
      { op: 'copy', from: '/spec/list', path: '/spec/copy' },
      { op: 'move', from: '/spec/x~1y/~0', path: '/spec/moved' },
      { op: 'remove', path: '/spec/list/0' },
    ]);
    assert.deepEqual(doc, {
      spec: { replicas: 3, list: ['b', 'c', 'd'], 'x/y': {}, copy: ['a', 'b', 'c', 'd'], moved: 1 },
    });
  });
  it('copies values: a later change to the operation or the source does not show through', () => {
    const value = { a: [1] };
    const doc = apply({ l: [] }, [
      { op: 'add', path: '/v', value },
      { op: 'copy', from: '/v', path: '/w' },
    ]);
    value.a.push(2);
    assert.deepEqual(doc, { l: [], v: { a: [1] }, w: { a: [1] } });
  });
  for (const [ops, message] of [
    [[{ op: 'remove', path: '/missing' }], '/missing does not exist'],
    [[{ op: 'add', path: '/a/b/c', value: 1 }], '/a/b/c: b does not exist'],
    [[{ op: 'add', path: 'spec', value: 1 }], 'path spec must start with /'],
    [[{ op: 'add', path: '', value: 1 }], 'the whole document cannot be the target'],
    [[{ op: 'add', path: '/l/x', value: 1 }], '/l/x: x is not a list index'],
    [[{ op: 'add', path: '/l/01', value: 1 }], '/l/01: 01 is not a list index'],
    [[{ op: 'replace', path: '/l/2', value: 1 }], '/l/2: index 2 is out of range (the list has 2 items)'],
    [[{ op: 'add', path: '/l/3', value: 1 }], '/l/3: index 3 is out of range (the list has 2 items)'],
    [[{ op: 'add', path: '/a/x', value: 1 }], '/a/x: the parent is not an object or list'],
    [[{ op: 'test', path: '/a', value: 2 }], 'test failed at /a'],
    [[{ op: 'patch', path: '/a' }], 'unknown op patch'],
  ] as [JsonPatchOperation[], string][])
    it(`refuses ${JSON.stringify(ops[0])}: ${message}`, () => {
      assert.throws(
        () => applyJsonPatch({ a: 1, l: [1, 2] }, ops),
        (err: unknown) => err instanceof JsonPatchError && err.message === message,
      );
    });
});

describe('applyPatch (webhook round trips)', () => {
  it('returns a patched copy and leaves the input alone', () => {
    const from = { spec: { a: 1 } };
    assert.deepEqual(applyPatch(from, [{ op: 'replace', path: '/spec/a', value: 2 }]), { spec: { a: 2 } });
    assert.deepEqual(from, { spec: { a: 1 } });
  });
  it('replaces the whole document on path "", and refuses to remove it', () => {
    assert.deepEqual(applyPatch({ a: 1 }, [{ op: 'replace', path: '', value: [1] }]), [1]);
    assert.throws(
      () => applyPatch({ a: 1 }, [{ op: 'remove', path: '' }]),
      (err: unknown) => err instanceof JsonPatchError && err.message === 'cannot remove the root',
    );
  });
});
