/** `op-gen generate webhook` as a library (the bundle and `create webhook` use it). */
export {
  conversionKinds,
  generateWebhooks,
  planWebhooks,
  type ConversionKind,
  type GenerateWebhookOptions,
  type GenerateWebhookResult,
  type WebhookPlan,
  webhookGenerator,
} from './generate.ts';
export type { AdmissionWebhook, WebhookConfigurationObject } from './admission.ts';
export { CONVERSION_PATH, WEBHOOK_PORT } from './deploy-config.ts';
