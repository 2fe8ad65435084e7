import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineKind } from '../../../../src/client/kind.ts';
import { createLogger } from '../../../../src/runtime/logger.ts';
import { defaultingHandler, forKind, validatingHandler } from '../../../../src/runtime/webhook/admission.ts';
import { spoke } from '../../../../src/runtime/webhook/builder.ts';
import {
  ConversionError,
  ConversionWebhook,
  reviewConversion,
} from '../../../../src/runtime/webhook/conversion.ts';
import { AdmissionDenied, field, ValidationError } from '../../../../src/runtime/webhook/field.ts';
import { applyJsonPatch, applyPatch, createPatch, type JsonValue } from '../../../../src/json/json-patch.ts';
import type { JsonObject } from '../../../../src/json/json.ts';
import type {
  AdmissionContext,
  AdmissionRequest,
  Operation,
  Validator,
} from '../../../../src/runtime/webhook/types.ts';

/**
 * Cases that kill the mutants admission.test.ts, json-patch.test.ts and conversion.test.ts let
 * survive (`npm run test:mutation -- webhook`; reports/mutation/webhook.json): every refusal's
 * code, reason and message, the name of an Invalid object, kinds that differ in one part, patches
 * of values JSON writes differently, conversions whose converter returns or throws the unexpected.
 */
const kind = { group: 'example.com', version: 'v1', kind: 'Widget' };

function ctxFor(request: Partial<AdmissionRequest> & { operation: Operation }): AdmissionContext {
  const req: AdmissionRequest = {
    uid: 'u-1',
    kind,
    resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
    userInfo: { username: 'alice' },
    ...request,
  };
  return {
    operation: req.operation,
    dryRun: false,
    userInfo: req.userInfo,
    uid: req.uid,
    kind: req.kind,
    resource: req.resource,
    signal: new AbortController().signal,
    log: createLogger({ write: () => {} }),
    request: req,
  };
}

type Obj = { metadata?: { name?: string; generateName?: string }; spec?: { size?: number } };

const invalidSize: Validator<Obj> = {
  validateCreate: () => {
    throw new ValidationError([field.invalid('spec.size', 0, 'must be at least 1')]);
  },
  validateUpdate: () => undefined,
  validateDelete: () => {
    throw new ValidationError([field.invalid('spec.size', 0, 'must be at least 1')]);
  },
};

