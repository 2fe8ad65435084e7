/**
 * The API model (source/api-model.ts) as generators read it: `loadApiKinds` (kinds, versions, tags,
 * docs, locations) and `loadApiModel` (with every field's path, tags, docs and location). Both come
 * from the CRD generator's walk of the API sources, which checks them as `generate crd` does (a
 * source `generate crd` rejects fails here too, with the same problems). This module is the one
 * place outside generate/crd that reads that walk: its users see no schema.
 */
import type { ApiKindInfo, ApiModelKind, ApiModelOptions } from '../source/api-model.ts';
import { walkWith, type CrdFrontEnd } from './crd/front-end.ts';
import { walkApi } from './crd/model.ts';

export type { ApiField, ApiKindInfo, ApiModelKind, ApiModelOptions } from '../source/api-model.ts';

/** Every kind in the API sources (each version separately), with its doc comment; no fields. */
export async function loadApiKinds(
  options: ApiModelOptions,
  front: CrdFrontEnd = 'auto',
): Promise<ApiKindInfo[]> {
  // Without field docs the walk reuses a type's schema where several fields use it (as generate crd
  // does), and the syntax front end can read the sources (it collects no field docs): it reads them
  // with no problem or declines, so its kinds are the checker walk's.
  const { kinds, problems } = await walkWith(options, front);
  problems.throwIfAny();
  return kinds.map(kindInfo);
}

/** Every kind in the API sources (each version separately), with the docs and tags of the kind and its fields. */
export async function loadApiModel(options: ApiModelOptions): Promise<ApiModelKind[]> {
  const { kinds, problems } = await walkApi(options, { collectDocs: true });
  problems.throwIfAny();
  return kinds.map((k) => ({ ...kindInfo(k), fields: k.fields }));
}

function kindInfo(k: ApiKindInfo): ApiKindInfo {
  return {
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
    location: k.location,
  };
}
