// The shared Flux API types (github.com/fluxcd/pkg/apis/meta) this API uses.

/** A reference to an object in the same namespace. */
export interface LocalObjectReference {
  name: string;
}

/** Status of the last handled reconcile request (the `reconcile.fluxcd.io/requestedAt` annotation). */
export interface ReconcileRequestStatus {
  lastHandledReconcileAt?: string;
}
