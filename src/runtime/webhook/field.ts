/**
 * Field errors in the shape of apimachinery's `field.ErrorList`: each names a field path, a bad
 * value and a detail, and becomes a `StatusCause` of the admission response (so `kubectl` prints
 * `spec.replicas: Invalid value: 0: must be at least 1`).
 */

/** metav1.CauseType values the helpers produce. */
export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

export interface FieldError {
  readonly type: FieldErrorType;
  /** The field path, e.g. `spec.containers[0].image`. */
  readonly field: string;
  /** The value found; `undefined` when the error has none (required, forbidden, ...). */
  readonly badValue?: unknown;
  readonly detail: string;
}

/** A field path built like apimachinery's `field.NewPath("spec").Child("replicas").Index(0)`. */
export class FieldPath {
  private readonly parts: readonly string[];

  private constructor(parts: readonly string[]) {
    this.parts = parts;
  }

  /** `FieldPath.root('spec', 'template')` → `spec.template`. */
  static root(name: string, ...more: string[]): FieldPath {
    return new FieldPath([name, ...more].map((n, i) => (i === 0 ? n : `.${n}`)));
  }

  child(name: string, ...more: string[]): FieldPath {
    return new FieldPath([...this.parts, ...[name, ...more].map((n) => `.${n}`)]);
  }

  index(i: number): FieldPath {
    return new FieldPath([...this.parts, `[${i}]`]);
  }

  key(k: string): FieldPath {
    return new FieldPath([...this.parts, `[${k}]`]);
  }

  toString(): string {
    return this.parts.join('');
  }
}

type PathLike = FieldPath | string;

const str = (p: PathLike): string => (typeof p === 'string' ? p : p.toString());

function render(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === undefined) return 'null';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The message apimachinery's `field.Error.Error()` prints. */
export function fieldErrorMessage(e: FieldError): string {
  const withValue = (label: string): string =>
    `${e.field}: ${label}: ${render(e.badValue)}${e.detail ? `: ${e.detail}` : ''}`;
  const withoutValue = (label: string): string => `${e.field}: ${label}${e.detail ? `: ${e.detail}` : ''}`;
  switch (e.type) {
    case 'FieldValueRequired':
      return withoutValue('Required value');
    case 'FieldValueForbidden':
      return withoutValue('Forbidden');
    case 'FieldValueTooLong':
      return withoutValue('Too long');
    case 'FieldValueTooMany':
      return withoutValue('Too many');
    case 'InternalError':
      return withoutValue('Internal error');
    case 'FieldValueNotFound':
      return withValue('Not found');
    case 'FieldValueDuplicate':
      return withValue('Duplicate value');
    case 'FieldValueNotSupported':
      return withValue('Unsupported value');
    case 'FieldValueTypeInvalid':
      return withValue('Invalid value');
    case 'FieldValueInvalid':
      return withValue('Invalid value');
  }
}

/** Constructors for field errors, named as apimachinery's `field` package names them. */
export const field = {
  /** A path: `field.path('spec', 'replicas')`, `field.path('spec').child('items').index(2)`. */
  path: (name: string, ...more: string[]): FieldPath => FieldPath.root(name, ...more),
  invalid: (path: PathLike, value: unknown, detail: string): FieldError => ({
    type: 'FieldValueInvalid',
    field: str(path),
    badValue: value,
    detail,
  }),
  required: (path: PathLike, detail = ''): FieldError => ({
    type: 'FieldValueRequired',
    field: str(path),
    detail,
  }),
  forbidden: (path: PathLike, detail: string): FieldError => ({
    type: 'FieldValueForbidden',
    field: str(path),
    detail,
  }),
  notFound: (path: PathLike, value: unknown): FieldError => ({
    type: 'FieldValueNotFound',
    field: str(path),
    badValue: value,
    detail: '',
  }),
  duplicate: (path: PathLike, value: unknown): FieldError => ({
    type: 'FieldValueDuplicate',
    field: str(path),
    badValue: value,
    detail: '',
  }),
  notSupported: (path: PathLike, value: unknown, validValues: readonly string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field: str(path),
    badValue: value,
    detail: validValues.length
      ? `supported values: ${validValues.map((v) => JSON.stringify(v)).join(', ')}`
      : '',
  }),
  tooLong: (path: PathLike, maxLength: number): FieldError => ({
    type: 'FieldValueTooLong',
    field: str(path),
    detail: `may not be more than ${maxLength} bytes`,
  }),
  tooMany: (path: PathLike, actual: number, max: number): FieldError => ({
    type: 'FieldValueTooMany',
    field: str(path),
    badValue: actual,
    detail: `must have at most ${max} items`,
  }),
  typeInvalid: (path: PathLike, value: unknown, detail: string): FieldError => ({
    type: 'FieldValueTypeInvalid',
    field: str(path),
    badValue: value,
    detail,
  }),
  internal: (path: PathLike, err: Error): FieldError => ({
    type: 'InternalError',
    field: str(path),
    detail: err.message,
  }),
};

/**
 * Thrown by a validator (or defaulter) to deny a request with field errors: the response is
 * apimachinery's `NewInvalid` (422, reason `Invalid`, one `details.causes` entry per error), and the
 * client's error reads `admission webhook "..." denied the request: <Kind> "<name>" is invalid:
 * spec.x: Invalid value: ...`. `warnings` still reach the client.
 */
export class ValidationError extends Error {
  readonly errors: readonly FieldError[];
  readonly warnings: readonly string[];

  constructor(errors: readonly FieldError[], options: { warnings?: readonly string[] } = {}) {
    super(errors.map(fieldErrorMessage).join(', ') || 'invalid');
    this.name = 'ValidationError';
    this.errors = errors;
    this.warnings = options.warnings ?? [];
  }
}

/**
 * Thrown to deny a request with a plain message (403 Forbidden by default, or another code): what
 * controller-runtime's `admission.Denied` and a plain error from a `CustomValidator` give.
 */
export class AdmissionDenied extends Error {
  readonly code: number;
  readonly reason: string;
  readonly warnings: readonly string[];

  constructor(
    message: string,
    options: { code?: number; reason?: string; warnings?: readonly string[] } = {},
  ) {
    super(message);
    this.name = 'AdmissionDenied';
    this.code = options.code ?? 403;
    this.reason = options.reason ?? 'Forbidden';
    this.warnings = options.warnings ?? [];
  }
}