describe('admission: refusals', () => {
  it('an AdmissionDenied answers its code, reason and warnings with status Failure', async () => {
    const h = validatingHandler<Obj>({
      validateCreate: () => {
        throw new AdmissionDenied('no', { code: 403, reason: 'Forbidden', warnings: ['w'] });
      },
      validateUpdate: () => undefined,
      validateDelete: () => undefined,
    });
    assert.deepEqual(await h(ctxFor({ operation: 'CREATE', object: {} })), {
      uid: 'u-1',
      allowed: false,
      status: { status: 'Failure', code: 403, message: 'no', reason: 'Forbidden' },
      warnings: ['w'],
    });
  });

  it('any other error is a 500 InternalError', async () => {
    const h = validatingHandler<Obj>({
      validateCreate: () => {
        throw new TypeError('boom');
      },
      validateUpdate: () => undefined,
      validateDelete: () => undefined,
    });
    assert.deepEqual(await h(ctxFor({ operation: 'CREATE', object: {} })), {
      uid: 'u-1',
      allowed: false,
      status: {
        status: 'Failure',
        code: 500,
        message: 'internal error in the webhook handler: boom',
        reason: 'InternalError',
      },
    });
  });

  it('an Invalid object is named by the request, else its name, else its generateName', async () => {
    const h = validatingHandler(invalidSize);
    const message = async (request: Partial<AdmissionRequest> & { operation: Operation }): Promise<string> =>
      (await h(ctxFor(request))).status?.message ?? '';
    const tail = 'is invalid: spec.size: Invalid value: 0: must be at least 1';
    assert.equal(
      await message({ operation: 'CREATE', name: 'req', object: { metadata: { name: 'obj' } } }),
      `Widget.example.com "req" ${tail}`,
    );
    assert.equal(
      await message({ operation: 'CREATE', name: '', object: { metadata: { name: 'obj' } } }),
      `Widget.example.com "obj" ${tail}`,
    );
    assert.equal(
      await message({ operation: 'CREATE', name: '', object: { metadata: { generateName: 'gen-' } } }),
      `Widget.example.com "gen-" ${tail}`,
    );
    assert.equal(
      await message({ operation: 'CREATE', name: '', object: {} }),
      `Widget.example.com "" ${tail}`,
    );
    assert.equal(
      await message({ operation: 'DELETE', name: '', oldObject: { metadata: { name: 'old' } } }),
      `Widget.example.com "old" ${tail}`,
    );
  });

  it('a validator answering no warnings allows without a warnings field', async () => {
    const h = validatingHandler<Obj>({
      validateCreate: () => undefined,
      validateUpdate: () => undefined,
      validateDelete: () => undefined,
    });
    assert.deepEqual(await h(ctxFor({ operation: 'CREATE', object: {} })), { uid: 'u-1', allowed: true });
    assert.deepEqual(await h(ctxFor({ operation: 'CONNECT', object: {} })), { uid: 'u-1', allowed: true });
  });

  it('a request without the objects the validator needs is a 400 BadRequest naming what is missing', async () => {
    const h = validatingHandler(invalidSize);
    const refusal = (message: string) => ({
      uid: 'u-1',
      allowed: false,
      status: { status: 'Failure', code: 400, message, reason: 'BadRequest' },
    });
    assert.deepEqual(
      await h(ctxFor({ operation: 'CREATE', object: 'text' })),
      refusal('the CREATE request has no object'),
    );
    assert.deepEqual(
      await h(ctxFor({ operation: 'CREATE', object: null })),
      refusal('the CREATE request has no object'),
    );
    assert.deepEqual(
      await h(ctxFor({ operation: 'UPDATE', oldObject: {} })),
      refusal('the UPDATE request has no object'),
    );
    assert.deepEqual(
      await h(ctxFor({ operation: 'UPDATE', object: {} })),
      refusal('the UPDATE request has no oldObject'),
    );
    assert.deepEqual(
      await h(ctxFor({ operation: 'DELETE' })),
      refusal('the DELETE request has no oldObject'),
    );
  });

  it('defaults UPDATE too, and refuses a request without an object to default with 400', async () => {
    const h = defaultingHandler<Obj>({
      default(_ctx, obj) {
        obj.spec = { size: 1 };
      },
    });
    const update = await h(ctxFor({ operation: 'UPDATE', object: {}, oldObject: {} }));
    assert.equal(update.patchType, 'JSONPatch');
    for (const object of [undefined, null, 'text']) {
      assert.deepEqual(await h(ctxFor({ operation: 'CREATE', object })), {
        uid: 'u-1',
        allowed: false,
        status: {
          status: 'Failure',
          code: 400,
          message: 'the CREATE request has no object to default',
          reason: 'BadRequest',
        },
      });
    }
  });

  it('forKind refuses a kind that differs in group, version or kind alone', async () => {
    const h = forKind(kind, async (ctx) => ({ uid: ctx.uid, allowed: true }));
    assert.deepEqual(await h(ctxFor({ operation: 'CREATE' })), { uid: 'u-1', allowed: true });
    const cases: readonly (readonly [AdmissionRequest['kind'], string])[] = [
      [{ ...kind, group: 'other.com' }, 'Widget other.com/v1'],
      [{ ...kind, version: 'v2' }, 'Widget example.com/v2'],
      [{ ...kind, kind: 'Gadget' }, 'Gadget example.com/v1'],
      [{ group: '', version: 'v1', kind: 'Pod' }, 'Pod v1'],
    ];
    for (const [other, named] of cases) {
      assert.deepEqual(await h(ctxFor({ operation: 'CREATE', kind: other })), {
        uid: 'u-1',
        allowed: false,
        status: {
          status: 'Failure',
          code: 400,
          message: `this webhook serves Widget example.com/v1, not ${named}`,
          reason: 'BadRequest',
        },
      });
    }
  });
});

