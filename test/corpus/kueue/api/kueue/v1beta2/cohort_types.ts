import type { ObjectMeta } from 'op-gen';
import type { ResourceGroup } from './clusterqueue_types.ts';
import type { FairSharing, FairSharingStatus } from './fairsharing_types.ts';
import type { CohortReference } from './references.ts';

export interface CohortSpec {
  /** The parent cohort; unset for the root of a tree. */
  parentName?: CohortReference;
  /**
   * @listType atomic
   * @maxItems 16
   */
  resourceGroups?: ResourceGroup[];
  fairSharing?: FairSharing;
}

export interface CohortStatus {
  fairSharing?: FairSharingStatus;
}

/**
 * @kind
 * @storageversion
 * @resource scope=Cluster shortName=co
 * @subresource status
 */
export interface Cohort {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: CohortSpec;
  status?: CohortStatus;
}
