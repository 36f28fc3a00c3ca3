/**
 * The OpenTelemetry side of tracing.ts, imported only when tracing is on: a tracer provider with a parent-based
 * ratio sampler, span limits, a batch processor and the OTLP/HTTP exporter (protobuf or JSON). Spans get explicit
 * parents (the client's `traceparent`, or the call span for an attempt), so no context manager is installed.
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
import type { Tracing, TracingSettings, TraceSpan, TraceValue } from './tracing-types.ts'

const w3c = new W3CTraceContextPropagator()

type Tracer = ReturnType<BasicTracerProvider['getTracer']>

/**
 * Events and the end carry their own time (performance.now(), as the SDK's clock): a span given its start time
 * would otherwise time them with Date.now(), to the millisecond only.
 */
class SdkSpan implements TraceSpan {
  readonly span: Span
  readonly tracer: Tracer
  /** The attribute value limit, applied to the status message too (the SDK's limits do not cover it). */
  readonly maxText: number
  readonly propagates: boolean
  constructor(span: Span, tracer: Tracer, maxText: number, propagates: boolean) {
    this.span = span
    this.tracer = tracer
    this.maxText = maxText
    this.propagates = propagates
  }
  event(name: string, attributes?: Record<string, TraceValue>): void {
    this.span.addEvent(name, attributes, performance.now())
  }
  set(key: string, value: TraceValue): void {
    this.span.setAttribute(key, value)
  }
  child(name: string, attributes?: Record<string, TraceValue>): TraceSpan {
    const parent = trace.setSpan(ROOT_CONTEXT, this.span)
    const span = this.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent)
    return new SdkSpan(span, this.tracer, this.maxText, this.propagates)
  }
  end(error?: string): void {
    if (error !== undefined) this.span.setStatus({ code: SpanStatusCode.ERROR, message: error.slice(0, this.maxText) })
    this.span.end(performance.now())
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
    // Set here, not left to the SDK's defaults (values of any length): a client can choose what some attributes
    // hold. OTEL_*_LIMIT variables are read by tracingSettings.
    generalLimits: { attributeValueLengthLimit: s.limits.valueLength, attributeCountLimit: s.limits.count },
    spanLimits: {
      attributeValueLengthLimit: s.limits.valueLength,
      attributeCountLimit: s.limits.count,
      eventCountLimit: s.limits.count,
      attributePerEventCountLimit: s.limits.count,
      linkCountLimit: s.limits.count,
      attributePerLinkCountLimit: s.limits.count,
    },
    spanProcessors: [new BatchSpanProcessor(exporter, delay >= 0 ? { scheduledDelayMillis: delay } : {})],
  })
  const tracer = provider.getTracer('chaingate')
  return {
    on: true,
    propagate: s.propagate,
    start(name, traceparent, attributes, startedAt, follow = true) {
      const parent =
        traceparent === undefined ? ROOT_CONTEXT : w3c.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter)
      // A client's valid trace decides for itself (parent-based); otherwise (none, or a malformed header, or a call
      // not allowed to force a trace) the ratio. A call the ratio picks still joins the client's trace.
      const followed = follow && s.parentBased && trace.getSpanContext(parent) !== undefined
      if (!followed && (s.sampleRatio <= 0 || Math.random() >= s.sampleRatio)) return undefined
      const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes, startTime: startedAt }, parent)
      if (!span.isRecording()) return undefined
      return new SdkSpan(span, tracer, s.limits.valueLength, s.propagate)
    },
    async shutdown() {
      await provider.forceFlush().catch(() => undefined)
      await provider.shutdown().catch(() => undefined)
    },
  }
}