describe('admission: JSON patch', () => {
  it('diffs an object without prototype key by key, and replaces a class instance by its JSON', () => {
    const bare = Object.assign(Object.create(null) as Record<string, number>, { a: 1, b: 3 });
    assert.deepEqual(createPatch({ a: 1, b: 2 }, bare), [{ op: 'replace', path: '/b', value: 3 }]);
    assert.deepEqual(createPatch({ x: 1 }, new Date(0)), [
      { op: 'replace', path: '', value: '1970-01-01T00:00:00.000Z' },
    ]);
    class Same {
      a = 1;
    }
    assert.deepEqual(createPatch({ a: 1 }, new Same()), []);
    class Other {
      a = 2;
    }
    assert.deepEqual(createPatch({ a: 1 }, new Other()), [{ op: 'replace', path: '', value: { a: 2 } }]);
  });

  it('functions and symbols are absent, as in JSON', () => {
    assert.deepEqual(createPatch({ a: 1, f: 2, s: 3 }, { a: 1, f: () => 1, s: Symbol('s') }), [
      { op: 'remove', path: '/f' },
      { op: 'remove', path: '/s' },
    ]);
  });

  it('an array holding undefined is replaced whole, as JSON writes it', () => {
    assert.deepEqual(createPatch({ l: [1, 2] }, { l: [1, undefined] }), [
      { op: 'replace', path: '/l', value: [1, null] },
    ]);
  });

  it('applyPatch adds and removes list items, and refuses missing paths and removing the root', () => {
    assert.deepEqual(applyPatch({ l: [1, 2, 3] }, [{ op: 'remove', path: '/l/1' }]), { l: [1, 3] });
    assert.deepEqual(applyPatch({ l: [1, 3] }, [{ op: 'add', path: '/l/1', value: 2 }]), { l: [1, 2, 3] });
    assert.throws(
      () => applyPatch({ a: 1 }, [{ op: 'remove', path: '' }]),
      /^Error: cannot remove the root$/,
    );
    assert.throws(
      () => applyPatch({}, [{ op: 'replace', path: '/a/b', value: 1 }]),
      /^Error: \/a\/b: a does not exist$/,
    );
    assert.throws(
      () => applyPatch({ a: 1 } as JsonValue, [{ op: 'add', path: '/a/b', value: 2 }]),
      /^Error: \/a\/b: the parent is not an object or list$/,
    );
  });
});

