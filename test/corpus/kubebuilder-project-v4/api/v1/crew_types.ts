import type { ObjectMeta } from 'op-gen';
import type { CrewStatus, FooSpec } from './common.ts';

/**
 * A cluster-scoped kind with an irregular plural.
 * @kind
 * @subresource status
 * @resource path=admirales scope=Cluster
 */
export interface Admiral {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: FooSpec;
  status?: CrewStatus;
}

/**
 * @kind
 * @subresource status
 */
export interface Captain {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: FooSpec;
  status?: CrewStatus;
}

/**
 * Served as v1 (stored) and v2.
 * @kind
 * @storageversion
 * @subresource status
 */
export interface FirstMate {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: FooSpec;
  status?: CrewStatus;
}

/**
 * @kind
 * @subresource status
 * @plural navigators
 */
export interface Navigator {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: FooSpec;
  status?: CrewStatus;
}

/**
 * @kind
 * @subresource status
 */
export interface Sailor {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: FooSpec;
  status?: CrewStatus;
}
