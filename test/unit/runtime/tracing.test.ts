import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ApiError } from '../../../src/client/api-error.ts';
import type { ObjectLike } from '../../../src/client/resource-client.ts';
import type { Transport, TransportRequest } from '../../../src/client/transport.ts';
import { InformerCache } from '../../../src/runtime/cache.ts';
import { FakeClock } from '../../../src/runtime/clock.ts';
import {
  Controller,
  type ReconcileContext,
  type Reconciler,
  type Result,
} from '../../../src/runtime/controller.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import { ReconcileClient } from '../../../src/runtime/reconcile-client.ts';
import { runtimeTracer } from '../../../src/runtime/tracing.ts';
import { MemoryTracerProvider, type FinishedSpan } from '../../helpers/memory-tracer.ts';
import { Thing, settle } from '../../helpers/runtime-fakes.ts';

/**
 * Tracing (docs/runtime.md "Tracing"): a span per reconcile with its attributes and result, a CLIENT
 * child span per API request whose context reaches the server as `traceparent`, events for requeues
 * and errors, and controller-runtime's log keys with the trace id; with no tracer provider, none of
 * it (no span on the context, no header, no trace id in the logs).
 */

/** Answers every request with its body (or `{}`); a POST to a name in `conflicts` is a 409. */
class RecordingTransport implements Transport {
  readonly requests: TransportRequest[] = [];
  readonly conflicts = new Set<string>();
  request<T>(req: TransportRequest): Promise<T> {
    this.requests.push(req);
    const name = (req.body as ObjectLike | undefined)?.metadata?.name;
    if (name !== undefined && this.conflicts.has(name))
      return Promise.reject(new ApiError(409, req.method, req.path, { reason: 'Conflict' }));
    return Promise.resolve((req.body ?? {}) as T);
  }
  /** A list streamed in two batches (as HttpTransport decodes a large one). */
  requestItems(req: TransportRequest, onItems: (items: unknown[]) => void): Promise<unknown> {
    this.requests.push(req);
    onItems([{ metadata: { name: 'x', namespace: 'ns1' } }]);
    onItems([{ metadata: { name: 'y', namespace: 'ns1' } }]);
    return Promise.resolve({ metadata: { resourceVersion: '5' }, items: [] });
  }
  stream(): Promise<void> {
    return new Promise(() => {});
  }
  close(): void {}
}

const running: Controller<unknown>[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) await c.stop(100);
});

function setup(reconciler: Reconciler<unknown>, provider: MemoryTracerProvider | undefined) {
  const transport = new RecordingTransport();
  const client = new ReconcileClient(
    transport,
    new InformerCache(transport, { logger: createLogger({ write: () => {} }) }),
    'test',
  );
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: 'debug',
    write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  const c = new Controller<unknown>({
    name: 'things',
    kind: Thing as never,
    reconciler,
    client,
    recorder: { event: () => undefined },
    logger,
    metrics: new RuntimeMetrics(),
    clock: new FakeClock(),
    options: {},
    ...(provider ? { tracer: runtimeTracer(provider) } : {}),
  });
  running.push(c);
  c.start();
  return { c, transport, lines };
}

/** A reconciler that writes one object to the API and then answers `result` (or throws it). */
function writing(answer: () => Result | void, seen: ReconcileContext<unknown>[] = []): Reconciler<unknown> {
  return {
    async reconcile(ctx, req) {
      seen.push(ctx);
      ctx.log.info('reconciling');
      await ctx.client.create(Thing, {
        apiVersion: 'test.op-gen.dev/v1',
        kind: 'Thing',
        metadata: { name: `${req.name}-child`, namespace: req.namespace },
      });
      return answer();
    },
  };
}

async function spansOnce(provider: MemoryTracerProvider, count: number): Promise<FinishedSpan[]> {
  for (let i = 0; i < 100 && provider.finished.length < count; i++) await settle();
  assert.equal(provider.finished.length, count, JSON.stringify(provider.finished.map((s) => s.name)));
  return provider.finished;
}

