import type { ObjectMeta } from 'op-gen';

export const TopologySchedulingGate = 'kueue.x-k8s.io/topology';

export interface TopologySpec {
  /**
   * Node label keys, from the widest level to the narrowest.
   * @listType atomic
   * @minItems 1
   * @maxItems 16
   * @validation rule="self == oldSelf || (self[size(self) - 1].nodeLabel == 'kubernetes.io/hostname' && oldSelf[size(oldSelf) - 1].nodeLabel == 'kubernetes.io/hostname')" message="levels are mutable only when kubernetes.io/hostname is the lowest level both before and after the change"
   * @validation rule="size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0" message="must be unique"
   * @validation rule="size(self.filter(i, i.nodeLabel == 'kubernetes.io/hostname')) == 0 || self[size(self) - 1].nodeLabel == 'kubernetes.io/hostname'" message="the kubernetes.io/hostname label can only be used at the lowest level of topology"
   */
  levels: TopologyLevel[];
}

export interface TopologyLevel {
  /**
   * @minLength 1
   * @maxLength 316
   * @pattern ^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$
   */
  nodeLabel: string;
}

/**
 * @kind
 * @storageversion
 * @resource scope=Cluster shortName=topo
 */
export interface Topology {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: TopologySpec;
}
