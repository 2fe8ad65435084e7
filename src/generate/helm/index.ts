/** `op-gen generate helm` as a library. */
export { generateHelm, type GenerateHelmOptions, type GenerateHelmResult } from './generate.ts';
export { chartTemplates, type ChartInput } from './chart.ts';