describe('conversion: unexpected objects and converters', () => {
  type J = { apiVersion?: string; kind?: string; metadata?: Record<string, unknown>; spec?: unknown };
  const base = { group: 'example.com', kind: 'Widget', plural: 'widgets', namespaced: true };
  const V1 = defineKind<J>({ ...base, version: 'v1' });
  const V2 = defineKind<unknown>({ ...base, version: 'v2' });
  const V3 = defineKind<J>({ ...base, version: 'v3' });

  function webhook(
    convertTo: (o: J) => unknown = (o) => o,
    convertFrom: (h: J) => unknown = (h) => h,
  ): ConversionWebhook {
    const w = new ConversionWebhook(V2);
    w.addSpoke(
      spoke<J, J>(V1, { convertTo: (o) => convertTo(o) as J, convertFrom: (h) => convertFrom(h) as J }),
    );
    w.addSpoke(spoke<J, J>(V3, { convertTo: (o) => o, convertFrom: (h) => h }));
    return w;
  }

  it('names the error class, refuses a spoke of another group, and a core-group hub reads `v1`', async () => {
    assert.equal(new ConversionError('x').name, 'ConversionError');
    const w = new ConversionWebhook(V2);
    assert.throws(
      () =>
        w.addSpoke(
          spoke(defineKind<unknown>({ ...base, group: 'other.com', version: 'v1' }), {
            convertTo: (o) => o,
            convertFrom: (h) => h,
          }),
        ),
      /^Error: conversion of Widget\.example\.com: spoke Widget other\.com\/v1 is another kind than the hub$/,
    );
    const core = new ConversionWebhook(
      defineKind<unknown>({ group: '', version: 'v1', kind: 'Thing', plural: 'things', namespaced: true }),
    );
    const thing = { apiVersion: 'v1', kind: 'Thing' };
    assert.equal(await core.convert(thing, 'v1'), thing);
  });

  it('returns the very object when it is already in the desired version', async () => {
    const o = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };
    assert.equal(await webhook().convert(o, 'example.com/v1'), o);
  });

  it('refuses what is no object, another group or kind, naming the object', async () => {
    const w = webhook();
    for (const bad of [null, 'text', [1]])
      await assert.rejects(w.convert(bad, 'example.com/v2'), {
        name: 'ConversionError',
        message: 'an object to convert is not a JSON object',
      });
    await assert.rejects(
      w.convert({ apiVersion: 'other.com/v1', kind: 'Widget', metadata: { name: 'w' } }, 'example.com/v2'),
      {
        message: 'object "w" is Widget other.com/v1, not a Widget.example.com',
      },
    );
    await assert.rejects(
      w.convert({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 7 } }, 'example.com/v2'),
      {
        message: 'object is Gadget example.com/v1, not a Widget.example.com',
      },
    );
    await assert.rejects(w.convert({ apiVersion: 5, kind: 'Widget' }, 'example.com/v2'), {
      message: 'object is Widget (no apiVersion), not a Widget.example.com',
    });
  });

  it('gives the spoke the hub apiVersion; a converter returning no object or throwing its own ConversionError', async () => {
    let seen: unknown;
    // v3's convertTo keeps apiVersion example.com/v3; v1's convertFrom must still get the hub's.
    const w = webhook(
      (o) => o,
      (h) => {
        seen = h.apiVersion;
        return h;
      },
    );
    await w.convert({ apiVersion: 'example.com/v3', kind: 'Widget' }, 'example.com/v1');
    assert.equal(seen, 'example.com/v2');
    for (const out of [null, 'text', [1]]) {
      await assert.rejects(
        webhook(() => out).convert({ apiVersion: 'example.com/v1', kind: 'Widget' }, 'example.com/v2'),
        {
          message: 'the converter to example.com/v2 returned no object',
        },
      );
    }
    await assert.rejects(
      webhook(() => {
        throw new ConversionError('the size is not a number');
      }).convert({ apiVersion: 'example.com/v1', kind: 'Widget' }, 'example.com/v2'),
      { message: 'the size is not a number' },
    );
  });

  it("drops the original's labels and annotations when the converted metadata has none", async () => {
    const w = webhook((o) => ({ ...o, metadata: {} }));
    const out = await w.convert(
      {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w', labels: { a: 'b' }, annotations: { c: 'd' } },
      },
      'example.com/v2',
    );
    assert.deepEqual(out, { apiVersion: 'example.com/v2', kind: 'Widget', metadata: { name: 'w' } });
  });

  it('a review fails on an object without kind or apiVersion, and on an aborted request', async () => {
    const webhooks = new Map([[webhook().groupKind, webhook()]]);
    assert.deepEqual(
      await reviewConversion({ uid: 'r', desiredAPIVersion: 'example.com/v2', objects: [null] }, webhooks),
      {
        uid: 'r',
        convertedObjects: [],
        result: { status: 'Failure', message: 'no conversion is registered for (no kind) (no apiVersion)' },
      },
    );
    const aborted = AbortSignal.abort();
    const r = await reviewConversion(
      {
        uid: 'r',
        desiredAPIVersion: 'example.com/v2',
        objects: [{ apiVersion: 'example.com/v1', kind: 'Widget' }],
      },
      webhooks,
      aborted,
    );
    assert.equal(r.result.status, 'Failure');
    assert.match(r.result.message ?? '', /^conversion failed: This operation was aborted/);
  });
});

describe('JSON Patch pointers and from (second mutation run, src/json/json-patch.ts)', () => {
  it('copy and test read list items by index and report a missing source by its path', () => {
    const doc: JsonObject = { a: [{ x: 1 }, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], o: { k: 'v' } };
    applyJsonPatch(doc, [
      { op: 'copy', from: '/a/0', path: '/first' },
      { op: 'copy', from: '/a/10', path: '/eleventh' },
      { op: 'test', path: '/o/k', value: 'v' },
    ]);
    assert.deepEqual([doc.first, doc.eleventh], [{ x: 1 }, 11]);
    assert.throws(() => applyJsonPatch(doc, [{ op: 'copy', from: '/o/missing', path: '/m' }]), {
      message: '/o/missing does not exist',
    });
    assert.throws(() => applyJsonPatch(doc, [{ op: 'copy', from: '/o/k/deeper', path: '/m' }]), {
      message: '/o/k/deeper does not exist',
    });
    assert.throws(() => applyJsonPatch(doc, [{ op: 'remove', path: '/a/1a' }]), {
      message: '/a/1a: 1a is not a list index',
    });
  });

  it('move and copy without from take the whole document as the source', () => {
    const doc: JsonObject = { a: 1 };
    applyJsonPatch(doc, [{ op: 'copy', path: '/b' }]);
    assert.deepEqual(doc, { a: 1, b: { a: 1 } });
    assert.throws(() => applyJsonPatch(doc, [{ op: 'move', path: '/c' }]), {
      message: 'the whole document cannot be the target',
    });
  });
});
