/**
 * The handler shapes op-gen webhooks implement, and the admission.k8s.io/v1 and
 * apiextensions.k8s.io/v1 review types they are served from.
 */
import type { StatusCause } from '../../client/api-error.ts';
import type { Logger } from '../logger.ts';
import type { GroupVersionKind } from './paths.ts';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** authentication/v1 UserInfo of the requester. */
export interface AdmissionUserInfo {
  readonly username?: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** admission.k8s.io/v1 AdmissionRequest. */
export interface AdmissionRequest {
  readonly uid: string;
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  readonly subResource?: string;
  readonly requestKind?: GroupVersionKind;
  readonly requestResource?: GroupVersionResource;
  readonly requestSubResource?: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly operation: Operation;
  readonly userInfo: AdmissionUserInfo;
  readonly object?: unknown;
  readonly oldObject?: unknown;
  readonly dryRun?: boolean;
  readonly options?: unknown;
}

/** metav1.Status as an admission response carries it. */
export interface ResponseStatus {
  readonly status?: 'Success' | 'Failure';
  readonly message?: string;
  readonly reason?: string;
  readonly code?: number;
  readonly details?: {
    readonly name?: string;
    readonly group?: string;
    readonly kind?: string;
    readonly causes?: readonly StatusCause[];
  };
}

/** admission.k8s.io/v1 AdmissionResponse. */
export interface AdmissionResponse {
  readonly uid: string;
  readonly allowed: boolean;
  readonly status?: ResponseStatus;
  /** base64 of the JSON patch. */
  readonly patch?: string;
  readonly patchType?: 'JSONPatch';
  readonly warnings?: readonly string[];
}

/** What every admission handler is given, besides the object(s). */
export interface AdmissionContext {
  readonly operation: Operation;
  /** The request will not be persisted: a handler with side effects must not have them. */
  readonly dryRun: boolean;
  readonly userInfo: AdmissionUserInfo;
  /** The request's uid (also in every log line of `log`). */
  readonly uid: string;
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  readonly subResource?: string;
  readonly namespace?: string;
  /** The object's name; empty on a create with generateName. */
  readonly name?: string;
  /** Aborted when the per-request timeout passes (the API server has given up by then). */
  readonly signal: AbortSignal;
  readonly log: Logger;
  /** The whole request, for what the fields above leave out. */
  readonly request: AdmissionRequest;
}

/** What a validator may return: warnings for the client (`kubectl` prints them), or nothing. */
export type Warnings = readonly string[] | void | undefined;

type MaybePromise<T> = T | Promise<T>;

/**
 * Sets defaults by changing `obj` in place (it is the handler's own copy); the server answers with
 * the RFC 6902 JSON patch from the request's object to the changed one. Throw `ValidationError` or
 * `AdmissionDenied` to refuse; any other throw denies with 500.
 */
export interface Defaulter<T> {
  default(ctx: AdmissionContext, obj: T): MaybePromise<void>;
}

/**
 * Validates creates, updates (seeing the old object) and deletes (seeing the object being deleted).
 * Allow by returning (optionally warnings); refuse by throwing `ValidationError` (field errors, 422)
 * or `AdmissionDenied` (a message, 403); any other throw denies with 500.
 */
export interface Validator<T> {
  validateCreate(ctx: AdmissionContext, obj: T): MaybePromise<Warnings>;
  validateUpdate(ctx: AdmissionContext, oldObj: T, newObj: T): MaybePromise<Warnings>;
  validateDelete(ctx: AdmissionContext, obj: T): MaybePromise<Warnings>;
}

/** A raw admission handler: the request in, the response out (controller-runtime's admission.Handler). */
export type AdmissionHandler = (ctx: AdmissionContext) => Promise<AdmissionResponse>;

/**
 * Converts one spoke version to and from the hub (controller-runtime's Convertible): every object
 * goes spoke → hub → spoke. Return the converted object; `apiVersion` and `kind` are set by the
 * server, `metadata` is the original's, except `labels` and `annotations` when the result has
 * `metadata` (so a converter can keep hub-only fields in an annotation of the spoke). The input is
 * the converter's own copy.
 */
export interface SpokeConverter<Spoke, Hub> {
  /** This spoke → the hub. */
  convertTo(spoke: Spoke): MaybePromise<Hub>;
  /** The hub → this spoke. */
  convertFrom(hub: Hub): MaybePromise<Spoke>;
}

/** apiextensions.k8s.io/v1 ConversionRequest. */
export interface ConversionRequest {
  readonly uid: string;
  readonly desiredAPIVersion: string;
  readonly objects: readonly unknown[];
}

/** apiextensions.k8s.io/v1 ConversionResponse. */
export interface ConversionResponse {
  readonly uid: string;
  readonly convertedObjects: readonly unknown[];
  readonly result: ResponseStatus;
}
