export { startControlPlane, type ControlPlane, type ControlPlaneOptions } from './control-plane.ts';
export {
  findControlPlaneBinaries,
  ENVTEST_K8S_VERSION,
  type ControlPlaneBinaries,
  type BinaryLookup,
} from './binaries.ts';
export { controlPlaneOrSkip, controlPlaneSkip } from './availability.ts';
export type { ServiceAccountConfigOptions } from './service-account.ts';
export { installCrd } from './install-crd.ts';
export {
  installWebhooks,
  rewriteClientConfig,
  type WebhookInstallOptions,
  type WebhookEnvironment,
  type WebhookConfiguration,
} from './install-webhooks.ts';
export { makeWebhookCertificates, type WebhookCertificates } from './webhook-certs.ts';
export {
  FakeApiServer,
  connectionRefused,
  connectionReset,
  statusError,
  type FakeApiServerOptions,
  type FakeObject,
  type FakeRequest,
  type FakeResourceOptions,
  type Fault,
} from './fake-api-server.ts';
