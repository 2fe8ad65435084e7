export { generateClients, type GenerateClientOptions, type GenerateClientResult } from './generate-client.ts';
