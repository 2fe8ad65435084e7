/**
 * Scalar helper types for API sources: what TypeScript's `number` and `string` cannot say.
 * Each is its base type plus an optional phantom tag, so plain literals are assignable
 * (`const n: int32 = 3`) while `op-gen generate crd` sees the tag through the type checker,
 * also inside Partial/Pick/generics.
 */
declare const schemaFormat: unique symbol;

/** Phantom tag read by the CRD generator. Never present at run time. */
export interface SchemaFormatTag<F extends string> {
  readonly [schemaFormat]?: F;
}

/** 32-bit signed integer: `type: integer, format: int32`. */
export type int32 = number & SchemaFormatTag<'int32'>;
/** 64-bit signed integer: `type: integer, format: int64`. Values above 2^53 lose precision in JS. */
export type int64 = number & SchemaFormatTag<'int64'>;
/** Double-precision float: `type: number, format: double`. */
export type float64 = number & SchemaFormatTag<'double'>;
/** A resource quantity such as `500m` or `1Gi`: int-or-string with Kubernetes' quantity pattern. */
export type Quantity = (string | number) & SchemaFormatTag<'quantity'>;
/** An integer or a string (e.g. a port number or name): `x-kubernetes-int-or-string: true`. */
export type IntOrString = (string | number) & SchemaFormatTag<'int-or-string'>;
/** An RFC 3339 timestamp string: `type: string, format: date-time`. */
export type Time = string & SchemaFormatTag<'date-time'>;
/** A duration string such as `1h30m` (Go's time.Duration text form): `type: string`. */
export type Duration = string & SchemaFormatTag<'duration'>;
