import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Kind } from '../../client/kind.ts';
import { ResourceClient, type ObjectLike } from '../../client/resource-client.ts';
import type { Transport } from '../../client/transport.ts';
import type { InformerCache } from '../cache.ts';
import type { Clock } from '../clock.ts';
import type { ReconcileGate } from '../controller.ts';
import type { Logger } from '../logger.ts';
import { keyOf, objectKey, requestOf } from '../object-key.ts';
import type { Registry } from '../metrics.ts';
import { FULL_RANGE_SELECTOR, shardSelector, slotRanges } from './assignment.ts';
import { assertSlotCount, slotOfUid } from './hash.ts';
import { LeaseMemberStore, type MemberStore } from './membership.ts';
import { shardMetrics, type ShardMetrics } from './metrics.ts';
import { ShardRing, type RingTimings } from './ring.ts';

export interface ShardingOptions extends RingTimings {
  /** The ring's name: replicas of one operator share it (the label value on their Leases). */
  readonly ring: string;
  /** Namespace of the member Leases; default POD_NAMESPACE or `default`. */
  readonly namespace?: string;
  /** This replica's identity; default hostname + random suffix. */
  readonly identity?: string;
  /** Slices of the hash space (a power of two); every replica of a ring must agree. Default 256. */
  readonly slots?: number;
  /**
   * `auto` (default): ask the API server to filter sharded kinds (KEP-5866 shardSelector) when it
   * does, else watch everything and filter here. `off`: always filter here.
   */
  readonly serverSideFiltering?: 'auto' | 'off';
}

/** What sharding uses of the manager's informer cache. */
export type ShardCache = Pick<
  InformerCache,
  'get' | 'list' | 'addHandlers' | 'setListParams' | 'restartListWatch'
>;

interface Enqueuer {
  enqueue(key: string): void;
}

/** The gate of one controller: maps a key to its slot and asks the ring. */
export interface ControllerShardGate extends ReconcileGate {
  bind(controller: Enqueuer): void;
}

interface Member {
  readonly name: string;
  readonly kind: Kind<ObjectLike>;
  readonly sharded: boolean;
  controller: Enqueuer | undefined;
  /** key → uid of deleted objects, until their key is next dequeued. */
  readonly tombstones: Map<string, string>;
  /** key → slot of each admitted reconcile, for end(). */
  readonly running: Map<string, number[]>;
}

/**
 * Sharding for a manager: one ShardRing (membership and handoff) and a gate per controller.
 * Sharded controllers' objects go by the slot of their metadata.uid; unsharded controllers run on
 * the replica that holds slot 0. Owned objects follow their owner (the owner is looked up by key,
 * so `owns` and `watches(kind, mapFn)` both land on the target's shard).
 */
export class ShardingCoordinator {
  readonly ring: ShardRing;
  readonly metrics: ShardMetrics;
  private readonly cache: ShardCache;
  private readonly transport: Transport;
  private readonly log: Logger;
  private readonly options: ShardingOptions;
  private readonly members: Member[] = [];
  private readonly serverSide = new Set<string>();
  private started = false;
  /** Where to probe a namespaced kind when the manager watches only some namespaces. */
  private readonly probeNamespace: string | undefined;

  constructor(
    transport: Transport,
    cache: ShardCache,
    registry: Registry,
    logger: Logger,
    options: ShardingOptions,
    deps: { store?: MemberStore; clock?: Clock; probeNamespace?: string } = {},
  ) {
    if (!/^[a-z0-9]([-a-z0-9.]{0,40}[a-z0-9])?$/.test(options.ring))
      throw new Error(
        `sharding: ring "${options.ring}" must be a lowercase DNS name of at most 42 characters`,
      );
    const slots = options.slots ?? 256;
    assertSlotCount(slots);
    this.transport = transport;
    this.cache = cache;
    this.options = options;
    this.log = logger.child({ component: 'sharding' });
    this.metrics = shardMetrics(registry);
    this.probeNamespace = deps.probeNamespace;
    const identity = options.identity ?? `${hostname()}-${randomBytes(4).toString('hex')}`;
    const namespace = options.namespace ?? process.env.POD_NAMESPACE ?? 'default';
    const store = deps.store ?? new LeaseMemberStore(transport, { namespace, ring: options.ring, identity });
    this.ring = new ShardRing(store, {
      ring: options.ring,
      identity,
      slots,
      logger: this.log,
      metrics: this.metrics,
      ...(deps.clock ? { clock: deps.clock } : {}),
      ...(options.leaseDurationMs !== undefined ? { leaseDurationMs: options.leaseDurationMs } : {}),
      ...(options.renewDeadlineMs !== undefined ? { renewDeadlineMs: options.renewDeadlineMs } : {}),
      ...(options.retryPeriodMs !== undefined ? { retryPeriodMs: options.retryPeriodMs } : {}),
    });
    this.ring.addListener({
      onAcquired: (slots) => this.acquired(slots),
      onReleased: (slots) => this.released(slots),
    });
  }

  get identity(): string {
    return this.ring.identity;
  }

  /** Whether the API server filters this kind's list/watch (known after start()). */
  isServerSide(kind: Kind<unknown>): boolean {
    return this.serverSide.has(kindName(kind));
  }

