import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../../../src/runtime/logger.ts';
import { defaultingHandler, forKind, validatingHandler } from '../../../../src/runtime/webhook/admission.ts';
import { AdmissionDenied, field, ValidationError } from '../../../../src/runtime/webhook/field.ts';
import { applyPatch, type JsonValue } from '../../../../src/json/json-patch.ts';
import type {
  AdmissionContext,
  AdmissionRequest,
  Defaulter,
  Operation,
  Validator,
} from '../../../../src/runtime/webhook/types.ts';

interface Widget {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec: { size?: number; replicas?: number; mode?: string };
}

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
    dryRun: req.dryRun === true,
    userInfo: req.userInfo,
    uid: req.uid,
    kind: req.kind,
    resource: req.resource,
    signal: new AbortController().signal,
    log: createLogger({ write: () => {} }),
    request: req,
  };
}

const widget = (spec: Widget['spec'], name = 'w1'): Widget => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'ns' },
  spec,
});

const decodePatch = (patch: string | undefined): JsonValue[] =>
  JSON.parse(Buffer.from(patch ?? '', 'base64').toString('utf8')) as JsonValue[];

describe('defaultingHandler', () => {
  const defaulter: Defaulter<Widget> = {
    default(_ctx, obj) {
      obj.spec.replicas ??= (obj.spec.size ?? 1) * 2;
      obj.spec.mode ??= 'fast';
    },
  };

  it('answers the JSON patch of the changes, which applies to the request object', async () => {
    const object = widget({ size: 3 });
    const res = await defaultingHandler(defaulter)(ctxFor({ operation: 'CREATE', object }));
    assert.equal(res.allowed, true);
    assert.equal(res.patchType, 'JSONPatch');
    const patch = decodePatch(res.patch);
    assert.deepEqual(patch, [
      { op: 'add', path: '/spec/replicas', value: 6 },
      { op: 'add', path: '/spec/mode', value: 'fast' },
    ]);
    assert.deepEqual(
      applyPatch(object as unknown as JsonValue, patch as never),
      widget({ size: 3, replicas: 6, mode: 'fast' }),
    );
    assert.deepEqual(object, widget({ size: 3 }), 'the request object is not changed');
  });

  it('answers no patch when nothing changed, and leaves DELETE alone', async () => {
    const res = await defaultingHandler(defaulter)(
      ctxFor({
        operation: 'UPDATE',
        object: widget({ size: 1, replicas: 2, mode: 'x' }),
        oldObject: widget({}),
      }),
    );
    assert.deepEqual(res, { uid: 'u-1', allowed: true });
    let called = false;
    const del = await defaultingHandler<Widget>({ default: () => void (called = true) })(
      ctxFor({ operation: 'DELETE', oldObject: widget({}) }),
    );
    assert.equal(del.allowed, true);
    assert.equal(called, false);
  });

  it('a defaulter that throws denies with 500; a ValidationError with 422', async () => {
    const boom = await defaultingHandler<Widget>({
      default() {
        throw new TypeError('cannot read x of undefined');
      },
    })(ctxFor({ operation: 'CREATE', object: widget({}) }));
    assert.equal(boom.allowed, false);
    assert.equal(boom.status?.code, 500);
    assert.match(boom.status?.message ?? '', /internal error in the webhook handler: cannot read x/);
    const invalid = await defaultingHandler<Widget>({
      default() {
        throw new ValidationError([field.required('spec.size')]);
      },
    })(ctxFor({ operation: 'CREATE', object: widget({}) }));
    assert.equal(invalid.status?.code, 422);
  });

  it('a request without an object is refused with 400', async () => {
    const res = await defaultingHandler(defaulter)(ctxFor({ operation: 'CREATE' }));
    assert.equal(res.allowed, false);
    assert.equal(res.status?.code, 400);
  });
});

