/**
 * Who leads, seen three ways while replicas hand over: each replica's `leader_election_master_status`
 * (sampled every 100 ms from /metrics), the Lease's holder (sampled with it), and each replica's log
 * (acquired the lease … controllers stopped, or killed). `overlaps` names every pair of replicas that
 * led at the same time by any of these.
 */
import type { ResourceClient } from '../../src/client/resource-client.ts';
import type { OperatorProcess } from './operator.ts';

export interface LeaseLike {
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
  readonly spec?: { readonly holderIdentity?: string };
}

interface Sample {
  /** When the request was sent and its answer read (ms since epoch). */
  readonly sentAt: number;
  readonly readAt: number;
  readonly leader: boolean;
}

export interface LeadershipRecord {
  /** Rounds sampled. */
  readonly rounds: number;
  /** Rounds in which more than one replica's /metrics said it leads. */
  readonly roundsWithTwoLeaders: number;
  /** Distinct Lease holders in the order sampled (identities; '' for released). */
  readonly holders: readonly string[];
  readonly samples: ReadonlyMap<string, readonly Sample[]>;
}

/** A replica's leadership as a closed interval [from, to] in ms since epoch. */
export interface Interval {
  readonly replica: string;
  readonly from: number;
  readonly to: number;
}

/** Samples leadership until stop() is called. */
export function sampleLeadership(
  replicas: () => readonly OperatorProcess[],
  leases: Pick<ResourceClient<LeaseLike & { metadata?: object }>, 'get'>,
  lease: { namespace: string; name: string },
): { stop(): Promise<LeadershipRecord> } {
  const samples = new Map<string, Sample[]>();
  const holders: string[] = [];
  let rounds = 0;
  let roundsWithTwoLeaders = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const next = Date.now() + 100;
      const live = replicas().filter((r) => r.running);
      const [answers, holder] = await Promise.all([
        Promise.all(
          live.map(async (r) => {
            const sentAt = Date.now();
            const v = await r.metric('leader_election_master_status');
            return { r, sample: { sentAt, readAt: Date.now(), leader: v === 1 }, reachable: v !== undefined };
          }),
        ),
        leases.get(lease).then(
          (l) => l.spec?.holderIdentity ?? '',
          () => undefined,
        ),
      ]);
      rounds++;
      let leaders = 0;
      for (const { r, sample, reachable } of answers) {
        if (!reachable) continue;
        const list = samples.get(r.name) ?? [];
        list.push(sample);
        samples.set(r.name, list);
        if (sample.leader) leaders++;
      }
      if (leaders > 1) roundsWithTwoLeaders++;
      if (holder !== undefined && holders.at(-1) !== holder) holders.push(holder);
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { rounds, roundsWithTwoLeaders, holders, samples };
    },
  };
}

/**
 * Each replica's leadership as /metrics may have had it: an answer saying it leads was true at some
 * moment between the request's send and the answer's read, so it may have led from the first such
 * send to the last such read (a process leads once). These widest intervals are the ones checked for
 * overlap: the narrowest (first read to last send) hid an overlap shorter than two scrapes, and a
 * replica seen leading once had none at all.
 */
export function metricIntervals(record: LeadershipRecord): Interval[] {
  const out: Interval[] = [];
  for (const [replica, samples] of record.samples) {
    const leading = samples.filter((s) => s.leader);
    if (leading.length === 0) continue;
    out.push({ replica, from: leading[0]!.sentAt, to: leading.at(-1)!.readAt });
  }
  return out;
}

/**
 * Each replica's leadership as its log tells it: from 'acquired the leader lease' to 'controllers
 * stopped' (or to `endOf(replica)`, e.g. when it was SIGKILLed, or now if it still runs).
 */
export function logIntervals(
  replicas: readonly OperatorProcess[],
  endOf: (replica: OperatorProcess) => number | undefined,
): Interval[] {
  const out: Interval[] = [];
  for (const r of replicas) {
    const from = r.loggedAt('acquired the leader lease');
    if (from === undefined) continue;
    const to = r.loggedAt('controllers stopped') ?? endOf(r) ?? Date.now();
    out.push({ replica: r.name, from, to });
  }
  return out;
}

/** Pairs of intervals of different replicas that intersect, as readable strings. */
export function overlaps(intervals: readonly Interval[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < intervals.length; i++) {
    for (let j = i + 1; j < intervals.length; j++) {
      const a = intervals[i]!;
      const b = intervals[j]!;
      if (a.replica !== b.replica && a.from <= b.to && b.from <= a.to)
        out.push(`${a.replica} [${a.from}, ${a.to}] and ${b.replica} [${b.from}, ${b.to}]`);
    }
  }
  return out;
}
