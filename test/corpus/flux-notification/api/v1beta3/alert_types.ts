import type { ObjectMeta } from 'op-gen';
import type { LocalObjectReference } from '../v1/meta.ts';
import type { CrossNamespaceObjectReference } from '../v1/reference_types.ts';

export interface AlertSpec {
  providerRef: LocalObjectReference;
  /**
   * @enum info;error
   * @default info
   */
  eventSeverity?: string;
  eventSources: CrossNamespaceObjectReference[];
  inclusionList?: string[];
  eventMetadata?: Record<string, string>;
  exclusionList?: string[];
  /**
   * @maxLength 255
   * @deprecated use eventMetadata
   */
  summary?: string;
  suspend?: boolean;
}

/**
 * Which events go to which provider.
 * @kind
 * @storageversion
 * @categories all;fluxcd;fluxcd-notifications
 * @printcolumn name=Age type=date jsonPath=.metadata.creationTimestamp description=""
 * @metadata annotations=kustomize.toolkit.fluxcd.io/substitute=disabled
 */
export interface Alert {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: AlertSpec;
}
