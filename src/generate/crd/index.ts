/**
 * `op-gen generate crd` as a library. Other generators read the API sources through
 * generate/api-model.ts (re-exported here as `loadApiModel`), which sees no schema.
 */

export {
  crdGenerator,
  DEFAULT_CRD_DIR,
  generateCrds,
  type CrdPlan,
  type GenerateCrdsOptions,
  type GenerateCrdsResult,
} from './generate.ts';
export type { ApiKind, ApiModelOptions } from './model.ts';
export type { FieldDoc } from './schema-builder.ts';
export type { JSONSchemaProps, ValidationRule } from '../../api-types/json-schema.ts';
export type { CustomResourceDefinition } from './assemble.ts';
export { VERSION_ANNOTATION } from './assemble.ts';
export {
  formatBytes,
  ANNOTATION_LIMIT_BYTES,
  REQUEST_LIMIT_BYTES,
  type CrdSize,
  type DescriptionLimit,
} from './size-budget.ts';

export { loadApiModel } from '../api-model.ts';
