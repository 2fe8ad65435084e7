/**
 * op-gen/runtime: the controller runtime op-gen operators run on. See docs/runtime.md.
 */
export { Manager, ShutdownDeadlineError, type ManagerOptions } from './manager.ts';
export {
  SERVER_LIMIT_DEFAULTS,
  type ServerLimits,
  type ServerTlsOptions,
  type TlsOption,
} from './servers.ts';
export { ControllerBuilder, type MapFunction } from './builder.ts';
export {
  Controller,
  ReconcileTimeoutError,
  type Reconciler,
  type ReconcileContext,
  type Result,
  type ControllerOptions,
  type ReconcileGate,
  type StopOutcome,
} from './controller.ts';
export { isServerUnavailable } from './server-unavailable.ts';
export { TRACER_NAME, runtimeTracer, traceparentOf, tracedTransport } from './tracing.ts';
export { TerminalError, isTerminalError, type ErrorAction, type ErrorPolicy } from './terminal-error.ts';
export type { Runnable, RunnableFunction, AddOptions } from './runnables.ts';
export type { Request } from './object-key.ts';
export { keyOf, requestOf, objectKey } from './object-key.ts';
export { ReconcileClient, StatusWriter } from './reconcile-client.ts';
export { InformerCache, type CacheConnection } from './cache.ts';
export { Informer, type InformerHandlers, type InformerOptions, type ListWatcher } from './informer.ts';
export { InformerStore } from './informer-store.ts';
export { Watcher, type WatcherEvent, type WatcherOptions } from './watcher.ts';
export { Lister } from './lister.ts';
export { OWNER_INDEX, ownedBy, ownerUids, type IndexFunc, type StoreQuery } from './store-index.ts';
export { builtinKinds } from './builtin-kinds.ts';
export {
  generationChanged,
  labelsChanged,
  annotationsChanged,
  predicate,
  anyOf,
  type Predicate,
} from './predicates.ts';
export {
  WorkQueue,
  LOW_PRIORITY,
  NORMAL_PRIORITY,
  DEFAULT_MAX_SKIPS,
  type QueueMetrics,
  type WorkQueueOptions,
} from './workqueue.ts';
export {
  ItemExponentialFailureRateLimiter,
  BucketRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
  type RateLimiter,
} from './rate-limiter.ts';
export { realClock, FakeClock, type Clock } from './clock.ts';
export {
  setCondition,
  findCondition,
  isConditionTrue,
  removeCondition,
  conditionUnchanged,
  type ConditionInput,
} from './conditions.ts';
export {
  ensureFinalizer,
  hasFinalizer,
  isBeingDeleted,
  withFinalizer,
  withoutFinalizer,
  type FinalizeOutcome,
} from './finalizers.ts';
export { setControllerReference, controllerOf } from './owner-references.ts';
export {
  actionRequired,
  reportFailure,
  ownershipConflict,
  type ActionRequired,
  type ReportFailureOptions,
  type WithConditions,
} from './failures.ts';
export { Expectations } from './expectations.ts';
export { specHash, withSpecHash, specDrifted, stableJson, SPEC_HASH_ANNOTATION } from './spec-hash.ts';
export { createOrUpdate, type OperationResult } from './create-or-update.ts';
export { KubeEventRecorder, type EventRecorder, type EventType } from './events.ts';
export { LeaderElector, type LeaderElectionOptions } from './leader-election.ts';
export { ShardingCoordinator, type ShardingOptions } from './sharding/coordinator.ts';
export { ShardRing, type SlotState, type RingListener } from './sharding/ring.ts';
export { fnv1a64, hashHex, slotOfUid, type Hash64 } from './sharding/hash.ts';
export { assignSlots, slotRanges, shardSelector, type HashRange } from './sharding/assignment.ts';
export {
  createLogger,
  serializeError,
  isLogLevel,
  type Logger,
  type LogLevel,
  type LogFields,
} from './logger.ts';
export {
  RuntimeMetrics,
  Registry,
  Counter,
  Gauge,
  Histogram,
  exponentialBuckets,
  metricValue,
} from './metrics.ts';
export {
  MetricsAuthenticator,
  METRICS_AUTH_DEFAULTS,
  type MetricsAuthOptions,
  type AuthDecision,
  type UserInfo,
} from './metrics-auth.ts';
export {
  compileSelector,
  labelMatcher,
  parseLabelSelector,
  type CompiledSelector,
  type LabelSelector,
} from './label-selector.ts';
export {
  LabelSelectorError,
  type Requirement as LabelSelectorRequirement,
} from '../client/label-selector.ts';
export * from '../client/index.ts';
export * from './webhook/index.ts';
export { exitOnStartupError } from './startup-error.ts';
export * from './dependents/index.ts';
