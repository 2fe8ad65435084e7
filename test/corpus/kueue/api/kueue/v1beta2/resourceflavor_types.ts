import type { V1Taint, V1Toleration } from '@kubernetes/client-node';
import type { ObjectMeta } from 'op-gen';
import type { TopologyReference } from './references.ts';

/**
 * @validation rule="!has(self.topologyName) || self.nodeLabels.size() >= 1" message="at least one nodeLabel is required when topology is set"
 * @validation rule="!has(oldSelf.topologyName) || (has(self.topologyName) && self.topologyName == oldSelf.topologyName)" message="topologyName is immutable when topologyName is set"
 */
export interface ResourceFlavorSpec {
  /**
   * Labels of the nodes this flavor stands for.
   * @mapType atomic
   * @maxProperties 8
   */
  nodeLabels?: Record<string, string>;
  /**
   * @listType atomic
   * @maxItems 8
   * @validation rule="self.all(x, x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])" message="supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'"
   */
  nodeTaints?: V1Taint[];
  /**
   * @listType atomic
   * @maxItems 8
   * @validation rule="self.all(x, !has(x.key) ? x.operator == 'Exists' : true)" message="operator must be Exists when 'key' is empty, which means 'match all values and all keys'"
   * @validation rule="self.all(x, has(x.tolerationSeconds) ? x.effect == 'NoExecute' : true)" message="effect must be 'NoExecute' when 'tolerationSeconds' is set"
   * @validation rule="self.all(x, !has(x.operator) || x.operator in ['Equal', 'Exists'])" message="supported toleration values: 'Equal'(default), 'Exists'"
   * @validation rule="self.all(x, has(x.operator) && x.operator == 'Exists' ? !has(x.value) : true)" message="a value must be empty when 'operator' is 'Exists'"
   * @validation rule="self.all(x, !has(x.effect) || x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])" message="supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'"
   */
  tolerations?: V1Toleration[];
  topologyName?: TopologyReference;
}

/**
 * A kind of nodes (labels, taints) that quotas are given for.
 * @kind
 * @storageversion
 * @resource scope=Cluster shortName=flavor;flavors;rf
 */
export interface ResourceFlavor {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: ResourceFlavorSpec;
}
