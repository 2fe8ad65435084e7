import type { Counter, Gauge, Registry } from '../metrics.ts';
import type { RingMetrics } from './ring.ts';

/** Sharding's Prometheus series. */
export interface ShardMetrics extends RingMetrics {
  /** Cached objects of a sharded controller's kind in the slots this replica owns. */
  readonly objects: Gauge;
  /** 1 when the API server filters the kind's list/watch by shard (KEP-5866), 0 when filtered here. */
  readonly serverSide: Gauge;
}

export function shardMetrics(registry: Registry): ShardMetrics {
  const counter = (name: string, help: string, labels: readonly string[]): Counter =>
    registry.counter(name, help, labels);
  const gauge = (name: string, help: string, labels: readonly string[] = ['ring']): Gauge =>
    registry.gauge(name, help, labels);
  return {
    members: gauge('shard_ring_members', 'Live members of the shard ring as this replica sees them'),
    ownedSlots: gauge('shard_owned_slots', 'Hash-space slots this replica reconciles'),
    ownedRanges: gauge('shard_owned_ranges', 'Contiguous hash ranges this replica reconciles'),
    handoffs: counter('shard_handoffs_total', 'Slots acquired or released by this replica', [
      'ring',
      'direction',
    ]),
    fenced: counter('shard_fenced_total', 'Times this replica stopped every slot because renewals failed', [
      'ring',
    ]),
    objects: gauge('shard_objects', 'Cached objects of a sharded controller in the slots this replica owns', [
      'ring',
      'controller',
    ]),
    serverSide: gauge('shard_server_side_filtering', '1 when the API server filters list/watch by shard', [
      'ring',
      'kind',
    ]),
  };
}
