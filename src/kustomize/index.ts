export { renderKustomization, SUPPORTED_FIELDS, type RenderedObject, type RenderOptions } from './render.ts';
export { deepEqual, isObject, type Json, type JsonObject } from '../json/json.ts';
export { applyDeploymentTransforms } from './apply-one.ts';
export type { ImageEntry } from './transformers.ts';
