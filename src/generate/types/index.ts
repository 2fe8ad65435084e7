export { generateTypes, type GenerateTypesOptions, type GenerateTypesResult } from './generate-types.ts';
export { readCrds, parseCrds, type CrdSource, type CrdDocument } from './read-crds.ts';
export { toJsonSchema } from './crd-to-json-schema.ts';
