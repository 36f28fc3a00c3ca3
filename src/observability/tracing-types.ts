/**
 * What tracing.ts offers and what its lazily loaded OpenTelemetry side (tracing-sdk.ts) implements: apart from both,
 * so the SDK side does not import the facade that loads it.
 */

export type TraceValue = string | number | boolean

/** One span while it runs; its children (upstream attempts) and events (pipeline steps) hang under it. */
export interface TraceSpan {
  event(name: string, attributes?: Record<string, TraceValue>): void
  set(key: string, value: TraceValue): void
  /** A child span (an upstream attempt). */
  child(name: string, attributes?: Record<string, TraceValue>): TraceSpan
  /** Ends the span; `error`: why it failed (status ERROR). */
  end(error?: string): void
  /** The W3C `traceparent` naming this span, to send to a node. */
  traceparent(): string
  /** Whether upstream requests made for this span carry their attempt's `traceparent` (propagateToUpstreams). */
  readonly propagates: boolean
}

export interface Tracing {
  readonly on: boolean
  /** Whether upstream requests carry the attempt's `traceparent` (tracing.propagateToUpstreams). */
  readonly propagate: boolean
  /**
   * A server span for one call (or batch, or WebSocket message), continuing the client's W3C `traceparent` when
   * it sent one; undefined when off or not sampled (then nothing more is recorded for it). `startedAt`: when the
   * call arrived (`performance.now()`), for a span started after its key was looked up. `follow` false: the
   * client's sampled flag does not force a trace, only the ratio picks it (a call whose key is not valid: anyone
   * could send one, docs/deploy.md, "Traces").
   */
  start(
    name: string,
    traceparent: string | undefined,
    attributes?: Record<string, TraceValue>,
    startedAt?: number,
    follow?: boolean,
  ): TraceSpan | undefined
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>
}

export interface TracingSettings {
  /** The OTLP traces URL (…/v1/traces). */
  url: string
  protocol: 'http/protobuf' | 'http/json'
  /** 0..1, applied to new traces; a client's sampled flag is followed (parent-based). */
  sampleRatio: number
  parentBased: boolean
  propagate: boolean
  serviceName: string
  /** OTEL_EXPORTER_OTLP(_TRACES)_HEADERS, parsed. */
  headers: Record<string, string>
  /** Longest attribute value (characters; longer ones are cut) and most attributes a span or event keeps. */
  limits: { valueLength: number; count: number }
}
