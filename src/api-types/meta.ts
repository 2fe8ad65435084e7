import type { int64, Time } from './scalars.ts';

/** An object whose unknown fields the API server keeps: `x-kubernetes-preserve-unknown-fields: true`. */
export interface PreserveUnknownFields {
  readonly [key: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: Time;
  fieldsType?: string;
  fieldsV1?: PreserveUnknownFields;
  subresource?: string;
}

/**
 * Kubernetes ObjectMeta as it appears on the wire (timestamps are strings).
 * In a CRD, a kind's `metadata` becomes `{type: object}`; the API server owns its schema.
 */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: Time;
  deletionTimestamp?: Time;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

/**
 * Condition contains details for one aspect of the current state of this API Resource.
 */
export interface Condition {
  /**
   * type of condition in CamelCase or in foo.example.com/CamelCase.
   * @maxLength 316
   * @pattern ^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$
   */
  type: string;
  /** status of the condition, one of True, False, Unknown. */
  status: 'True' | 'False' | 'Unknown';
  /**
   * observedGeneration represents the .metadata.generation that the condition was set based upon.
   * For instance, if .metadata.generation is currently 12, but the .status.conditions[x].observedGeneration is 9, the condition is out of date
   * with respect to the current state of the instance.
   * @minimum 0
   */
  observedGeneration?: int64;
  /**
   * lastTransitionTime is the last time the condition transitioned from one status to another.
   * This should be when the underlying condition changed.  If that is not known, then using the time when the API field changed is acceptable.
   */
  lastTransitionTime: Time;
  /**
   * reason contains a programmatic identifier indicating the reason for the condition's last transition.
   * Producers of specific condition types may define expected values and meanings for this field,
   * and whether the values are considered a guaranteed API.
   * The value should be a CamelCase string.
   * This field may not be empty.
   * @maxLength 1024
   * @minLength 1
   * @pattern ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$
   */
  reason: string;
  /**
   * message is a human readable message indicating details about the transition.
   * This may be an empty string.
   * @maxLength 32768
   */
  message: string;
}

/** The fields every Kubernetes object has. */
export interface KubernetesObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}