describe('tracing: a recording tracer provider', () => {
  it('gives a reconcile a span and each API request a child span whose traceparent the server gets', async () => {
    const provider = new MemoryTracerProvider();
    const seen: ReconcileContext<unknown>[] = [];
    const { c, transport, lines } = setup(
      writing(() => undefined, seen),
      provider,
    );
    c.enqueue('ns1/a');
    const spans = await spansOnce(provider, 2);
    const request = spans.find((s) => s.kind === SpanKind.CLIENT)!;
    const reconcile = spans.find((s) => s.name === 'reconcile things')!;
    assert.ok(request && reconcile);
    assert.deepEqual(reconcile.attributes, {
      'controller.name': 'things',
      'controller.group': 'test.op-gen.dev',
      'controller.kind': 'Thing',
      'k8s.namespace.name': 'ns1',
      'k8s.object.name': 'a',
      'reconcile.id': seen[0]!.reconcileId,
      'reconcile.result': 'success',
    });
    assert.equal(reconcile.parentSpanId, undefined);
    assert.equal(request.parentSpanId, reconcile.spanId);
    assert.equal(request.traceId, reconcile.traceId);
    assert.equal(request.attributes['http.request.method'], 'POST');
    assert.equal(request.attributes['url.path'], '/apis/test.op-gen.dev/v1/namespaces/ns1/things');
    assert.equal(transport.requests.length, 1);
    assert.equal(transport.requests[0]!.headers?.traceparent, `00-${request.traceId}-${request.spanId}-01`);
    assert.ok(seen[0]!.span, 'ctx.span is the reconcile span');
    assert.equal(seen[0]!.span.spanContext().spanId, reconcile.spanId);
    const line = lines.find((l) => l.msg === 'reconciling')!;
    assert.deepEqual(
      {
        controller: line.controller,
        controllerGroup: line.controllerGroup,
        controllerKind: line.controllerKind,
        Thing: line.Thing,
        namespace: line.namespace,
        name: line.name,
        reconcileID: line.reconcileID,
        traceID: line.traceID,
        spanID: line.spanID,
      },
      {
        controller: 'things',
        controllerGroup: 'test.op-gen.dev',
        controllerKind: 'Thing',
        Thing: { name: 'a', namespace: 'ns1' },
        namespace: 'ns1',
        name: 'a',
        reconcileID: seen[0]!.reconcileId,
        traceID: reconcile.traceId,
        spanID: reconcile.spanId,
      },
    );
  });

  it('a list streamed through requestItems gets its span and traceparent too, and all its items', async () => {
    const provider = new MemoryTracerProvider();
    const names: (string | undefined)[] = [];
    const { c, transport } = setup(
      {
        async reconcile(ctx) {
          const list = await ctx.client.resource(Thing).listAll({ namespace: 'ns1' });
          for (const o of list.items) names.push(o.metadata?.name);
          return undefined;
        },
      },
      provider,
    );
    c.enqueue('ns1/a');
    const spans = await spansOnce(provider, 2);
    const request = spans.find((s) => s.kind === SpanKind.CLIENT)!;
    assert.equal(request.attributes['http.request.method'], 'GET');
    assert.deepEqual(names, ['x', 'y']);
    assert.equal(transport.requests[0]!.headers?.traceparent, `00-${request.traceId}-${request.spanId}-01`);
  });

  it('records requeues as span events and the result', async () => {
    const provider = new MemoryTracerProvider();
    const { c } = setup(
      writing(() => ({ requeueAfter: 60_000 })),
      provider,
    );
    c.enqueue('ns1/b');
    const reconcile = (await spansOnce(provider, 2)).find((s) => s.name === 'reconcile things')!;
    assert.equal(reconcile.attributes['reconcile.result'], 'requeue_after');
    assert.deepEqual(reconcile.events, [{ name: 'requeue', attributes: { 'requeue.after_ms': 60_000 } }]);
    assert.equal(reconcile.status, undefined);
  });

  it('records a failed request on its span and the error on the reconcile span', async () => {
    const provider = new MemoryTracerProvider();
    const { c, transport } = setup(
      writing(() => undefined),
      provider,
    );
    transport.conflicts.add('c-child');
    c.enqueue('ns1/c');
    const spans = await spansOnce(provider, 2);
    const request = spans.find((s) => s.kind === SpanKind.CLIENT)!;
    const reconcile = spans.find((s) => s.name === 'reconcile things')!;
    assert.equal(request.attributes['http.response.status_code'], 409);
    assert.equal(request.status?.code, SpanStatusCode.ERROR);
    assert.equal(reconcile.status?.code, SpanStatusCode.ERROR);
    assert.equal(reconcile.attributes['reconcile.result'], 'error');
    assert.deepEqual(
      reconcile.events.map((e) => e.name),
      ['exception', 'requeue'],
    );
    assert.deepEqual(reconcile.events[1]!.attributes, {
      'requeue.rate_limited': true,
      'requeue.error': true,
    });
  });
});

describe('tracing: no tracer provider registered', () => {
  it('starts no span, sends no traceparent and logs no trace id, but keeps the log keys', async () => {
    const seen: ReconcileContext<unknown>[] = [];
    const { c, transport, lines } = setup(
      writing(() => undefined, seen),
      undefined,
    );
    c.enqueue('ns1/d');
    for (let i = 0; i < 100 && transport.requests.length === 0; i++) await settle();
    assert.equal(transport.requests.length, 1);
    assert.equal(transport.requests[0]!.headers, undefined);
    assert.equal(seen[0]!.span, undefined);
    const line = lines.find((l) => l.msg === 'reconciling')!;
    assert.equal(line.traceID, undefined);
    assert.equal(line.reconcileID, seen[0]!.reconcileId);
    assert.deepEqual(line.Thing, { name: 'd', namespace: 'ns1' });
    assert.equal(line.controllerKind, 'Thing');
  });
});
