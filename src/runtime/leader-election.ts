import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { V1Lease } from '@kubernetes/client-node';
import { isAlreadyExists, isConflict, isNotFound } from '../client/api-error.ts';
import type { Kind } from '../client/kind.ts';
import { ResourceClient } from '../client/resource-client.ts';
import type { Transport } from '../client/transport.ts';
import { builtinKinds } from './builtin-kinds.ts';
import { realClock, type Clock, type TimerHandle } from './clock.ts';
import type { Logger } from './logger.ts';

export interface LeaderElectionOptions {
  readonly enabled: boolean;
  /** The Lease name, e.g. `<project>.example.com`. */
  readonly id: string;
  /** Namespace of the Lease; default: the pod's namespace (POD_NAMESPACE) or `default`. */
  readonly namespace?: string;
  /** This candidate's identity; default hostname + random suffix. */
  readonly identity?: string;
  /** client-go defaults: 15 s lease, 10 s renew deadline, 2 s retry period. */
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
}

interface LeaseRecord {
  holder: string;
  leaseDurationSeconds: number;
  transitions: number;
  acquireTime?: string;
  renewTime?: string;
}

type LeaseObject = V1Lease & { metadata: { name: string; namespace: string; resourceVersion?: string } };

function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does: acquire when
 * the lease is free or expired (judged by the local time since the record last changed), renew every
 * retry period, give up leadership when renewals fail for the renew deadline, release on shutdown.
 * A standby also watches the Lease, so a release (holder emptied) wakes it at once instead of at its
 * next retry; the periodic tries stay, for expiry and for a watch that fails.
 */
export class LeaderElector {
  readonly identity: string;
  private readonly leases: ResourceClient<LeaseObject>;
  private readonly name: string;
  private readonly namespace: string;
  private readonly leaseMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryMs: number;
  private readonly log: Logger;
  private observed: { record: string; at: number } | undefined;
  private leading = false;
  private stopped = false;
  private timer: TimerHandle | undefined;
  private readonly clock: Clock;
  private wake: (() => void) | undefined;
  /** Set when a watched Lease change arrived while no sleep was waiting: the next sleep returns at once. */
  private woken = false;

  constructor(transport: Transport, options: LeaderElectionOptions, log: Logger, clock: Clock = realClock) {
    this.clock = clock;
    this.leases = new ResourceClient(transport, builtinKinds.Lease as unknown as Kind<LeaseObject>);
    this.name = options.id;
    this.namespace = options.namespace ?? process.env.POD_NAMESPACE ?? 'default';
    this.identity = options.identity ?? `${hostname()}_${randomBytes(4).toString('hex')}`;
    this.leaseMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryMs = options.retryPeriodMs ?? 2_000;
    this.log = log.child({ lease: `${this.namespace}/${this.name}`, identity: this.identity });
  }

