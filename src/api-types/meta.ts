import type { Time } from './scalars.ts';

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

/** metav1.Condition: the standard shape of a status condition. */
export interface Condition {
  /** type of condition in CamelCase or in foo.example.com/CamelCase. */
  type: string;
  /** status of the condition, one of True, False, Unknown. */
  status: 'True' | 'False' | 'Unknown';
  /** observedGeneration is the .metadata.generation the condition was set based upon. */
  observedGeneration?: number;
  /** lastTransitionTime is the last time the condition transitioned from one status to another. */
  lastTransitionTime: Time;
  /** reason is a programmatic identifier (CamelCase) of the reason for the last transition. */
  reason: string;
  /** message is a human readable message about the transition. */
  message: string;
}

/** The fields every Kubernetes object has. */
export interface KubernetesObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}
