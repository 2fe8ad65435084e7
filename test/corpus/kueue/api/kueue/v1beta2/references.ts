/**
 * The name of another kueue object (a DNS subdomain).
 * @maxLength 253
 * @pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$
 */
export type ClusterQueueReference = string;

/**
 * @maxLength 253
 * @pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$
 */
export type CohortReference = string;

/**
 * @maxLength 253
 * @pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$
 */
export type ResourceFlavorReference = string;

/**
 * @maxLength 253
 * @pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$
 */
export type TopologyReference = string;

/**
 * @maxLength 316
 * @minLength 1
 */
export type AdmissionCheckReference = string;

/** A resource name such as `cpu` or `nvidia.com/gpu`. */
export type ResourceName = string;
