/** Admission and conversion webhooks: see docs/runtime.md, "Webhooks". */
export { webhookPath, CONVERSION_PATH, type GroupVersionKind, type AdmissionWebhookType } from './paths.ts';
export {
  field,
  FieldPath,
  ValidationError,
  AdmissionDenied,
  fieldErrorMessage,
  type FieldError,
  type FieldErrorType,
} from './field.ts';
export type {
  AdmissionContext,
  AdmissionHandler,
  AdmissionRequest,
  AdmissionResponse,
  AdmissionUserInfo,
  ConversionRequest,
  ConversionResponse,
  Defaulter,
  GroupVersionResource,
  Operation,
  ResponseStatus,
  SpokeConverter,
  Validator,
  Warnings,
} from './types.ts';
export { WebhookBuilder, spoke, type AdmissionWebhookOptions } from './builder.ts';
export { ConversionWebhook, ConversionError, type SpokeRegistration } from './conversion.ts';
export { allowed, denied, defaultingHandler, validatingHandler } from './admission.ts';
export { createPatch, applyPatch, type PatchOperation, type JsonValue } from '../../json/json-patch.ts';
export {
  WebhookServer,
  DEFAULT_WEBHOOK_CERT_DIR,
  WEBHOOK_PROBE_PATH,
  WEBHOOK_PROBE_MESSAGE,
  type WebhookServerOptions,
} from './server.ts';
export { WebhookMetrics } from './metrics.ts';
