/**
 * Turns a Defaulter or Validator into an AdmissionHandler: decoding the objects, running the handler,
 * and mapping what it did (changes, warnings, thrown errors) to an AdmissionResponse.
 */
import { AdmissionDenied, fieldErrorMessage, ValidationError } from './field.ts';
import { createPatch, type JsonValue } from '../../json/json-patch.ts';
import { ownObject } from './request-copy.ts';
import type {
  AdmissionContext,
  AdmissionHandler,
  AdmissionRequest,
  AdmissionResponse,
  Defaulter,
  ResponseStatus,
  Validator,
  Warnings,
} from './types.ts';

export function allowed(uid: string, warnings: readonly string[] = []): AdmissionResponse {
  return { uid, allowed: true, ...(warnings.length ? { warnings } : {}) };
}

/** A refusal with a code and message (controller-runtime's admission.Errored / Denied). */
export function denied(
  uid: string,
  code: number,
  message: string,
  extra: { reason?: string; warnings?: readonly string[] } = {},
): AdmissionResponse {
  const status: ResponseStatus = {
    status: 'Failure',
    code,
    message,
    ...(extra.reason ? { reason: extra.reason } : {}),
  };
  return {
    uid,
    allowed: false,
    status,
    ...(extra.warnings?.length ? { warnings: extra.warnings } : {}),
  };
}

interface ObjectMetaLike {
  metadata?: { name?: string; generateName?: string };
}

/** apimachinery's NewInvalid, as a response: 422, reason Invalid, one cause per field error. */
function invalid(req: AdmissionRequest, obj: unknown, err: ValidationError): AdmissionResponse {
  const meta = (obj as ObjectMetaLike | undefined)?.metadata;
  const name = req.name || meta?.name || meta?.generateName || '';
  const qualifiedKind = req.kind.group ? `${req.kind.kind}.${req.kind.group}` : req.kind.kind;
  const messages = err.errors.map(fieldErrorMessage);
  const aggregate = messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
  return {
    uid: req.uid,
    allowed: false,
    status: {
      status: 'Failure',
      code: 422,
      reason: 'Invalid',
      message: `${qualifiedKind} "${name}" is invalid: ${aggregate}`,
      details: {
        name,
        group: req.kind.group,
        kind: req.kind.kind,
        causes: err.errors.map((e, i) => ({
          reason: e.type,
          message: messages[i]!.slice(e.field.length + 2),
          field: e.field,
        })),
      },
    },
    ...(err.warnings.length ? { warnings: err.warnings } : {}),
  };
}

/** What a thrown error answers: field errors 422, AdmissionDenied its code, anything else 500. */
export function fromError(req: AdmissionRequest, obj: unknown, err: unknown): AdmissionResponse {
  if (err instanceof ValidationError) return invalid(req, obj, err);
  if (err instanceof AdmissionDenied)
    return denied(req.uid, err.code, err.message, { reason: err.reason, warnings: err.warnings });
  const message = err instanceof Error ? err.message : String(err);
  return denied(req.uid, 500, `internal error in the webhook handler: ${message}`, {
    reason: 'InternalError',
  });
}

const warningsOf = (w: Warnings): readonly string[] => (Array.isArray(w) ? (w as readonly string[]) : []);

/** Serves a Defaulter: CREATE and UPDATE are defaulted; anything else is allowed unchanged. */
export function defaultingHandler<T>(defaulter: Defaulter<T>): AdmissionHandler {
  return async (ctx: AdmissionContext): Promise<AdmissionResponse> => {
    const req = ctx.request;
    if (req.operation !== 'CREATE' && req.operation !== 'UPDATE') return allowed(req.uid);
    if (req.object === undefined || req.object === null || typeof req.object !== 'object')
      return denied(req.uid, 400, `the ${req.operation} request has no object to default`, {
        reason: 'BadRequest',
      });
    const original = req.object as JsonValue;
    const obj = ownObject(req);
    try {
      await defaulter.default(ctx, obj as T);
    } catch (err) {
      return fromError(req, original, err);
    }
    const patch = createPatch(original, obj as JsonValue);
    if (patch.length === 0) return allowed(req.uid);
    return {
      uid: req.uid,
      allowed: true,
      patchType: 'JSONPatch',
      patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
    };
  };
}

/** Serves a Validator: CREATE, UPDATE (old and new object) and DELETE (the old object). */
export function validatingHandler<T>(validator: Validator<T>): AdmissionHandler {
  return async (ctx: AdmissionContext): Promise<AdmissionResponse> => {
    const req = ctx.request;
    // The request's objects are the validator's own: nothing else reads them after it.
    const objectOf = (v: unknown): JsonValue | undefined =>
      v !== null && typeof v === 'object' ? (v as JsonValue) : undefined;
    const missing = (what: string): AdmissionResponse =>
      denied(req.uid, 400, `the ${req.operation} request has no ${what}`, { reason: 'BadRequest' });
    const obj = objectOf(req.object);
    const old = objectOf(req.oldObject);
    try {
      let warnings: Warnings;
      switch (req.operation) {
        case 'CREATE':
          if (!obj) return missing('object');
          warnings = await validator.validateCreate(ctx, obj as T);
          break;
        case 'UPDATE':
          if (!obj) return missing('object');
          if (!old) return missing('oldObject');
          warnings = await validator.validateUpdate(ctx, old as T, obj as T);
          break;
        case 'DELETE':
          if (!old) return missing('oldObject');
          warnings = await validator.validateDelete(ctx, old as T);
          break;
        default:
          return allowed(req.uid);
      }
      return allowed(req.uid, warningsOf(warnings));
    } catch (err) {
      return fromError(req, req.object ?? req.oldObject, err);
    }
  };
}

/**
 * Refuses (400) requests for another kind than `kind` before `handler` sees them: a configuration
 * that sends the wrong resource to a path is a mistake to report, not an object to decode.
 */
export function forKind(
  kind: { readonly group: string; readonly version: string; readonly kind: string },
  handler: AdmissionHandler,
): AdmissionHandler {
  return async (ctx) => {
    const k = ctx.request.kind;
    if (k.group === kind.group && k.version === kind.version && k.kind === kind.kind) return handler(ctx);
    const name = (g: string, v: string, n: string): string => `${n} ${g ? `${g}/` : ''}${v}`;
    return denied(
      ctx.uid,
      400,
      `this webhook serves ${name(kind.group, kind.version, kind.kind)}, not ${name(k.group ?? '', k.version ?? '', k.kind ?? '')}`,
      { reason: 'BadRequest' },
    );
  };
}
