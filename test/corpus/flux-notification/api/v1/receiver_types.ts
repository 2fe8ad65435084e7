import type { Condition, Duration, int64, ObjectMeta } from 'op-gen';
import type { LocalObjectReference, ReconcileRequestStatus } from './meta.ts';
import type { CrossNamespaceObjectReference } from './reference_types.ts';

export const ReceiverWebhookPath = '/hook/';
export const GenericReceiver = 'generic';
export const GitHubReceiver = 'github';

/**
 * @validation rule="self.type != 'generic-oidc' || (has(self.oidcProviders) && size(self.oidcProviders) > 0)" message="generic-oidc receivers must define at least one oidcProvider"
 * @validation rule="self.type == 'generic-oidc' || !has(self.oidcProviders) || size(self.oidcProviders) == 0" message="oidcProviders can only be set when type is generic-oidc"
 * @validation rule="self.type != 'generic-oidc' || !has(self.secretRef)" message="secretRef cannot be set when type is generic-oidc"
 * @validation rule="self.type == 'generic-oidc' || has(self.secretRef)" message="secretRef is required when type is not generic-oidc"
 */
export interface ReceiverSpec {
  /**
   * Which webhook sender the payloads come from.
   * @enum generic;generic-hmac;generic-oidc;github;gitlab;bitbucket;harbor;dockerhub;quay;gcr;nexus;acr;cdevents
   */
  type: string;
  /**
   * @pattern ^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$
   * @default 10m
   */
  interval?: Duration;
  events?: string[];
  /** The objects to reconcile when a payload arrives. */
  resources: ReceiverResource[];
  /** A CEL expression selecting among `resources`. */
  resourceFilter?: string;
  secretRef?: LocalObjectReference;
  /**
   * @listType map
   * @listMapKey issuerURL
   */
  oidcProviders?: OIDCProvider[];
  suspend?: boolean;
}

export interface ReceiverResource extends CrossNamespaceObjectReference {
  filter?: string;
}

export interface OIDCProvider {
  /** @pattern ^https?:// */
  issuerURL: string;
  audience?: string;
  variables?: OIDCVariable[];
  /** @minItems 1 */
  validations: OIDCValidation[];
}

export interface OIDCVariable {
  name: string;
  expression: string;
}

export interface OIDCValidation {
  expression: string;
  message: string;
}

export interface ReceiverStatus extends ReconcileRequestStatus {
  conditions?: Condition[];
  webhookPath?: string;
  observedGeneration?: int64;
}

/**
 * An incoming webhook that triggers reconciliations.
 * @kind
 * @storageversion
 * @categories all;fluxcd;fluxcd-notifications
 * @subresource status
 * @printcolumn name=Age type=date jsonPath=.metadata.creationTimestamp description=""
 * @printcolumn name=Ready type=string jsonPath=.status.conditions[?(@.type=="Ready")].status description=""
 * @printcolumn name=Status type=string jsonPath=.status.conditions[?(@.type=="Ready")].message description=""
 * @metadata annotations=kustomize.toolkit.fluxcd.io/substitute=disabled
 */
export interface Receiver {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: ReceiverSpec;
  /** @default {"observedGeneration":-1} */
  status?: ReceiverStatus;
}