  /** The gate for a controller; call bind() with the controller once it exists. */
  gateFor(name: string, kind: Kind<ObjectLike>, sharded: boolean): ControllerShardGate {
    const member: Member = {
      name,
      kind,
      sharded,
      controller: undefined,
      tombstones: new Map(),
      running: new Map(),
    };
    this.members.push(member);
    if (sharded) {
      this.cache.setListParams(kind, () =>
        this.serverSide.has(kindName(kind))
          ? { shardSelector: shardSelector(slotRanges(this.ring.heldSlots(), this.ring.slots)) }
          : {},
      );
      this.cache.addHandlers(kind, {
        onDelete: (obj) => {
          const uid = obj.metadata?.uid;
          if (uid) member.tombstones.set(objectKey(obj), uid);
        },
      });
    }
    return {
      bind: (controller) => {
        member.controller = controller;
      },
      tryBegin: (key) => {
        const slot = this.slotOf(member, key);
        if (slot === undefined || !this.ring.tryBegin(slot)) return false;
        const list = member.running.get(key);
        if (list) list.push(slot);
        else member.running.set(key, [slot]);
        return true;
      },
      end: (key) => {
        const list = member.running.get(key);
        const slot = list?.pop();
        if (list && list.length === 0) member.running.delete(key);
        if (slot !== undefined) this.ring.end(slot);
      },
    };
  }

  private slotOf(member: Member, key: string): number | undefined {
    if (!member.sharded) return 0;
    const req = requestOf(key);
    const obj = this.cache.get(member.kind, req.namespace, req.name);
    let uid = obj?.metadata?.uid;
    const tomb = member.tombstones.get(key);
    if (tomb !== undefined) {
      member.tombstones.delete(key);
      uid ??= tomb;
    }
    return uid ? slotOfUid(uid, this.ring.slots) : undefined;
  }

  /** Detects server-side filtering for the sharded kinds, then joins the ring (first round done). */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const kinds = new Map<string, Kind<ObjectLike>>();
    for (const m of this.members) if (m.sharded) kinds.set(kindName(m.kind), m.kind);
    for (const [name, kind] of kinds) {
      const server = this.options.serverSideFiltering !== 'off' && (await this.detect(kind));
      if (server) this.serverSide.add(name);
      this.metrics.serverSide.set({ ring: this.ring.ring, kind: name }, server ? 1 : 0);
      this.log.info(
        server
          ? 'the API server filters list/watch by shard (ShardedListAndWatch): caching only owned ranges'
          : 'the API server does not filter by shard: watching everything and filtering here',
        { kind: name, mode: server ? 'server' : 'client' },
      );
    }
    this.ring.addListener({ onRound: () => this.updateObjectCounts() });
    await this.ring.start();
  }

  async stop(): Promise<void> {
    await this.ring.stop();
  }

  /** With the gate off the parameter is ignored silently, so ask and look for metadata.shardInfo. */
  private async detect(kind: Kind<ObjectLike>): Promise<boolean> {
    try {
      const list = await new ResourceClient<ObjectLike>(this.transport, kind).list({
        ...(kind.namespaced && this.probeNamespace ? { namespace: this.probeNamespace } : {}),
        limit: 1,
        extraQuery: { shardSelector: FULL_RANGE_SELECTOR },
      });
      return list.metadata.shardInfo !== undefined;
    } catch (err) {
      this.log.warn('could not probe server-side shard filtering; filtering here', {
        kind: kindName(kind),
        error: err,
      });
      return false;
    }
  }

  private acquired(slots: readonly number[]): void {
    const set = new Set(slots);
    const restart = new Set<string>();
    for (const m of this.members) {
      if (!m.controller) continue;
      if (!m.sharded) {
        if (set.has(0)) for (const obj of this.cache.list(m.kind)) m.controller.enqueue(objectKey(obj));
        continue;
      }
      const name = kindName(m.kind);
      if (this.serverSide.has(name)) {
        // The new list brings the objects as adds; they are enqueued by the controller's handlers.
        restart.add(name);
        continue;
      }
      for (const obj of this.cache.list(m.kind)) {
        const uid = obj.metadata?.uid;
        if (uid && set.has(slotOfUid(uid, this.ring.slots))) m.controller.enqueue(objectKey(obj));
      }
    }
    this.restart(restart);
  }

  private released(_slots: readonly number[]): void {
    const restart = new Set<string>();
    for (const m of this.members)
      if (m.sharded && this.serverSide.has(kindName(m.kind))) restart.add(kindName(m.kind));
    this.restart(restart);
  }

  private restart(kinds: Set<string>): void {
    for (const m of this.members) {
      const name = kindName(m.kind);
      if (kinds.delete(name)) this.cache.restartListWatch(m.kind);
    }
  }

  /** Sets shard_objects per sharded controller (counts cached objects in active slots). */
  updateObjectCounts(): void {
    const active = new Set(this.ring.activeSlots());
    for (const m of this.members) {
      if (!m.sharded) continue;
      let n = 0;
      for (const obj of this.cache.list(m.kind)) {
        const uid = obj.metadata?.uid;
        if (uid && active.has(slotOfUid(uid, this.ring.slots))) n++;
      }
      this.metrics.objects.set({ ring: this.ring.ring, controller: m.name }, n);
    }
  }

  /** Keys of a sharded controller's cached objects in this replica's active slots (tests, diagnostics). */
  ownedKeys(kind: Kind<ObjectLike>): string[] {
    const active = new Set(this.ring.activeSlots());
    const out: string[] = [];
    for (const obj of this.cache.list(kind)) {
      const uid = obj.metadata?.uid;
      if (uid && active.has(slotOfUid(uid, this.ring.slots)))
        out.push(keyOf(obj.metadata?.namespace, obj.metadata?.name ?? ''));
    }
    return out;
  }
}

function kindName(kind: Kind<unknown>): string {
  return `${kind.group}/${kind.version}/${kind.kind}`;
}
