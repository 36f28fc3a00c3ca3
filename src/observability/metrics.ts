/**
 * Prometheus metrics (prom-client), served at /metrics. Method labels are limited to methods the gateway
 * knows (the cost table) so a client sending random method names cannot blow up the label set.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

export interface Metrics {
  call(network: string, method: string, outcome: string): void
  upstreamLatency(network: string, seconds: number): void
  credits(network: string, credits: number): void
  wsConnections(delta: number): void
  readonly registry: Registry
}

export function createMetrics(knownMethods: Iterable<string>): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const known = new Set(knownMethods)
  const requests = new Counter({
    name: 'chaingate_requests_total',
    help: 'JSON-RPC calls answered, by network, method and outcome (ok, error, unavailable, or an HTTP refusal)',
    labelNames: ['network', 'method', 'outcome'],
    registers: [registry],
  })
  const latency = new Histogram({
    name: 'chaingate_upstream_latency_seconds',
    help: 'Time for the upstream node to answer, by network',
    labelNames: ['network'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  })
  const credits = new Counter({
    name: 'chaingate_credits_charged_total',
    help: 'Credits charged, by network',
    labelNames: ['network'],
    registers: [registry],
  })
  const ws = new Counter({ name: 'chaingate_ws_connections_opened_total', help: 'WebSocket connections opened', registers: [registry] })
  // Label objects cached per combination: prom-client hashes labels on every inc otherwise.
  const children = new Map<string, Counter.Internal>()
  const histograms = new Map<string, Histogram.Internal<string>>()
  const creditChildren = new Map<string, Counter.Internal>()
  return {
    registry,
    call(network, method, outcome) {
      const m = known.has(method) || method.startsWith('(') || method === 'batch' ? method : 'other'
      const k = `${network}|${m}|${outcome}`
      let c = children.get(k)
      if (!c) children.set(k, (c = requests.labels(network, m, outcome)))
      c.inc()
    },
    upstreamLatency(network, seconds) {
      let h = histograms.get(network)
      if (!h) histograms.set(network, (h = latency.labels(network)))
      h.observe(seconds)
    },
    credits(network, n) {
      if (n <= 0) return
      let c = creditChildren.get(network)
      if (!c) creditChildren.set(network, (c = credits.labels(network)))
      c.inc(n)
    },
    wsConnections(delta) {
      if (delta > 0) ws.inc(delta)
    },
  }
}
