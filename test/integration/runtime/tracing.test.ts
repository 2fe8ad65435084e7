import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
import { builtinKinds, Manager, type Reconciler } from '../../../src/runtime/index.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { MemoryTracerProvider } from '../../helpers/memory-tracer.ts';
import { createNamespace, eventually, memoryLogger } from './helpers.ts';

/**
 * The API server receives the reconcile's trace context. Proof from the API server itself: it runs
 * with APIServerTracing (`--tracing-config-file`, sampling 0 per million, so it only samples requests
 * whose `traceparent` says sampled) and exports its spans over OTLP/gRPC to a receiver in this test
 * (plain HTTP/2). An exported span whose trace id is the reconcile's and whose parent span id is the
 * op-gen CLIENT span's can only come from the `traceparent` header op-gen sent.
 */

/** Collects the bodies of OTLP/gRPC ExportTraceServiceRequest calls and answers them with OK. */
function otlpReceiver(): { server: Http2Server; bodies: Buffer[] } {
  const bodies: Buffer[] = [];
  const server = createServer();
  server.on('stream', (stream) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      bodies.push(Buffer.concat(chunks));
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      // An empty ExportTraceServiceResponse: uncompressed, length 0.
      stream.end(Buffer.alloc(5));
    });
  });
  return { server, bodies };
}

describe('tracing against a real API server', { timeout: 180_000, skip: controlPlaneSkip() }, () => {
  let cp: ControlPlane;
  let mgr: Manager;
  let running: Promise<void>;
  let dir: string;
  const receiver = otlpReceiver();
  const provider = new MemoryTracerProvider();
  const { logger } = memoryLogger();
  const ns = 'traced';

  before(async () => {
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    const port = (receiver.server.address() as AddressInfo).port;
    dir = mkdtempSync(join(tmpdir(), 'op-gen-tracing-'));
    const config = join(dir, 'tracing.yaml');
    writeFileSync(
      config,
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: TracingConfiguration',
        `endpoint: 127.0.0.1:${port}`,
        'samplingRatePerMillion: 0',
        '',
      ].join('\n'),
    );
    cp = await startControlPlane({ apiServerFlags: [`--tracing-config-file=${config}`] });
    await createNamespace(cp.kubeConfig, ns);
    mgr = await Manager.create({
      kubeConfig: cp.kubeConfig,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      handleSignals: false,
      logger,
      tracerProvider: provider,
    });
    // Reads its ConfigMap from the API (not the cache), so every reconcile sends one request.
    const reconciler: Reconciler<unknown> = {
      async reconcile(ctx, req) {
        await ctx.client.resource(builtinKinds.ConfigMap).get({ namespace: req.namespace, name: req.name });
      },
    };
    mgr
      .controller('traced-configmaps')
      .for(builtinKinds.ConfigMap)
      .complete(reconciler as never);
    running = mgr.start();
    await mgr.ready;
  });

  after(async () => {
    await mgr?.stop();
    await running;
    await cp?.stop();
    receiver.server.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("the API server continues the reconcile's trace under op-gen's request span", async () => {
    await mgr.client.resource(builtinKinds.ConfigMap).create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: ns, name: 'one' },
      data: { a: 'b' },
    });
    const request = await eventually('a traced GET of the ConfigMap', async () =>
      provider.finished.find(
        (s) =>
          s.kind === SpanKind.CLIENT &&
          s.attributes['url.path'] === `/api/v1/namespaces/${ns}/configmaps/one`,
      ),
    );
    const reconcile = provider.finished.find((s) => s.spanId === request.parentSpanId);
    assert.equal(reconcile?.name, 'reconcile traced-configmaps');
    assert.equal(reconcile.attributes['k8s.object.name'], 'one');
    const traceId = Buffer.from(request.traceId, 'hex');
    // OTLP Span: trace_id is field 1 (tag 0x0a, 16 bytes), parent_span_id field 4 (tag 0x22, 8 bytes).
    const parentField = Buffer.concat([Buffer.from([0x22, 0x08]), Buffer.from(request.spanId, 'hex')]);
    const traceField = Buffer.concat([Buffer.from([0x0a, 0x10]), traceId]);
    const exported = await eventually(
      'the API server to export a span of the trace',
      async () => receiver.bodies.find((b) => b.includes(traceField) && b.includes(parentField)),
      60_000,
    );
    assert.ok(exported.length > 0);
  });
});
