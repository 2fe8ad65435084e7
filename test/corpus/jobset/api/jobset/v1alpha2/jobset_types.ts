import type { V1JobTemplateSpec, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import type { Condition, int32, ObjectMeta } from 'op-gen';

export const JobSetNameKey = 'jobset.sigs.k8s.io/jobset-name';
export const ReplicatedJobNameKey = 'jobset.sigs.k8s.io/replicatedjob-name';
export const JobIndexKey = 'jobset.sigs.k8s.io/job-index';

/** @validation rule="!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder == 'InOrder' && self.replicatedJobs.exists(x, has(x.dependsOn)))" message="StartupPolicy and DependsOn APIs are mutually exclusive" */
export interface JobSetSpec {
  /**
   * The groups of identical jobs the set runs.
   * @listType map
   * @listMapKey name
   */
  replicatedJobs?: ReplicatedJob[];
  /** @validation rule="self == oldSelf" message="Value is immutable" */
  network?: Network;
  /** @validation rule="self == oldSelf" message="Value is immutable" */
  successPolicy?: SuccessPolicy;
  /** @validation rule="self == oldSelf" message="Value is immutable" */
  failurePolicy?: FailurePolicy;
  /** @validation rule="self == oldSelf" message="Value is immutable" */
  startupPolicy?: StartupPolicy;
  suspend?: boolean;
  coordinator?: Coordinator;
  managedBy?: string;
  /** @minimum 0 */
  ttlSecondsAfterFinished?: int32;
  /**
   * @validation rule="self == oldSelf" message="Value is immutable"
   * @listType atomic
   * @maxItems 50
   */
  volumeClaimPolicies?: VolumeClaimPolicy[];
}

export interface JobSetStatus {
  /**
   * @listType map
   * @listMapKey type
   */
  conditions?: Condition[];
  restarts?: int32;
  restartsCountTowardsMax?: int32;
  terminalState?: string;
  /**
   * @listType map
   * @listMapKey name
   */
  replicatedJobsStatus?: ReplicatedJobStatus[];
  /** @minimum 0 */
  previousInPlaceRestartAttempt?: int32;
  /** @minimum 0 */
  currentInPlaceRestartAttempt?: int32;
}

export interface ReplicatedJobStatus {
  name: string;
  ready: int32;
  succeeded: int32;
  failed: int32;
  active: int32;
  suspended: int32;
  /**
   * @maxItems 1024
   * @listType atomic
   */
  jobRestarts?: int32[];
  /**
   * @maxItems 1024
   * @listType atomic
   */
  jobRestartsCountTowardsMax?: int32[];
}

/**
 * A set of jobs run and restarted together.
 * @kind
 * @subresource status
 * @printcolumn name=TerminalState jsonPath=.status.terminalState type=string description="Final state of JobSet"
 * @printcolumn name=Restarts jsonPath=.status.restarts type=string description="Number of restarts"
 * @printcolumn name=Completed type=string priority=0 jsonPath=.status.conditions[?(@.type=="Completed")].status
 * @printcolumn name=Suspended type=string jsonPath=.spec.suspend description="JobSet suspended"
 * @printcolumn name=Age jsonPath=.metadata.creationTimestamp type=date description="Time this JobSet was created"
 */
export interface JobSet {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: JobSetSpec;
  status?: JobSetStatus;
}

export interface ReplicatedJob {
  name: string;
  /** @default default */
  groupName?: string;
  template: V1JobTemplateSpec;
  /**
   * @default 1
   * @minimum 0
   */
  replicas?: int32;
  /**
   * @validation rule="self == oldSelf" message="Value is immutable"
   * @maxItems 5
   * @listType map
   * @listMapKey name
   */
  dependsOn?: DependsOn[];
}

export interface DependsOn {
  name: string;
  /** @enum Ready;Complete */
  status: string;
}

export interface Network {
  enableDNSHostnames?: boolean;
  subdomain?: string;
  publishNotReadyAddresses?: boolean;
}

export type FailurePolicyAction =
  | 'FailJobSet'
  | 'RestartJobSet'
  | 'RestartJobSetAndIgnoreMaxRestarts'
  | 'RestartJob'
  | 'RestartJobAndIgnoreMaxRestarts';

export interface FailurePolicyRule {
  name: string;
  action: FailurePolicyAction;
  // The Go source has `+kubebuilder:validation:UniqueItems:true` on these two; written with `:`
  // instead of `=`, controller-gen reads no value and emits nothing, so neither does this file.
  onJobFailureReasons?: string[];
  onJobFailureMessagePatterns?: string[];
  /** @listType atomic */
  targetReplicatedJobs?: string[];
}

export interface FailurePolicy {
  maxRestarts?: int32;
  /** @default Recreate */
  restartStrategy?: 'Recreate' | 'BlockingRecreate' | 'InPlaceRestart';
  rules?: FailurePolicyRule[];
}

export interface SuccessPolicy {
  operator: 'All' | 'Any';
  /** @listType atomic */
  targetReplicatedJobs?: string[];
}

export interface StartupPolicy {
  startupPolicyOrder: 'AnyOrder' | 'InOrder';
}

export interface Coordinator {
  replicatedJob: string;
  /** @type integer */
  jobIndex?: number;
  /** @type integer */
  podIndex?: number;
}

/** @validation rule="self.templates.all(t, !has(t.metadata.namespace) || size(t.metadata.namespace) == 0)" message="namespace cannot be set for VolumeClaimPolicies templates" */
export interface VolumeClaimPolicy {
  /**
   * @maxItems 50
   * @listType atomic
   */
  templates?: V1PersistentVolumeClaim[];
  retentionPolicy?: VolumeRetentionPolicy;
}

export interface VolumeRetentionPolicy {
  /** @default Delete */
  whenDeleted?: 'Delete' | 'Retain';
}
