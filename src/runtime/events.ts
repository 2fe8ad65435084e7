import type { ObjectLike } from '../client/resource-client.ts';
import { isNotFound } from '../client/api-error.ts';
import { ResourceClient } from '../client/resource-client.ts';
import type { Transport } from '../client/transport.ts';
import { defineKind } from '../client/kind.ts';
import type { Logger } from './logger.ts';

export type EventType = 'Normal' | 'Warning';

/** Records Kubernetes Events about objects; what `kubectl describe` shows a user. */
export interface EventRecorder {
  /** Fire and forget: never blocks or fails a reconcile. Repeats within 10 minutes are aggregated. */
  event(obj: ObjectLike, type: EventType, reason: string, message: string): void;
}

interface CoreEvent {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  involvedObject?: {
    apiVersion?: string;
    kind?: string;
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
  };
  reason?: string;
  message?: string;
  type?: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  source?: { component?: string };
  reportingComponent?: string;
  reportingInstance?: string;
}

const EventKind = defineKind<CoreEvent>({
  group: '',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
});
const AGGREGATE_WINDOW_MS = 10 * 60 * 1000;
const MAX_REMEMBERED = 4096;

interface Seen {
  name: string;
  namespace: string;
  count: number;
  at: number;
}

function eventKey(obj: ObjectLike, type: EventType, reason: string, message: string): string {
  const meta = obj.metadata ?? {};
  return `${meta.uid ?? `${meta.namespace ?? 'default'}/${meta.name}`}|${type}|${reason}|${message}`;
}

/**
 * core/v1 Events, aggregated like client-go's correlator: the same (object, type, reason, message)
 * within 10 minutes bumps `count` and `lastTimestamp` of one Event instead of creating another.
 */
export class KubeEventRecorder implements EventRecorder {
  private readonly events: ResourceClient<CoreEvent>;
  private readonly component: string;
  private readonly logger: Logger;
  private readonly seen = new Map<string, Seen>();
  private pending = new Set<Promise<void>>();
  /** The last send queued per event key. */
  private readonly tails = new Map<string, Promise<void>>();

  constructor(transport: Transport, component: string, logger: Logger) {
    this.events = new ResourceClient(transport, EventKind);
    this.component = component;
    this.logger = logger;
  }

  event(obj: ObjectLike, type: EventType, reason: string, message: string): void {
    // Sends of the same event go one after the other: a repeat must see the Event the first one
    // created, and two count patches in flight could land out of order (count 3, then 2).
    const key = eventKey(obj, type, reason, message);
    const before = this.tails.get(key) ?? Promise.resolve();
    const p = before
      .then(() => this.record(key, obj, type, reason, message))
      .catch((err: unknown) => this.logger.warn('could not record event', { reason, error: err }));
    this.tails.set(key, p);
    this.pending.add(p);
    void p.finally(() => {
      this.pending.delete(p);
      if (this.tails.get(key) === p) this.tails.delete(key);
    });
  }

  /** Resolves when every event recorded so far has been sent. */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private async record(
    key: string,
    obj: ObjectLike,
    type: EventType,
    reason: string,
    message: string,
  ): Promise<void> {
    const meta = obj.metadata ?? {};
    const namespace = meta.namespace ?? 'default';
    const now = Date.now();
    const iso = new Date(now).toISOString();
    const prior = this.seen.get(key);
    if (prior && now - prior.at < AGGREGATE_WINDOW_MS) {
      prior.count++;
      prior.at = now;
      try {
        await this.events.patch({ namespace: prior.namespace, name: prior.name }, 'merge', {
          count: prior.count,
          lastTimestamp: iso,
        });
        return;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    const name = `${meta.name ?? 'object'}.${(now * 1000 + Math.floor(Math.random() * 1000)).toString(16)}`;
    await this.events.create({
      metadata: { name, namespace },
      involvedObject: {
        ...(obj.apiVersion ? { apiVersion: obj.apiVersion } : {}),
        ...(obj.kind ? { kind: obj.kind } : {}),
        ...(meta.name ? { name: meta.name } : {}),
        ...(meta.namespace ? { namespace: meta.namespace } : {}),
        ...(meta.uid ? { uid: meta.uid } : {}),
        ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
      },
      reason,
      message,
      type,
      count: 1,
      firstTimestamp: iso,
      lastTimestamp: iso,
      source: { component: this.component },
      reportingComponent: this.component,
      reportingInstance: this.component,
    });
    if (this.seen.size >= MAX_REMEMBERED) this.seen.delete(this.seen.keys().next().value as string);
    this.seen.set(key, { name, namespace, count: 1, at: now });
  }
}
