/**
 * A marker registry is data: each marker says where it may stand, which arguments it takes and what
 * it does. One table drives parsing, argument validation, the generator's effect and the docs.
 */
import type { JsonValue } from '../json/json.ts';

/** Where a marker may stand: a package (version folder / module), a type declaration, or a field. */
export type MarkerTarget = 'package' | 'type' | 'field';

/**
 * Argument value types.
 * - `string`: a bare word or a quoted JSON string (`"a b"`); as the only value, the rest of the line.
 * - `raw`: the rest of the line verbatim (e.g. a regular expression); only as the positional value.
 * - `int`, `number`, `bool`: JSON numbers / `true|false` (a flag without value means `true`).
 * - `string[]`: items separated by `;` (`a;b;c`), each a bare word or quoted string.
 * - `json`: a JSON value (`{"a":1}`, `3`, `"x"`); a bare word that is not JSON is taken as a string.
 * - `json[]`: `;`-separated JSON values (bare words are strings), e.g. an enum `a;b;3`.
 */
export type ArgType = 'string' | 'raw' | 'int' | 'number' | 'bool' | 'string[]' | 'json' | 'json[]';

export type { JsonValue } from '../json/json.ts';
export type ArgValue = JsonValue;

export interface ArgSpec {
  readonly type: ArgType;
  /** Must be given (named arguments) / must not be empty (positional value). */
  readonly required?: boolean;
  /** Allowed values (string arguments). */
  readonly oneOf?: readonly string[];
  readonly help: string;
}

export interface MarkerSpec<Effect> {
  /**
   * The JSDoc tag without `@` (`minimum`). A name with a space (`subresource scale`) is a variant:
   * the tag `@subresource` followed by the word `scale`.
   */
  readonly name: string;
  readonly targets: readonly MarkerTarget[];
  /** The positional value (`@minimum 1`), if the marker takes one. */
  readonly value?: ArgSpec;
  /** Named arguments (`@printcolumn name=Age type=date`). */
  readonly args?: Readonly<Record<string, ArgSpec>>;
  /** May appear more than once on the same declaration (otherwise a repeat is an error). */
  readonly repeatable?: boolean;
  /** Also usable as `@items:<name>` on an array, applying to each element. */
  readonly itemsVariant?: boolean;
  /** Other tag names accepted for this marker (e.g. `shortName` and `shortNames`). */
  readonly aliases?: readonly string[];
  /** The controller-gen marker(s) this one corresponds to, for the docs. */
  readonly controllerGen?: string;
  readonly help: string;
  /** Set when the marker is recognised but not supported: using it is an error giving this reason. */
  readonly unsupported?: string;
  /** What the generator does with it: generator-specific data (a function, a key...). */
  readonly effect?: Effect;
}

/** file:line of a marker or declaration; `line` is 1-based. */
export interface SourceLocation {
  readonly file: string;
  readonly line: number;
}

/** A JSDoc tag as found in the comment, before its arguments are parsed. */
export interface RawTag {
  readonly name: string;
  /** The text after the tag name up to the next tag, continuation lines joined with `\n`. */
  readonly text: string;
  readonly line: number;
}

export interface ParsedMarker<Effect> {
  readonly spec: MarkerSpec<Effect>;
  /** The tag as written (`items:minimum`, `subresource`). */
  readonly tag: string;
  /** The positional value, if the marker takes one. */
  readonly value: ArgValue | undefined;
  readonly args: Readonly<Record<string, ArgValue>>;
  /** `@items:<name>`: applies to the elements of an array. */
  readonly items: boolean;
  readonly location: SourceLocation;
}
