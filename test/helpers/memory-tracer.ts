import { randomBytes } from 'node:crypto';
import {
  context,
  trace,
  TraceFlags,
  type Attributes,
  type AttributeValue,
  type Context,
  type Exception,
  type Link,
  type Span,
  type SpanContext,
  type SpanKind,
  type SpanOptions,
  type SpanStatus,
  type TimeInput,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';

/** A span as the in-memory provider keeps it once ended. */
export interface FinishedSpan {
  readonly name: string;
  readonly kind: SpanKind | undefined;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly attributes: Attributes;
  readonly events: readonly { name: string; attributes: Attributes }[];
  readonly status: SpanStatus | undefined;
}

/** A recording span of the in-memory provider (always sampled). */
class MemorySpan implements Span {
  readonly attributes: Record<string, AttributeValue> = {};
  readonly events: { name: string; attributes: Attributes }[] = [];
  status: SpanStatus | undefined;
  private ended = false;
  private name: string;
  private readonly sc: SpanContext;
  private readonly kind: SpanKind | undefined;
  private readonly parentSpanId: string | undefined;
  private readonly provider: MemoryTracerProvider;

  constructor(
    provider: MemoryTracerProvider,
    name: string,
    options: SpanOptions,
    parent: SpanContext | undefined,
  ) {
    this.provider = provider;
    this.name = name;
    this.kind = options.kind;
    this.parentSpanId = parent?.spanId;
    this.sc = {
      traceId: parent?.traceId ?? randomBytes(16).toString('hex'),
      spanId: randomBytes(8).toString('hex'),
      traceFlags: TraceFlags.SAMPLED,
    };
    if (options.attributes) this.setAttributes(options.attributes);
  }

  spanContext(): SpanContext {
    return this.sc;
  }
  setAttribute(key: string, value: AttributeValue): this {
    this.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    for (const [k, v] of Object.entries(attributes)) if (v !== undefined) this.attributes[k] = v;
    return this;
  }
  addEvent(name: string, attributesOrTime?: Attributes | TimeInput): this {
    const attributes =
      typeof attributesOrTime === 'object' &&
      !(attributesOrTime instanceof Date) &&
      !Array.isArray(attributesOrTime)
        ? attributesOrTime
        : {};
    this.events.push({ name, attributes });
    return this;
  }
  addLink(_link: Link): this {
    return this;
  }
  addLinks(_links: Link[]): this {
    return this;
  }
  setStatus(status: SpanStatus): this {
    this.status = status;
    return this;
  }
  updateName(name: string): this {
    this.name = name;
    return this;
  }
  end(): void {
    if (this.ended) throw new Error(`span "${this.name}" ended twice`);
    this.ended = true;
    this.provider.finished.push({
      name: this.name,
      kind: this.kind,
      traceId: this.sc.traceId,
      spanId: this.sc.spanId,
      parentSpanId: this.parentSpanId,
      attributes: { ...this.attributes },
      events: [...this.events],
      status: this.status,
    });
  }
  isRecording(): boolean {
    return !this.ended;
  }
  recordException(exception: Exception): void {
    const message = typeof exception === 'string' ? exception : (exception.message ?? '');
    this.addEvent('exception', { 'exception.message': message });
  }
}

class MemoryTracer implements Tracer {
  private readonly provider: MemoryTracerProvider;
  constructor(provider: MemoryTracerProvider) {
    this.provider = provider;
  }
  startSpan(name: string, options: SpanOptions = {}, ctx: Context = context.active()): Span {
    const parent = options.root ? undefined : trace.getSpanContext(ctx);
    return new MemorySpan(this.provider, name, options, parent);
  }
  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
    const fn = rest[rest.length - 1] as F;
    const span = this.startSpan(name);
    return context.with(trace.setSpan(context.active(), span), () => fn(span)) as ReturnType<F>;
  }
}

/**
 * A TracerProvider written against @opentelemetry/api's interfaces alone (no SDK): every span is
 * sampled and recording, and lands in `finished` when it ends. Tests hand it to the runtime
 * (`tracerProvider`, or a Controller's `tracer`) instead of registering a global provider.
 */
export class MemoryTracerProvider implements TracerProvider {
  readonly finished: FinishedSpan[] = [];
  getTracer(): Tracer {
    return new MemoryTracer(this);
  }
}
