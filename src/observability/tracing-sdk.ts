/**
 * The OpenTelemetry side of tracing.ts, imported only when tracing is on: a tracer provider with a parent-based
 * ratio sampler, a batch processor and the OTLP/HTTP exporter (protobuf or JSON). Spans get explicit parents
 * (the client's `traceparent`, or the call span for an attempt), so no context manager is installed.
 */
import {
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
} from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources'
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-base'
import type { Tracing, TracingSettings, TraceSpan, TraceValue } from './tracing.ts'

const w3c = new W3CTraceContextPropagator()

class SdkSpan implements TraceSpan {
  readonly span: Span
  readonly tracer: ReturnType<BasicTracerProvider['getTracer']>
  constructor(span: Span, tracer: ReturnType<BasicTracerProvider['getTracer']>) {
    this.span = span
    this.tracer = tracer
  }
  event(name: string, attributes?: Record<string, TraceValue>): void {
    this.span.addEvent(name, attributes)
  }
  set(key: string, value: TraceValue): void {
    this.span.setAttribute(key, value)
  }
  child(name: string, attributes?: Record<string, TraceValue>): TraceSpan {
    const parent = trace.setSpan(ROOT_CONTEXT, this.span)
    return new SdkSpan(this.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent), this.tracer)
  }
  end(error?: string): void {
    if (error !== undefined) this.span.setStatus({ code: SpanStatusCode.ERROR, message: error })
    this.span.end()
  }
  traceparent(): string {
    const carrier: Record<string, string> = {}
    w3c.inject(trace.setSpan(ROOT_CONTEXT, this.span), carrier, defaultTextMapSetter)
    return carrier.traceparent ?? ''
  }
}

/**
 * New traces are sampled in start() before the SDK is asked (an unsampled call then costs one random number, no
 * span object), so the SDK's own sampler takes every trace start() lets through, and follows a client's parent.
 */
function samplerOf(s: TracingSettings): Sampler {
  return s.parentBased ? new ParentBasedSampler({ root: new AlwaysOnSampler() }) : new AlwaysOnSampler()
}

export async function createSdkTracing(s: TracingSettings): Promise<Tracing> {
  const { OTLPTraceExporter } =
    s.protocol === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto')
  const exporter = new OTLPTraceExporter({ url: s.url, headers: s.headers })
  const delay = Number(process.env.OTEL_BSP_SCHEDULE_DELAY)
  const provider = new BasicTracerProvider({
    // OTEL_RESOURCE_ATTRIBUTES (e.g. the pod's name from the Kubernetes downward API), the service name over it.
    resource: detectResources({ detectors: [envDetector] }).merge(
      resourceFromAttributes({ 'service.name': s.serviceName }),
    ),
    sampler: samplerOf(s),
    spanProcessors: [new BatchSpanProcessor(exporter, delay >= 0 ? { scheduledDelayMillis: delay } : {})],
  })
  const tracer = provider.getTracer('chaingate')
  return {
    on: true,
    propagate: s.propagate,
    start(name, traceparent, attributes) {
      const parent =
        traceparent === undefined ? ROOT_CONTEXT : w3c.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter)
      // A client's valid trace decides for itself (parent-based); otherwise (none, or a malformed header) the ratio.
      const followed = s.parentBased && trace.getSpanContext(parent) !== undefined
      if (!followed && (s.sampleRatio <= 0 || Math.random() >= s.sampleRatio)) return undefined
      const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent)
      if (!span.isRecording()) return undefined
      return new SdkSpan(span, tracer)
    },
    async shutdown() {
      await provider.forceFlush().catch(() => undefined)
      await provider.shutdown().catch(() => undefined)
    },
  }
}