describe('validatingHandler', () => {
  const seen: string[] = [];
  const validator: Validator<Widget> = {
    validateCreate(ctx, obj) {
      seen.push(`create ${obj.metadata.name} dryRun=${ctx.dryRun}`);
      if ((obj.spec.size ?? 0) < 1)
        throw new ValidationError([
          field.invalid(field.path('spec', 'size'), obj.spec.size ?? null, 'must be at least 1'),
        ]);
      return obj.spec.mode === 'legacy' ? ['spec.mode legacy is deprecated'] : [];
    },
    async validateUpdate(_ctx, oldObj, newObj) {
      seen.push(`update ${oldObj.spec.size}->${newObj.spec.size}`);
      const errs = [];
      if (newObj.spec.mode !== oldObj.spec.mode)
        errs.push(field.forbidden(field.path('spec', 'mode'), 'is immutable'));
      if ((newObj.spec.replicas ?? 0) > (newObj.spec.size ?? 0) * 2)
        errs.push(field.invalid('spec.replicas', newObj.spec.replicas, 'must be at most twice spec.size'));
      if (errs.length) throw new ValidationError(errs, { warnings: ['update refused'] });
    },
    validateDelete(_ctx, obj) {
      seen.push(`delete ${obj.metadata.name}`);
      if (obj.spec.mode === 'protected') throw new AdmissionDenied('widget is protected');
    },
  };
  const handler = validatingHandler(validator);

  it('allows with warnings and flags dry runs', async () => {
    const res = await handler(
      ctxFor({ operation: 'CREATE', dryRun: true, object: widget({ size: 2, mode: 'legacy' }) }),
    );
    assert.deepEqual(res, { uid: 'u-1', allowed: true, warnings: ['spec.mode legacy is deprecated'] });
    assert.equal(seen.at(-1), 'create w1 dryRun=true');
  });

  it('refuses with an Invalid status whose causes carry the field paths', async () => {
    const res = await handler(ctxFor({ operation: 'CREATE', name: 'w1', object: widget({ size: 0 }) }));
    assert.equal(res.allowed, false);
    assert.deepEqual(res.status, {
      status: 'Failure',
      code: 422,
      reason: 'Invalid',
      message: 'Widget.example.com "w1" is invalid: spec.size: Invalid value: 0: must be at least 1',
      details: {
        name: 'w1',
        group: 'example.com',
        kind: 'Widget',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: 0: must be at least 1',
            field: 'spec.size',
          },
        ],
      },
    });
  });

  it('gives update the old and the new object, and aggregates several errors', async () => {
    const res = await handler(
      ctxFor({
        operation: 'UPDATE',
        name: 'w1',
        oldObject: widget({ size: 1, mode: 'a' }),
        object: widget({ size: 2, mode: 'b', replicas: 9 }),
      }),
    );
    assert.equal(seen.at(-1), 'update 1->2');
    assert.equal(
      res.status?.message,
      'Widget.example.com "w1" is invalid: [spec.mode: Forbidden: is immutable, spec.replicas: Invalid value: 9: must be at most twice spec.size]',
    );
    assert.deepEqual(
      res.status?.details?.causes?.map((c) => c.field),
      ['spec.mode', 'spec.replicas'],
    );
    assert.deepEqual(res.warnings, ['update refused']);
  });

  it('gives delete the old object; AdmissionDenied refuses with 403', async () => {
    const res = await handler(
      ctxFor({ operation: 'DELETE', oldObject: widget({ mode: 'protected' }, 'w9') }),
    );
    assert.equal(seen.at(-1), 'delete w9');
    assert.equal(res.allowed, false);
    assert.equal(res.status?.code, 403);
    assert.equal(res.status?.message, 'widget is protected');
  });

  it('refuses requests missing the objects it needs with 400', async () => {
    assert.equal((await handler(ctxFor({ operation: 'UPDATE', object: widget({}) }))).status?.code, 400);
    assert.equal((await handler(ctxFor({ operation: 'DELETE' }))).status?.code, 400);
    assert.equal((await handler(ctxFor({ operation: 'CONNECT' }))).allowed, true);
  });
});

describe('forKind', () => {
  it('refuses another kind with 400 naming both', async () => {
    let called = false;
    const h = forKind(kind, async (ctx) => {
      called = true;
      return { uid: ctx.uid, allowed: true };
    });
    const res = await h(
      ctxFor({ operation: 'CREATE', kind: { group: '', version: 'v1', kind: 'Pod' }, object: {} }),
    );
    assert.equal(called, false);
    assert.equal(res.status?.code, 400);
    assert.equal(res.status?.message, 'this webhook serves Widget example.com/v1, not Pod v1');
    assert.equal((await h(ctxFor({ operation: 'CREATE', object: {} }))).allowed, true);
  });
});
