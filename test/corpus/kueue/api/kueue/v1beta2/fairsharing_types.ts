import type { int64, Quantity } from 'op-gen';

export interface FairSharing {
  /**
   * The share of this queue or cohort relative to its siblings.
   * @default 1
   */
  weight?: Quantity;
}

export interface FairSharingStatus {
  weightedShare: int64;
}

export const UsageBasedAdmissionFairSharing = 'UsageBasedAdmissionFairSharing';
export const NoAdmissionFairSharing = 'NoAdmissionFairSharing';

export interface AdmissionScope {
  /** @enum UsageBasedAdmissionFairSharing;NoAdmissionFairSharing */
  admissionMode: string;
}
