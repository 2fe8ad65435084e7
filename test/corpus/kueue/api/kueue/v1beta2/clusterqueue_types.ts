import type { V1LabelSelector } from '@kubernetes/client-node';
import type { Condition, int32, ObjectMeta, Quantity } from 'op-gen';
import type { AdmissionScope, FairSharing, FairSharingStatus } from './fairsharing_types.ts';
import type {
  AdmissionCheckReference,
  CohortReference,
  ResourceFlavorReference,
  ResourceName,
} from './references.ts';

/** @validation rule="!has(self.cohortName) && has(self.resourceGroups) ? self.resourceGroups.all(rg, rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit)))) : true" message="borrowingLimit must be nil when cohort is empty" */
export interface ClusterQueueSpec {
  /**
   * Quotas, per group of resources and flavor.
   * @listType atomic
   * @maxItems 16
   */
  resourceGroups?: ResourceGroup[];
  cohortName?: CohortReference;
  /**
   * @default BestEffortFIFO
   * @enum StrictFIFO;BestEffortFIFO
   */
  queueingStrategy?: string;
  namespaceSelector?: V1LabelSelector;
  /** @default {} */
  flavorFungibility?: FlavorFungibility;
  /** @default {} */
  preemption?: ClusterQueuePreemption;
  admissionChecksStrategy?: AdmissionChecksStrategy;
  /**
   * @enum None;Hold;HoldAndDrain
   * @default None
   */
  stopPolicy?: string;
  fairSharing?: FairSharing;
  admissionScope?: AdmissionScope;
  concurrentAdmissionPolicy?: ConcurrentAdmissionPolicy;
}

export interface AdmissionChecksStrategy {
  /**
   * @listType map
   * @listMapKey name
   * @minItems 1
   * @maxItems 64
   */
  admissionChecks: AdmissionCheckStrategyRule[];
}

export interface AdmissionCheckStrategyRule {
  name: AdmissionCheckReference;
  /**
   * @listType set
   * @maxItems 64
   */
  onFlavors?: ResourceFlavorReference[];
}

export interface ConcurrentAdmissionPolicy {
  migration: ConcurrentAdmissionMigration;
}

export interface ConcurrentAdmissionMigration {
  mode: ConcurrentAdmissionMigrationMode;
  constraints?: ConcurrentAdmissionConstraints;
}

export interface ConcurrentAdmissionConstraints {
  lastAcceptableFlavorName?: ResourceFlavorReference;
}

/**
 * @maxLength 253
 * @enum TryPreferredFlavors;RetainFirstAdmission
 */
export type ConcurrentAdmissionMigrationMode = string;

/** @validation rule="self.flavors.all(x, size(x.resources) == size(self.coveredResources))" message="flavors must have the same number of resources as the coveredResources" */
export interface ResourceGroup {
  /**
   * @minItems 1
   * @maxItems 64
   * @listType atomic
   */
  coveredResources: ResourceName[];
  /**
   * @listType map
   * @listMapKey name
   * @minItems 1
   * @maxItems 64
   */
  flavors: FlavorQuotas[];
}

export interface FlavorQuotas {
  name: ResourceFlavorReference;
  /**
   * @listType map
   * @listMapKey name
   * @minItems 1
   * @maxItems 64
   */
  resources: ResourceQuota[];
}

export interface ResourceQuota {
  name: ResourceName;
  nominalQuota: Quantity;
  borrowingLimit?: Quantity;
  lendingLimit?: Quantity;
}

export interface ClusterQueueStatus {
  /**
   * @listType map
   * @listMapKey type
   * @maxItems 16
   */
  conditions?: Condition[];
  /**
   * @listType map
   * @listMapKey name
   * @maxItems 64
   */
  flavorsReservation?: FlavorUsage[];
  /**
   * @listType map
   * @listMapKey name
   * @maxItems 64
   */
  flavorsUsage?: FlavorUsage[];
  pendingWorkloads?: int32;
  reservingWorkloads?: int32;
  admittedWorkloads?: int32;
  fairSharing?: FairSharingStatus;
}

export interface FlavorUsage {
  name: ResourceFlavorReference;
  /**
   * @listType map
   * @listMapKey name
   * @maxItems 64
   */
  resources: ResourceUsage[];
}

export interface ResourceUsage {
  name: ResourceName;
  total?: Quantity;
  borrowed?: Quantity;
}

/** @validation rule="!has(self.preference) || (self.whenCanBorrow == 'TryNextFlavor' && self.whenCanPreempt == 'TryNextFlavor')" message="preference can only be set when both whenCanBorrow and whenCanPreempt are TryNextFlavor" */
export interface FlavorFungibility {
  /**
   * @enum MayStopSearch;TryNextFlavor
   * @default MayStopSearch
   */
  whenCanBorrow?: string;
  /**
   * @enum MayStopSearch;TryNextFlavor
   * @default TryNextFlavor
   */
  whenCanPreempt?: string;
  /** @enum BorrowingOverPreemption;PreemptionOverBorrowing */
  preference?: string;
}

/** @validation rule="!(self.reclaimWithinCohort == 'Never' && has(self.borrowWithinCohort) &&  self.borrowWithinCohort.policy != 'Never')" message="reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never" */
export interface ClusterQueuePreemption {
  /**
   * @default Never
   * @enum Never;LowerPriority;Any
   */
  reclaimWithinCohort?: string;
  /** @default {} */
  borrowWithinCohort?: BorrowWithinCohort;
  /**
   * @default Never
   * @enum Never;LowerPriority;LowerOrNewerEqualPriority
   */
  withinClusterQueue?: string;
}

export interface BorrowWithinCohort {
  /**
   * @default Never
   * @enum Never;LowerPriority
   */
  policy?: string;
  maxPriorityThreshold?: int32;
}

/**
 * A cluster-wide queue with quotas per resource flavor.
 * @kind
 * @storageversion
 * @resource scope=Cluster shortName=cq
 * @subresource status
 * @printcolumn name=Cohort jsonPath=.spec.cohortName type=string description="Cohort that this ClusterQueue belongs to"
 * @printcolumn name=Strategy jsonPath=.spec.queueingStrategy type=string description="The queueing strategy used to prioritize workloads" priority=1
 * @printcolumn name="Pending Workloads" jsonPath=.status.pendingWorkloads type=integer description="Number of pending workloads"
 * @printcolumn name="Admitted Workloads" jsonPath=.status.admittedWorkloads type=integer description="Number of admitted workloads that haven't finished yet" priority=1
 */
export interface ClusterQueue {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: ClusterQueueSpec;
  status?: ClusterQueueStatus;
}
