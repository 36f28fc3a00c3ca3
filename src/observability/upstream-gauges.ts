/**
 * The per-upstream gauges of /metrics (label `upstream`: the redacted URL), read from the pools when scraped: the
 * node's state, breaker, error rate, answers, head, lag and latency percentiles.
 */
import type { Registry } from 'prom-client'
import type { Series } from './histogram.ts'

/** One node's state as the pool reports it (src/upstreams/pool/pool.ts UpstreamStatus, the fields exported here). */
export interface UpstreamGaugeSource {
  network: string
  upstream: string
  state: string
  /** Why a node is out of rotation (`breaker-open`: its circuit breaker). */
  cause?: string
  errorRate: number
  answers: number
  head?: number
  lagBlocks?: number
  p50Ms?: number
  p99Ms?: number
}

const UPSTREAM_STATES = ['healthy', 'lagging', 'down', 'cordoned']

/** Registers the gauges on `registry`; each scrape reads the nodes from `source`. */
export function registerUpstreamGauges(registry: Registry, source: () => UpstreamGaugeSource[]): void {
  const gauge = (name: string, help: string, values: (u: UpstreamGaugeSource) => Series[]) =>
    registry.registerMetric({
      name,
      help,
      type: 'gauge',
      aggregator: 'sum',
      get: async () => ({
        name,
        help,
        type: 'gauge',
        aggregator: 'sum',
        values: source().flatMap(values),
      }),
    } as never)
  const labelsOf = (u: UpstreamGaugeSource) => ({ network: u.network, upstream: u.upstream })
  gauge(
    'chaingate_upstream_state',
    'Upstream node state: 1 for its current state (healthy, lagging, down, cordoned)',
    (u) => UPSTREAM_STATES.map((state) => ({ labels: { ...labelsOf(u), state }, value: u.state === state ? 1 : 0 })),
  )
  gauge('chaingate_upstream_breaker_open', "1 while the node's circuit breaker is open", (u) => [
    { labels: labelsOf(u), value: u.cause === 'breaker-open' ? 1 : 0 },
  ])
  gauge('chaingate_upstream_error_rate', 'Share of failed requests to the node over the last 10-20 s', (u) => [
    { labels: labelsOf(u), value: u.errorRate },
  ])
  gauge('chaingate_upstream_answers', 'Answers from the node over the last 10-20 s', (u) => [
    { labels: labelsOf(u), value: u.answers },
  ])
  gauge('chaingate_upstream_head_block', 'Latest block the node reported', (u) =>
    u.head === undefined ? [] : [{ labels: labelsOf(u), value: u.head }],
  )
  gauge('chaingate_upstream_lag_blocks', 'Blocks the node is behind the served tip', (u) =>
    u.lagBlocks === undefined ? [] : [{ labels: labelsOf(u), value: u.lagBlocks }],
  )
  gauge('chaingate_upstream_latency_p50_seconds', "Median of the node's latency over the last 10-20 s", (u) =>
    u.p50Ms === undefined ? [] : [{ labels: labelsOf(u), value: u.p50Ms / 1000 }],
  )
  gauge('chaingate_upstream_latency_p99_seconds', "99th percentile of the node's latency over the last 10-20 s", (u) =>
    u.p99Ms === undefined ? [] : [{ labels: labelsOf(u), value: u.p99Ms / 1000 }],
  )
}
