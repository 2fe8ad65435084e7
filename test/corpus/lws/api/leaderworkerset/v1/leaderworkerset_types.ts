import type {
  V1PersistentVolumeClaim,
  V1PodTemplateSpec,
  V1StatefulSetPersistentVolumeClaimRetentionPolicy,
} from '@kubernetes/client-node';
import type { Condition, int32, int64, IntOrString, ObjectMeta } from 'op-gen';

// Labels and annotations the controller puts on the pods it creates.
export const SetNameLabelKey = 'leaderworkerset.sigs.k8s.io/name';
export const GroupIndexLabelKey = 'leaderworkerset.sigs.k8s.io/group-index';
export const WorkerIndexLabelKey = 'leaderworkerset.sigs.k8s.io/worker-index';
export const SizeAnnotationKey = 'leaderworkerset.sigs.k8s.io/size';

export type SubGroupPolicyType = string;
export const SubGroupPolicyTypeLeaderWorker: SubGroupPolicyType = 'LeaderWorker';
export const SubGroupPolicyTypeLeaderExcluded: SubGroupPolicyType = 'LeaderExcluded';

export type SubdomainPolicy = string;
export type RolloutStrategyType = string;
export type RestartPolicyType = string;
export type StartupPolicyType = string;

export interface LeaderWorkerSetSpec {
  /**
   * Number of leader-worker groups.
   * @default 1
   * @minimum 0
   * @maximum 1000000
   */
  replicas?: int32;
  leaderWorkerTemplate: LeaderWorkerTemplate;
  rolloutStrategy?: RolloutStrategy;
  /**
   * @default LeaderCreated
   * @enum LeaderCreated;LeaderReady
   */
  startupPolicy?: StartupPolicyType;
  networkConfig?: NetworkConfig;
}

export interface LeaderWorkerTemplate {
  /** The leader pod's template; the worker template when unset. */
  leaderTemplate?: V1PodTemplateSpec;
  workerTemplate: V1PodTemplateSpec;
  /**
   * Pods per group, leader included.
   * @default 1
   */
  size?: int32;
  /**
   * @default RecreateGroupOnPodRestart
   * @enum Default;RecreateGroupOnPodRestart;RecreateGroupAfterStart;None
   */
  restartPolicy?: RestartPolicyType;
  subGroupPolicy?: SubGroupPolicy;
  volumeClaimTemplates?: V1PersistentVolumeClaim[];
  persistentVolumeClaimRetentionPolicy?: V1StatefulSetPersistentVolumeClaimRetentionPolicy;
}

export interface RolloutStrategy {
  /**
   * @enum RollingUpdate
   * @default RollingUpdate
   */
  type: RolloutStrategyType;
  rollingUpdateConfiguration?: RollingUpdateConfiguration;
}

export interface SubGroupPolicy {
  /**
   * @enum LeaderWorker;LeaderExcluded
   * @default LeaderWorker
   */
  subGroupPolicyType?: SubGroupPolicyType;
  subGroupSize?: int32;
}

export interface NetworkConfig {
  /** @enum Shared;UniquePerReplica */
  subdomainPolicy: SubdomainPolicy;
}

export interface RollingUpdateConfiguration {
  /** @default 0 */
  partition?: int32;
  /** @default 1 */
  maxUnavailable?: IntOrString;
  /** @default 0 */
  maxSurge?: IntOrString;
}

export interface LeaderWorkerSetStatus {
  /**
   * @listType map
   * @listMapKey type
   */
  conditions?: Condition[];
  readyReplicas?: int32;
  updatedReplicas?: int32;
  replicas?: int32;
  /** The label selector of the leader pods, as a string, for the scale subresource. */
  hpaPodSelector?: string;
  observedGeneration?: int64;
}

/**
 * Groups of pods, one leader and its workers each, scaled as a unit.
 * @kind
 * @subresource status
 * @subresource scale specpath=.spec.replicas statuspath=.status.replicas selectorpath=.status.hpaPodSelector
 * @shortName lws
 * @printcolumn name=Ready type=integer jsonPath=.status.readyReplicas description="Number of ready replicas"
 * @printcolumn name=Desired type=integer jsonPath=.spec.replicas description="Number of desired replicas"
 * @printcolumn name=Up-to-date type=integer jsonPath=.status.updatedReplicas description="Number of up-to-date replicas"
 * @printcolumn name=Age type=date jsonPath=.metadata.creationTimestamp
 */
export interface LeaderWorkerSet {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: LeaderWorkerSetSpec;
  status?: LeaderWorkerSetStatus;
}