  get isLeader(): boolean {
    return this.leading;
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        if (this.timer) this.clock.clearTimeout(this.timer);
        this.timer = undefined;
        this.wake = undefined;
        resolve();
      };
      this.wake = done;
      this.timer = this.clock.setTimeout(done, ms * (1 + Math.random() * 0.2));
    });
  }

  /** Ends the current sleep now (or the next one, if none is running). */
  private wakeUp(): void {
    if (this.wake) this.wake();
    else this.woken = true;
  }

  /** Resolves once this candidate holds the lease; `false` if stopped first. */
  async acquire(): Promise<boolean> {
    this.log.info('waiting to acquire the leader lease');
    const watch = new AbortController();
    let watching: Promise<void> | undefined;
    try {
      while (!this.stopped) {
        if (await this.tryAcquireOrRenew(this.renewDeadlineMs)) {
          this.leading = true;
          this.log.info('acquired the leader lease');
          return true;
        }
        watching ??= this.watchForRelease(watch.signal);
        await this.sleep(this.retryMs);
      }
      return false;
    } finally {
      watch.abort();
      await watching;
    }
  }

  /**
   * Watches the Lease while standing by and wakes the acquire loop when its holder is emptied (a
   * release). Reconnects until `signal` aborts; a failing watch only costs the speed-up.
   */
  private async watchForRelease(signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted && !this.stopped) {
      try {
        await this.leases.watch(
          {
            namespace: this.namespace,
            fieldSelector: `metadata.name=${this.name}`,
            timeoutSeconds: 300,
            signal,
          },
          (event) => {
            if (event.type !== 'ADDED' && event.type !== 'MODIFIED' && event.type !== 'DELETED') return;
            failures = 0;
            const holder = event.object.spec?.holderIdentity ?? '';
            if (event.type === 'DELETED' || holder === '') this.wakeUp();
          },
        );
      } catch (err) {
        if (signal.aborted) return;
        failures++;
        this.log.debug('watching the leader lease failed; relying on periodic tries', { error: err });
      }
      if (signal.aborted) return;
      // Back off between reconnects (a watch that fails at once must not spin).
      await new Promise<void>((resolve) => {
        const t = this.clock.setTimeout(resolve, Math.min(30_000, this.retryMs * 2 ** Math.min(failures, 4)));
        signal.addEventListener(
          'abort',
          () => {
            this.clock.clearTimeout(t);
            resolve();
          },
          { once: true },
        );
      });
    }
  }

  /** Renews until stopped (resolves) or a renewal misses the renew deadline (resolves `lost`). */
  async holdLeadership(): Promise<'stopped' | 'lost'> {
    let lastRenew = this.clock.now();
    while (!this.stopped) {
      await this.sleep(this.retryMs);
      if (this.stopped) break;
      // The attempt (with the transport's retries) may take only what is left of the renew deadline.
      const left = Math.max(1, lastRenew + this.renewDeadlineMs - this.clock.now());
      if (await this.tryAcquireOrRenew(left)) {
        lastRenew = this.clock.now();
      } else if (this.clock.now() - lastRenew > this.renewDeadlineMs) {
        this.leading = false;
        this.log.error('lost the leader lease: renewals failed past the renew deadline');
        return 'lost';
      }
    }
    return 'stopped';
  }

  /** Stops trying and, as leader, releases the lease so another candidate takes over at once. */
  async release(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.wake?.();
    if (!this.leading) return;
    this.leading = false;
    try {
      const lease = await this.leases.get({ namespace: this.namespace, name: this.name });
      if (lease.spec?.holderIdentity !== this.identity) return;
      const now = microTime(new Date(this.clock.now()));
      await this.leases.replace({
        ...lease,
        spec: {
          ...lease.spec,
          holderIdentity: '',
          leaseDurationSeconds: 1,
          renewTime: now as unknown as Date,
          acquireTime: now as unknown as Date,
        },
      });
      this.log.info('released the leader lease');
    } catch (err) {
      this.log.warn('could not release the leader lease', { error: err });
    }
  }

  private record(lease: LeaseObject): LeaseRecord {
    const spec = lease.spec ?? {};
    return {
      holder: spec.holderIdentity ?? '',
      leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
      transitions: spec.leaseTransitions ?? 0,
      ...(spec.acquireTime ? { acquireTime: String(spec.acquireTime) } : {}),
      ...(spec.renewTime ? { renewTime: String(spec.renewTime) } : {}),
    };
  }

  /** One try, given up (false) after `timeoutMs` on the clock: retries of the transport included. */
  private async tryAcquireOrRenew(timeoutMs: number): Promise<boolean> {
    const abort = new AbortController();
    const timer = this.clock.setTimeout(
      () => abort.abort(new Error(`lease update timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
    try {
      return await this.tryOnce(abort.signal);
    } finally {
      this.clock.clearTimeout(timer);
    }
  }

  private async tryOnce(signal: AbortSignal): Promise<boolean> {
    const now = new Date(this.clock.now());
    const leaseSeconds = Math.ceil(this.leaseMs / 1000);
    try {
      let lease: LeaseObject;
      try {
        lease = await this.leases.get({ namespace: this.namespace, name: this.name }, { signal });
      } catch (err) {
        if (!isNotFound(err)) throw err;
        await this.leases.create(
          {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name: this.name, namespace: this.namespace },
            spec: {
              holderIdentity: this.identity,
              leaseDurationSeconds: leaseSeconds,
              acquireTime: microTime(now) as unknown as Date,
              renewTime: microTime(now) as unknown as Date,
              leaseTransitions: 0,
            },
          },
          { signal },
        );
        this.observed = { record: `${this.identity}|${microTime(now)}`, at: this.clock.now() };
        return true;
      }
      const rec = this.record(lease);
      const recordKey = `${rec.holder}|${rec.renewTime ?? ''}`;
      if (!this.observed || this.observed.record !== recordKey)
        this.observed = { record: recordKey, at: this.clock.now() };
      const held = rec.holder !== '' && rec.holder !== this.identity;
      const expired = this.observed.at + rec.leaseDurationSeconds * 1000 < this.clock.now();
      if (held && !expired) return false;
      const takingOver = rec.holder !== this.identity;
      const updated = await this.leases.replace(
        {
          ...lease,
          spec: {
            ...lease.spec,
            holderIdentity: this.identity,
            leaseDurationSeconds: leaseSeconds,
            renewTime: microTime(now) as unknown as Date,
            ...(takingOver
              ? { acquireTime: microTime(now) as unknown as Date, leaseTransitions: rec.transitions + 1 }
              : {}),
          },
        },
        { signal },
      );
      this.observed = {
        record: `${this.identity}|${String(updated.spec?.renewTime ?? '')}`,
        at: this.clock.now(),
      };
      return true;
    } catch (err) {
      if (!isConflict(err) && !isAlreadyExists(err))
        this.log.warn('leader lease update failed', { error: err });
      return false;
    }
  }
}
