import { realClock, type Clock, type TimerHandle } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Counter, Gauge } from '../metrics.ts';
import { assignSlots, claimWeight, slotRanges } from './assignment.ts';
import type { MemberRecord, MemberStore } from './membership.ts';

/** What a slot is to this member. Only `active` admits reconciles. */
export type SlotState = 'idle' | 'pending' | 'active' | 'draining';

export interface RingTimings {
  /** How long a member's record stays live after its last observed change. Default 15 s. */
  readonly leaseDurationMs?: number;
  /**
   * A member stops every slot when its renewals have failed for this long, measured from when the
   * last successful renewal was sent. Must be below leaseDurationMs. Default 10 s.
   */
  readonly renewDeadlineMs?: number;
  /** Renew, read the ring and hand slots over this often. Default 2 s. */
  readonly retryPeriodMs?: number;
}

export interface ShardRingOptions extends RingTimings {
  readonly ring: string;
  readonly identity: string;
  /** Power of two; every member of a ring must use the same. Default 256. */
  readonly slots?: number;
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly metrics?: RingMetrics;
}

/** The ring's Prometheus series (see ShardMetrics in metrics.ts). */
export interface RingMetrics {
  readonly members: Gauge;
  readonly ownedSlots: Gauge;
  readonly ownedRanges: Gauge;
  readonly handoffs: Counter;
  readonly fenced: Counter;
}

/** Told when slots start (after the claim is written) and stop (after they drained) being this member's. */
export interface RingListener {
  onAcquired?(slots: readonly number[]): void;
  onReleased?(slots: readonly number[]): void;
  /** After every round. */
  onRound?(): void;
}

export const DEFAULT_SLOTS = 256;

/**
 * A record unchanged for this many lease durations belongs to a member that is gone (a crashed or
 * killed pod never deletes its Lease): any member deletes it, on the condition that it is still
 * the version observed. Safe even if the member comes back: it fenced itself long before, and
 * recreates its Lease with no claims.
 */
const STALE_AFTER_LEASES = 10;

function withTimeout<T>(clock: Clock, ms: number, work: Promise<T>, what: string): Promise<T> {
  let timer: TimerHandle | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = clock.setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => {
    if (timer) clock.clearTimeout(timer);
  });
}

/**
 * One member of a ring: publishes its claims in its record, reads everyone's, computes the
 * assignment (assignSlots) from the live members and moves slots with a claim protocol that never
 * lets two members hold one slot (see docs/sharding.md, "Handoff"):
 *
 * - a slot assigned here is first claimed `pending`, and only when no other live member claims it;
 * - it turns `active` when a read made after the pending claim was written shows no other claim,
 *   and only once the `active` claim is written;
 * - a slot assigned elsewhere turns `draining` (no new reconciles), and is dropped from the record
 *   once its in-flight reconciles finished;
 * - fencing: nothing is admitted once the last successful renewal was sent renewDeadline ago or
 *   more; the next round then gives up every slot.
 */
export class ShardRing {
  readonly ring: string;
  readonly identity: string;
  readonly slots: number;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  private readonly store: MemberStore;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly metrics: RingMetrics | undefined;
  private readonly state: SlotState[];
  private readonly inflight: number[];
  private readonly listeners: RingListener[] = [];
  private readonly observed = new Map<string, { version: string; at: number }>();
  private lastRenewSentAt: number | undefined;
  private memberNames: string[] = [];
  private assignmentKey = '';
  private assignment: (string | undefined)[] = [];
  private stopped = true;
  private left = false;
  private loop: Promise<void> | undefined;
  private timer: TimerHandle | undefined;
  private wake: (() => void) | undefined;
  private mismatchLogged = false;
  private ticking: Promise<void> | undefined;

  constructor(store: MemberStore, options: ShardRingOptions) {
    this.store = store;
    this.ring = options.ring;
    this.identity = options.identity;
    this.slots = options.slots ?? DEFAULT_SLOTS;
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    if (!(this.renewDeadlineMs < this.leaseDurationMs))
      throw new Error(
        `sharding: renewDeadlineMs (${this.renewDeadlineMs}) must be below leaseDurationMs (${this.leaseDurationMs})`,
      );
    if (!(this.retryPeriodMs < this.renewDeadlineMs))
      throw new Error(
        `sharding: retryPeriodMs (${this.retryPeriodMs}) must be below renewDeadlineMs (${this.renewDeadlineMs})`,
      );
    this.log = options.logger.child({ ring: this.ring, identity: this.identity });
    this.clock = options.clock ?? realClock;
    this.metrics = options.metrics;
    this.state = new Array<SlotState>(this.slots).fill('idle');
    this.inflight = new Array<number>(this.slots).fill(0);
  }

  addListener(listener: RingListener): void {
    this.listeners.push(listener);
  }

  /** Live members (identities, this one included) as of the last round. */
  get members(): readonly string[] {
    return this.memberNames;
  }

