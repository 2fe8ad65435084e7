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
