/**
 * The type model: what the API sources say about their types, before any schema. Both CRD front
 * ends fill it (the type checker's, generate/crd/checker-types.ts, and the syntax reader,
 * generate/crd/syntax-walk.ts); one builder (generate/crd/schema-builder.ts) turns it into schemas
 * and reports its problems. Parts below a type are read when asked for (the functions; each call
 * reads again, so a model holds no more than the builder is walking), so a front end reads only
 * what the builder walks, in the order it walks it.
 */
import type { DocComment } from '../markers/jsdoc.ts';
import type { SourceLocation } from '../markers/types.ts';

/** A declaration's doc comment and the file (relative to the project) it is in, for its markers. */
export interface Documented {
  readonly doc: DocComment;
  readonly file: string;
}

/** A type as a field or element is written: the type aliases it is written with, then the type. */
export interface TypeUse {
  /** Aliases along the written type, outermost first (their descriptions and markers apply). */
  readonly aliases: readonly Documented[];
  /** `| null` was written. */
  readonly nullable: boolean;
  readonly type: ModelType;
}

/** A type with a name or an inline `{ ... }`: one object per type, its identity is the type's. */
export interface ModelObject {
  readonly t: 'object';
  /** The interface or type alias declaring it (none for an inline `{ ... }` or a lib type). */
  readonly decl: (Documented & { readonly name: string }) | undefined;
  /** The type as TypeScript writes it, for errors. */
  label(): string;
  /** Its fields (an interface's own, then those it inherits). */
  fields(): readonly ModelField[];
  /** Its string index signature (`Record<string, T>`); `keys: 'other'` for any other. */
  index(): { readonly keys: 'string'; readonly value: TypeUse } | { readonly keys: 'other' } | undefined;
}

export type ModelType =
  | { readonly t: 'scalar'; readonly type: 'string' | 'number' | 'boolean' }
  /** op-gen's tagged scalars (`int32`, `IntOrString`, `Quantity`, ...). */
  | { readonly t: 'format'; readonly format: string }
  /** Literal values (a literal union, an enum, `(typeof X)[keyof typeof X]`): all strings or all numbers. */
  | { readonly t: 'enum'; readonly values: readonly (string | number)[] }
  | {
      readonly t: 'array';
      /** The array type's identity (an array that contains itself is recursive). */
      readonly key: object;
      element(): TypeUse;
      /** The type as TypeScript writes it, for errors. */
      label(): string;
    }
  | ModelObject
  /** A union of object types (`A | B`), each with how its type is written. */
  | {
      readonly t: 'objectUnion';
      readonly members: readonly { type(): ModelType; label(): string }[];
    }
  /** A Kubernetes built-in type (`V1PodSpec` from @kubernetes/client-node); `key`: its identity. */
  | { readonly t: 'builtin'; readonly name: string; readonly key: object }
  | { readonly t: 'objectMeta'; readonly key: object }
  | { readonly t: 'preserve'; readonly key: object }
  /** `unknown`: a schema only with `@preserveUnknownFields`, `@schemaless` or `@embeddedResource`. */
  | { readonly t: 'unknown' }
  /** A type with no JSON form (any, Date, a tuple, a function, ...): why, and what to write instead. */
  | { readonly t: 'unsupported'; readonly problem: string; readonly fix: string };

/** One property of an object type. */
export interface ModelField {
  readonly name: string;
  /** Written `name?:`. */
  readonly optional: boolean;
  /** Optional and typed `never` or `undefined`: TypeScript's "must not be set". */
  forbidden(): boolean;
  /** A method signature (`name(): T`). */
  readonly method: boolean;
  /** Its declaration's place (none for a property the checker made up, e.g. of a mapped type). */
  readonly location: SourceLocation | undefined;
  readonly doc: Documented | undefined;
  type(): TypeUse;
  /** The name of its type without `undefined` (`ObjectMeta`), and the type as written, for errors. */
  typeName(): { readonly name: string | undefined; readonly text: string };
}

/** A declaration marked `@kind` in a version folder. */
export interface ModelKind {
  readonly group: string;
  readonly version: string;
  /** The declaration's name. */
  readonly name: string;
  readonly exported: boolean;
  readonly generic: boolean;
  readonly location: SourceLocation;
  readonly doc: Documented;
  /** Its properties (inherited ones included), `never` ones too. */
  fields(): readonly ModelField[];
}
