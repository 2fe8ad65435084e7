/**
 * The API model: what the API sources say about each kind, without schemas. Generators that only
 * read kinds, tags and doc comments (`generate client`, `bundle`'s CSV descriptors, the coming
 * webhook generator) depend on these types alone; `generate/api-model.ts` loads them (today from the
 * CRD generator's walk, the one place that knows how).
 */
import type { RawTag, SourceLocation } from '../markers/types.ts';
import type { SourceSet } from './source-set.ts';

export interface ApiModelOptions {
  /** Project root. */
  readonly cwd: string;
  /** API source folder relative to cwd (default `src/api`). */
  readonly apiDir?: string;
  /** The run's sources (generation/context.ts), loaded once for every generator; else loaded here. */
  readonly sources?: SourceSet;
}

/** One kind in one version: names, scope, versions and its own doc comment. */
export interface ApiKindInfo {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly namespaced: boolean;
  /** `@storageversion` was given (with a single version, the version is the storage version anyway). */
  readonly storage: boolean;
  readonly served: boolean;
  /** The root type's doc comment: description and every tag (markers and others, e.g. CSV descriptors). */
  readonly description: string;
  readonly tags: readonly RawTag[];
  /** The kind's declaration, `file:line` relative to the project root. */
  readonly location: SourceLocation;
}

/** The doc comment of one field below a kind. */
export interface ApiField {
  /** Path below the kind, e.g. `spec.size`, `spec.pods[].name`. */
  readonly path: string;
  readonly description: string;
  readonly tags: readonly RawTag[];
  readonly location: SourceLocation;
}

/** A kind with the doc comments of every field below it. */
export interface ApiModelKind extends ApiKindInfo {
  readonly fields: readonly ApiField[];
}
