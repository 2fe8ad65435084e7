export {
  buildManager,
  MANAGER_BUNDLE_HEADER,
  type BuildManagerOptions,
  type BuildManagerResult,
} from './manager-bundle.ts';