  stateOf(slot: number): SlotState {
    return this.state[slot] ?? 'idle';
  }

  /** Slots this member reconciles now. */
  activeSlots(): number[] {
    const out: number[] = [];
    for (let s = 0; s < this.slots; s++) if (this.state[s] === 'active') out.push(s);
    return out;
  }

  /** Slots whose objects this member may still hold in a cache (active or draining). */
  heldSlots(): number[] {
    const out: number[] = [];
    for (let s = 0; s < this.slots; s++)
      if (this.state[s] === 'active' || this.state[s] === 'draining') out.push(s);
    return out;
  }

  /** True when renewals have not succeeded within the renew deadline: nothing may start. */
  get fenced(): boolean {
    return (
      this.lastRenewSentAt === undefined || this.clock.now() - this.lastRenewSentAt >= this.renewDeadlineMs
    );
  }

  /**
   * Admits one reconcile of an object in `slot`: only while the slot is active and the member is
   * not fenced. Pair every `true` with end(slot).
   */
  tryBegin(slot: number): boolean {
    if (this.state[slot] !== 'active') return false;
    if (this.fenced) {
      this.fence();
      return false;
    }
    this.inflight[slot]!++;
    return true;
  }

  end(slot: number): void {
    if (this.inflight[slot]! > 0) this.inflight[slot]!--;
    if (this.inflight[slot] === 0 && this.state[slot] === 'draining') this.wake?.();
  }

