import type { ObjectMeta } from 'op-gen';
import type { CrewStatus, FooSpec } from '../v1/common.ts';

/**
 * @kind
 * @subresource status
 */
export interface FirstMate {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: FooSpec;
  status?: CrewStatus;
}
