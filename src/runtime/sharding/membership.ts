import { isConflict, isNotFound } from '../../client/api-error.ts';
import type { Kind } from '../../client/kind.ts';
import { ResourceClient } from '../../client/resource-client.ts';
import type { Transport } from '../../client/transport.ts';
import type { V1Lease } from '@kubernetes/client-node';
import { builtinKinds } from '../builtin-kinds.ts';
import { fnv1a64, hashHex } from './hash.ts';

/** The label that puts a Lease in a ring; its value is the ring's name. */
export const RING_LABEL = 'sharding.op-gen.io/ring';
/** Slots this member reconciles (or still drains), as a hex bitmap. */
export const ACTIVE_ANNOTATION = 'sharding.op-gen.io/active';
/** Slots this member has asked for and will take once nobody else claims them. */
export const PENDING_ANNOTATION = 'sharding.op-gen.io/pending';
/** The member's slot count: members of one ring must agree on it. */
export const SLOTS_ANNOTATION = 'sharding.op-gen.io/slots';

/** What one member publishes in its Lease. */
export interface MemberClaims {
  readonly identity: string;
  readonly leaseDurationMs: number;
  readonly slots: number;
  readonly active: readonly number[];
  readonly pending: readonly number[];
}

/** A member as read back from the API server. */
export interface MemberRecord extends MemberClaims {
  /** The Lease name. */
  readonly name: string;
  /** Changes on every write (the Lease's resourceVersion): what expiry is judged by. */
  readonly version: string;
}

/** Where members publish their claims: Leases in the API server, or a fake in unit tests. */
export interface MemberStore {
  /** Creates or updates this member's record. */
  write(claims: MemberClaims): Promise<void>;
  /** Every member record of the ring (one quorum read). */
  list(): Promise<MemberRecord[]>;
  /** Deletes this member's record (graceful leave). */
  remove(): Promise<void>;
  /** Deletes another member's record, by name, if it still has `version` (garbage of crashed members). */
  removeStale?(name: string, version: string): Promise<void>;
}

export function encodeSlots(set: readonly number[], slots: number): string {
  const bits = new Uint8Array(Math.ceil(slots / 8));
  for (const s of set) bits[s >> 3]! |= 1 << (s & 7);
  return Buffer.from(bits).toString('hex');
}

export function decodeSlots(hex: string | undefined, slots: number): number[] {
  if (!hex) return [];
  const bits = Buffer.from(hex, 'hex');
  const out: number[] = [];
  for (let s = 0; s < slots && s >> 3 < bits.length; s++) if (bits[s >> 3]! & (1 << (s & 7))) out.push(s);
  return out;
}

type LeaseObject = V1Lease & {
  metadata: {
    name: string;
    namespace: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
};

function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** The Lease name of a member: the ring name and a hash of the identity (identities need not be DNS names). */
export function memberLeaseName(ring: string, identity: string): string {
  return `${ring}-${hashHex(fnv1a64(identity)).slice(2)}`;
}

/** Members as coordination.k8s.io/v1 Leases labelled for the ring, one per member, each written only by its member. */
export class LeaseMemberStore implements MemberStore {
  private readonly leases: ResourceClient<LeaseObject>;
  private readonly namespace: string;
  private readonly ring: string;
  private readonly name: string;
  private last: LeaseObject | undefined;

  constructor(transport: Transport, options: { namespace: string; ring: string; identity: string }) {
    this.leases = new ResourceClient(transport, builtinKinds.Lease as unknown as Kind<LeaseObject>);
    this.namespace = options.namespace;
    this.ring = options.ring;
    this.name = memberLeaseName(options.ring, options.identity);
  }

  private body(claims: MemberClaims, base: LeaseObject | undefined): LeaseObject {
    const now = microTime(new Date()) as unknown as Date;
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        ...(base?.metadata ?? {}),
        name: this.name,
        namespace: this.namespace,
        labels: { ...(base?.metadata.labels ?? {}), [RING_LABEL]: this.ring },
        annotations: {
          ...(base?.metadata.annotations ?? {}),
          [ACTIVE_ANNOTATION]: encodeSlots(claims.active, claims.slots),
          [PENDING_ANNOTATION]: encodeSlots(claims.pending, claims.slots),
          [SLOTS_ANNOTATION]: String(claims.slots),
        },
      },
      spec: {
        ...(base?.spec ?? {}),
        holderIdentity: claims.identity,
        leaseDurationSeconds: Math.max(1, Math.ceil(claims.leaseDurationMs / 1000)),
        renewTime: now,
        ...(base ? {} : { acquireTime: now }),
      },
    };
  }

  async write(claims: MemberClaims): Promise<void> {
    const key = { namespace: this.namespace, name: this.name };
    if (this.last) {
      try {
        this.last = await this.leases.replace(this.body(claims, this.last));
        return;
      } catch (err) {
        if (!isConflict(err) && !isNotFound(err)) throw err;
        this.last = undefined;
      }
    }
    try {
      const current = await this.leases.get(key);
      this.last = await this.leases.replace(this.body(claims, current));
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.last = await this.leases.create(this.body(claims, undefined));
    }
  }

  async list(): Promise<MemberRecord[]> {
    const list = await this.leases.list({
      namespace: this.namespace,
      labelSelector: `${RING_LABEL}=${this.ring}`,
    });
    const out: MemberRecord[] = [];
    for (const lease of list.items) {
      const ann = lease.metadata.annotations ?? {};
      const slots = Number(ann[SLOTS_ANNOTATION] ?? 0);
      const identity = lease.spec?.holderIdentity ?? '';
      if (!identity) continue;
      out.push({
        name: lease.metadata.name,
        version: lease.metadata.resourceVersion ?? '',
        identity,
        leaseDurationMs: (lease.spec?.leaseDurationSeconds ?? 0) * 1000,
        slots,
        active: decodeSlots(ann[ACTIVE_ANNOTATION], slots),
        pending: decodeSlots(ann[PENDING_ANNOTATION], slots),
      });
    }
    return out;
  }

  async removeStale(name: string, version: string): Promise<void> {
    try {
      await this.leases.delete(
        { namespace: this.namespace, name },
        { preconditions: { resourceVersion: version } },
      );
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }

  async remove(): Promise<void> {
    try {
      await this.leases.delete({ namespace: this.namespace, name: this.name });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    this.last = undefined;
  }
}
