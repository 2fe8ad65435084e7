/**
 * `op-gen generate crd` as a library: the bundle, client and scaffold generators use loadApiModel to
 * read the API sources the same way the CRD generator does.
 */
import type { ApiKind, ApiModelOptions } from './model.ts';
import { walkApi } from './model.ts';

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

/** Every kind in the API sources (each version separately), with the docs and tags of the kind and its fields. */
export async function loadApiModel(options: ApiModelOptions): Promise<ApiKind[]> {
  const { kinds, problems } = await walkApi(options, { collectDocs: true });
  problems.throwIfAny();
  return kinds.map((k) => ({
    group: k.group,
    version: k.version,
    kind: k.kind,
    plural: k.plural,
    singular: k.singular,
    namespaced: k.namespaced,
    storage: k.storage,
    served: k.served,
    description: k.description,
    tags: k.tags,
    fields: k.fields,
    location: k.location,
  }));
}
