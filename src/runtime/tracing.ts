import {
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import type { Transport, TransportRequest } from '../client/transport.ts';

/** The instrumentation scope of the runtime's spans. */
export const TRACER_NAME = 'op-gen/runtime';

/**
 * The runtime's tracer: from `provider`, else from the global provider (`trace.getTracerProvider()`,
 * which delegates to the one an OpenTelemetry SDK registers, even when it registers later). With no
 * provider registered its spans are non-recording and the controller skips all tracing work.
 */
export function runtimeTracer(provider?: TracerProvider): Tracer {
  return (provider ?? trace.getTracerProvider()).getTracer(TRACER_NAME);
}

/** The W3C `traceparent` header of a span: `00-<trace id>-<span id>-<flags>`. */
export function traceparentOf(sc: SpanContext): string {
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** A failure as span status and an `exception` event. */
export function recordFailure(span: Span, err: unknown): void {
  if (err instanceof Error) span.recordException(err);
  else span.recordException(String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/**
 * `transport` with a CLIENT span per API request, child of `parent`, whose context goes to the API
 * server as the W3C `traceparent` (and `tracestate`) headers: the API server (APIServerTracing, GA in
 * Kubernetes 1.34) continues the trace with its own spans. Spans carry the method, path and, for a
 * refused request, the status code.
 */
export function tracedTransport(transport: Transport, tracer: Tracer, parent: Context): Transport {
  const start = (req: TransportRequest): { span: Span; req: TransportRequest } => {
    const attributes: Attributes = { 'http.request.method': req.method, 'url.path': req.path };
    const span = tracer.startSpan(`${req.method} ${req.path}`, { kind: SpanKind.CLIENT, attributes }, parent);
    const sc = span.spanContext();
    const state = sc.traceState?.serialize();
    const headers: Record<string, string> = { ...req.headers, traceparent: traceparentOf(sc) };
    if (state) headers.tracestate = state;
    return { span, req: { ...req, headers } };
  };
  const fail = (span: Span, err: unknown): never => {
    const status = (err as { statusCode?: unknown } | null)?.statusCode;
    if (typeof status === 'number') span.setAttribute('http.response.status_code', status);
    recordFailure(span, err);
    span.end();
    throw err;
  };
  return {
    request: async <T>(req: TransportRequest): Promise<T> => {
      const s = start(req);
      let answer: T;
      try {
        answer = await transport.request<T>(s.req);
      } catch (err) {
        return fail(s.span, err);
      }
      s.span.end();
      return answer;
    },
    ...(transport.requestItems
      ? {
          requestItems: async (
            req: TransportRequest,
            onItems: (items: unknown[]) => void,
          ): Promise<unknown> => {
            const s = start(req);
            let answer: unknown;
            try {
              answer = await transport.requestItems!(s.req, onItems);
            } catch (err) {
              return fail(s.span, err);
            }
            s.span.end();
            return answer;
          },
        }
      : {}),
    stream: async (req, onLine, onOpen) => {
      const s = start(req);
      try {
        await transport.stream(s.req, onLine, onOpen);
      } catch (err) {
        fail(s.span, err);
      }
      s.span.end();
    },
    close: () => transport.close(),
  };
}
