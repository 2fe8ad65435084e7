export {
  defineKind,
  apiVersionOf,
  collectionPath,
  objectPath,
  kindKey,
  type Kind,
  type KindSpec,
} from './kind.ts';
export {
  ApiError,
  isApiError,
  isNotFound,
  isConflict,
  isAlreadyExists,
  isForbidden,
  isInvalid,
  isGone,
  type StatusCause,
  type StatusReason,
} from './api-error.ts';
export {
  Transport,
  HttpTransport,
  isTransport,
  retryAfter,
  type TransportOptions,
  type TransportRequest,
  type ResponseObserver,
  type Query,
} from './transport.ts';
export {
  ResourceClient,
  type ObjectLike,
  type ObjectKey,
  type ObjectList,
  type ListOptions,
  type WriteOptions,
  type PatchOptions,
  type PatchType,
  type ApplyObject,
  type ApplyOptions,
  type DeleteOptions,
  type JsonPatchOperation,
  type WatchEvent,
  type WatchOptions,
  type Scale,
  type PartialObjectMetadata,
  PARTIAL_METADATA_ACCEPT,
  PARTIAL_METADATA_LIST_ACCEPT,
} from './resource-client.ts';
export {
  credentialsFromKubeConfig,
  kubeConfigSource,
  childProcessSource,
  type Credentials,
  type CredentialSource,
} from './credentials.ts';
export type { MergePatch, ApplyConfiguration } from './patch-types.ts';
export { checkDefaultKubeConfig, KubeConfigNotFoundError } from './kubeconfig-check.ts';
export { withRetries, isIdempotent, isRetryable, type RetryOptions } from './retry.ts';
