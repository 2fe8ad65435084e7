export type {
  ArgSpec,
  ArgType,
  ArgValue,
  JsonValue,
  MarkerSpec,
  MarkerTarget,
  ParsedMarker,
  RawTag,
  SourceLocation,
} from './types.ts';
export { MarkerArgumentError, convertArg, parseNamedArgs, splitList, splitNamedArgs } from './args.ts';
export { parseDocComment, type DocComment, type DocCommentOptions } from './jsdoc.ts';
export { MarkerRegistry, markerError } from './registry.ts';
export { renderMarkerTable } from './docs.ts';
export { orphanDocComments, type OrphanDocComment } from './orphan-docs.ts';
