export { renderKustomization, SUPPORTED_FIELDS, type RenderedObject, type RenderOptions } from './render.ts';
export { deepEqual, isObject, type Json, type JsonObject } from '../json/json.ts';
export { applyDeploymentTransforms, withLabels } from './apply-one.ts';
export type { ImageEntry, LabelEntry } from './transformers.ts';
export { labelEntries } from './labels.ts';
export { checkDefaultKustomization, withDefaultTransforms } from './default-kustomization.ts';
export {
  renderConfig,
  renderWith,
  type Renderer,
  type Rendered,
  type RenderedWith,
} from './render-config.ts';
