import type { Condition, int32, ObjectMeta } from 'op-gen';

export interface MemcachedSpec {
  /**
   * How many memcached pods to run.
   * @minimum 1
   * @maximum 3
   * @exclusiveMaximum false
   */
  size?: int32;
}

export interface MemcachedStatus {
  /**
   * @listType map
   * @listMapKey type
   */
  conditions?: Condition[];
}

/**
 * A memcached deployment.
 * @kind
 * @subresource status
 */
export interface Memcached {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: MemcachedSpec;
  status?: MemcachedStatus;
}
