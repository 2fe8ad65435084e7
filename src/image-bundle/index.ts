export {
  buildManager,
  COMPILE_CACHE_WARMER,
  MANAGER_BUNDLE_HEADER,
  type BuildManagerOptions,
  type BuildManagerResult,
} from './manager-bundle.ts';