  /** Runs rounds every retry period until stop(). Resolves after the first round. */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    await this.tick();
    this.loop = (async () => {
      while (!this.stopped) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          this.timer = this.clock.setTimeout(resolve, this.retryPeriodMs);
        });
        this.wake = undefined;
        if (this.timer) this.clock.clearTimeout(this.timer);
        if (this.stopped) break;
        await this.tick();
      }
    })();
  }

  /**
   * Leaves the ring: stops the rounds and deletes this member's record. Call after every
   * reconcile of the ring's controllers has finished (the manager stops its controllers first).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.left = true;
    this.wake?.();
    await this.loop;
    await this.ticking;
    const held = this.heldSlots();
    this.state.fill('idle');
    if (held.length) this.notify([], held);
    try {
      await this.store.remove();
      this.log.info('left the shard ring');
    } catch (err) {
      this.log.warn('could not delete the member lease; others take its slots when it expires', {
        error: err,
      });
    }
  }

  /** Gives up every slot at once (renewals failed past the deadline). */
  private fence(): void {
    const held = this.heldSlots();
    let any = held.length > 0;
    for (let s = 0; s < this.slots; s++) {
      if (this.state[s] !== 'idle') any = true;
      this.state[s] = 'idle';
    }
    if (!any) return;
    this.log.error('renewals failed past the renew deadline: stopped every shard slot', {
      slots: held.length,
      renewDeadlineMs: this.renewDeadlineMs,
    });
    this.metrics?.fenced.inc({ ring: this.ring });
    if (held.length) this.notify([], held);
  }

  private claims(promote: readonly number[] = []): { active: number[]; pending: number[] } {
    const active: number[] = [];
    const pending: number[] = [];
    const promoting = new Set(promote);
    for (let s = 0; s < this.slots; s++) {
      const st = this.state[s];
      if (st === 'active' || st === 'draining' || promoting.has(s)) active.push(s);
      else if (st === 'pending') pending.push(s);
    }
    return { active, pending };
  }

  private async write(promote: readonly number[] = []): Promise<boolean> {
    const sentAt = this.clock.now();
    const { active, pending } = this.claims(promote);
    try {
      await withTimeout(
        this.clock,
        this.renewDeadlineMs,
        this.store.write({
          identity: this.identity,
          leaseDurationMs: this.leaseDurationMs,
          slots: this.slots,
          active,
          pending,
        }),
        'renewing the member lease',
      );
      this.lastRenewSentAt = sentAt;
      return true;
    } catch (err) {
      this.log.warn('renewing the member lease failed', { error: err });
      return false;
    }
  }

  /** Live records of the other members, judged by local time since each record last changed. */
  private liveOthers(records: readonly MemberRecord[]): MemberRecord[] {
    const now = this.clock.now();
    const seen = new Set<string>();
    const live: MemberRecord[] = [];
    for (const r of records) {
      seen.add(r.name);
      if (r.identity === this.identity) continue;
      const o = this.observed.get(r.name);
      if (!o || o.version !== r.version) this.observed.set(r.name, { version: r.version, at: now });
      const at = this.observed.get(r.name)!.at;
      if (now - at < r.leaseDurationMs) live.push(r);
      else if (now - at > STALE_AFTER_LEASES * r.leaseDurationMs) void this.removeStale(r);
    }
    for (const name of this.observed.keys()) if (!seen.has(name)) this.observed.delete(name);
    return live;
  }

  private async removeStale(r: MemberRecord): Promise<void> {
    if (!this.store.removeStale) return;
    try {
      await this.store.removeStale(r.name, r.version);
      this.observed.delete(r.name);
      this.log.info('deleted the Lease of a member gone for ten lease durations', { member: r.identity });
    } catch (err) {
      this.log.warn('could not delete a stale member Lease', { member: r.identity, error: err });
    }
  }

  private assign(members: string[]): (string | undefined)[] {
    const key = [...members].sort().join('\n');
    if (key !== this.assignmentKey) {
      this.assignmentKey = key;
      this.assignment = assignSlots(members, this.slots);
    }
    return this.assignment;
  }

  /** One round: renew, read the ring, move slots. Exposed for tests (with a FakeClock and a fake store). */
  tick(): Promise<void> {
    this.ticking = this.round().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async round(): Promise<void> {
    if (this.left) return;
    if (this.fenced) this.fence();
    const pendingWritten = new Set(this.claims().pending);
    if (!(await this.write())) return;
    let records: MemberRecord[];
    try {
      records = await withTimeout(this.clock, this.renewDeadlineMs, this.store.list(), 'reading the ring');
    } catch (err) {
      this.log.warn('reading the shard ring failed', { error: err });
      return;
    }
    if (this.left) return;
    const others = this.liveOthers(records);
    const mismatched = others.filter((o) => o.slots !== this.slots);
    if (mismatched.length && !this.mismatchLogged) {
      this.mismatchLogged = true;
      this.log.error('ring members disagree on the slot count; taking no new slots until they agree', {
        slots: this.slots,
        others: mismatched.map((o) => `${o.identity}=${o.slots}`),
      });
    }
    const members = [this.identity, ...others.map((o) => o.identity)];
    const changedMembers = members.slice().sort().join('\n') !== this.memberNames.slice().sort().join('\n');
    this.memberNames = members;
    if (changedMembers) this.log.info('shard ring members', { members: members.length });
    const owners = this.assign(members);
    const activeBy = new Array<boolean>(this.slots).fill(false);
    const pendingBy: string[][] = Array.from({ length: this.slots }, () => []);
    for (const o of others) {
      for (const s of o.active) if (s < this.slots) activeBy[s] = true;
      for (const s of o.pending) if (s < this.slots) pendingBy[s]!.push(o.identity);
    }
    const beats = (other: string, slot: number): boolean => {
      const a = claimWeight(other, slot);
      const b = claimWeight(this.identity, slot);
      return a > b || (a === b && other > this.identity);
    };
    let dirty = false;
    const promote: number[] = [];
    const released: number[] = [];
    const mayTake = mismatched.length === 0;
    for (let s = 0; s < this.slots; s++) {
      const mine = owners[s] === this.identity;
      const st = this.state[s];
      if (st === 'active' || st === 'draining') {
        if (mine) {
          this.state[s] = 'active';
        } else if (this.inflight[s] === 0) {
          this.state[s] = 'idle';
          released.push(s);
          dirty = true;
        } else {
          this.state[s] = 'draining';
        }
      } else if (st === 'pending') {
        if (!mine || !mayTake || pendingBy[s]!.some((o) => beats(o, s))) {
          this.state[s] = 'idle';
          dirty = true;
        } else if (!activeBy[s] && pendingBy[s]!.length === 0 && pendingWritten.has(s)) {
          promote.push(s);
        }
      } else if (mine && mayTake && !activeBy[s] && pendingBy[s]!.length === 0) {
        this.state[s] = 'pending';
        dirty = true;
      }
    }
    let acquired: number[] = [];
    if (dirty || promote.length) {
      if (await this.write(promote)) {
        for (const s of promote) this.state[s] = 'active';
        acquired = promote;
      }
    }
    if (acquired.length || released.length) {
      this.log.info('shard slots handed over', {
        acquired: acquired.length,
        released: released.length,
        owned: this.activeSlots().length,
      });
      this.notify(acquired, released);
    }
    this.updateMetrics();
    for (const l of this.listeners) l.onRound?.();
  }

  private notify(acquired: readonly number[], released: readonly number[]): void {
    if (acquired.length)
      this.metrics?.handoffs.inc({ ring: this.ring, direction: 'acquired' }, acquired.length);
    if (released.length)
      this.metrics?.handoffs.inc({ ring: this.ring, direction: 'released' }, released.length);
    for (const l of this.listeners) {
      if (released.length) l.onReleased?.(released);
      if (acquired.length) l.onAcquired?.(acquired);
    }
    this.updateMetrics();
  }

  private updateMetrics(): void {
    const m = this.metrics;
    if (!m) return;
    const labels = { ring: this.ring };
    m.members.set(labels, this.memberNames.length);
    const active = this.activeSlots();
    m.ownedSlots.set(labels, active.length);
    m.ownedRanges.set(labels, slotRanges(active, this.slots).length);
  }
}
