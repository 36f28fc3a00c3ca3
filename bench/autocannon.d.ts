// The part of autocannon 9's programmatic API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'

  export interface Options {
    url: string
    connections?: number
    pipelining?: number
    /** Seconds. */
    duration?: number
    /** Seconds a request may take before it counts as a timeout. */
    timeout?: number
    method?: string
    headers?: Record<string, string>
    body?: string | Buffer
  }

  export interface Histogram {
    average: number
    mean: number
    stddev: number
    min: number
    max: number
    total: number
    p50: number
    p99: number
  }

  export interface Result {
    /** Seconds actually run. */
    duration: number
    errors: number
    timeouts: number
    non2xx: number
    latency: Histogram
    requests: Histogram & { sent: number }
    throughput: Histogram
    statusCodeStats: Record<string, { count: number }>
  }

  /** Emits `response` (client, statusCode, resBytes, responseTimeMs) for every answer. */
  export interface Instance extends EventEmitter, PromiseLike<Result> {
    stop(): void
  }

  export default function autocannon(options: Options): Instance
}
