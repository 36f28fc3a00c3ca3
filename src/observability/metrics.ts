/**
 * Prometheus metrics, served at /metrics. The per-request counters are plain numbers in nested Maps (no string
 * keys built, nothing hashed per call): prom-client hashes label objects on every inc/observe, even on a labelled
 * child, which measured as a visible share of a call in bench/. They are turned into Prometheus series only when
 * scraped, by collectors registered in prom-client's registry (which also serves Node's default metrics).
 *
 * Method labels are limited to methods the gateway serves (methodLabel, shared with the usage ledger), so a
 * client sending random method names cannot blow up the label set.
 */
import { Registry, collectDefaultMetrics } from 'prom-client'
import type { LimitCode } from '../errors/registry.ts'
import { ALL_METHODS } from '../methods/catalog.ts'
import { methodLabel } from '../methods/labels.ts'
import { collector, histogramSeries, newHistogram, observe, type Histogram, type Series } from './histogram.ts'
import { registerUpstreamGauges, type UpstreamGaugeSource } from './upstream-gauges.ts'

/**
 * How a client's HTTP request ended, for chaingate_request_duration_seconds: answered (`ok`, JSON-RPC errors from
 * the node included), refused for its key's limits (`refused`: 429), refused for the request itself
 * (`client_error`: a bad key, body or network), or unanswered because of the nodes (`upstream_error`).
 */
export type RequestOutcome = 'ok' | 'refused' | 'client_error' | 'upstream_error'

/** Method classes (the catalog's retry class: read, write, node-local), plus batch and other: a bounded set. */
const METHOD_CLASSES: ReadonlyMap<string, string> = new Map([...ALL_METHODS].map(([m, e]) => [m, e.retry ?? 'read']))
export const methodClass = (method: string): string =>
  method === 'batch' ? 'batch' : (METHOD_CLASSES.get(method) ?? 'other')

/** Why a request was refused for its credits (chaingate_credits_refused_total's `reason`: the code, lower case). */
const LIMIT_CODES: readonly LimitCode[] = [
  'DAILY_CREDITS_EXHAUSTED',
  'KEY_DAILY_CREDITS_EXHAUSTED',
  'ACCOUNT_THROUGHPUT_EXCEEDED',
  'KEY_THROUGHPUT_EXCEEDED',
]

export interface Metrics {
  call(network: string, method: string, outcome: string): void
  /** A client's HTTP request, from its arrival to its answer written (chaingate_request_duration_seconds). */
  requestDuration(network: string, method: string, outcome: RequestOutcome, seconds: number): void
  /** The running config's version, read when scraped (chaingate_config_info): a reload changes the label. */
  watchConfigVersion(version: () => string): void
  upstreamLatency(network: string, seconds: number): void
  /** A request refused by a credit limit (the account's day or rate, or the key's own), for any transport. */
  creditsRefused(network: string, code: LimitCode): void
  credits(network: string, credits: number): void
  /** A call the gateway answered without an upstream request of its own: from the cache, or a shared call in flight. */
  served(network: string, source: 'cache' | 'dedup'): void
  wsConnections(delta: number): void
  /** Per-upstream gauges, read from the pools when scraped (label `upstream`: the redacted URL). */
  watchUpstreams(source: () => UpstreamGaugeSource[]): void
  /** Bytes the in-process answer cache holds (docs/caching.md), read when scraped. */
  watchCache(bytes: () => number): void
  /** With Redis: 1 while its counters are unreachable and the replica serves under the insurance share. */
  watchRedis(insuranceMode: () => boolean): void
  readonly registry: Registry
}

export function createMetrics(knownMethods: Iterable<string>): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const known = new Set(knownMethods)

  // network → method → outcome → count
  const requests = new Map<string, Map<string, Map<string, number>>>()
  // The last call's network and method, and their counts: a client's calls name the same again (no label check,
  // two lookups fewer).
  const last = { network: '', method: '', byOutcome: undefined as Map<string, number> | undefined }
  const latency = new Map<string, Histogram>()
  const creditsCharged = new Map<string, number>()
  // network → count per LIMIT_CODES index
  const refusedByLimit = new Map<string, Float64Array>()
  let wsOpened = 0
  let wsOpen = 0
  // network → source → count
  const servedLocally = new Map<string, Map<string, number>>()
  // network → method class → outcome → histogram (plain arrays: prom-client's label hashing costs per call)
  const durations = new Map<string, Map<string, Map<string, Histogram>>>()
  let configVersion: (() => string) | undefined

  registry.registerMetric(
    collector(
      'chaingate_request_duration_seconds',
      'Client HTTP requests from arrival to answer, by network, method class and outcome',
      'histogram',
      () => {
        const out: Series[] = []
        for (const [network, byClass] of durations)
          for (const [method_class, byOutcome] of byClass)
            for (const [outcome, h] of byOutcome)
              histogramSeries(out, 'chaingate_request_duration_seconds', { network, method_class, outcome }, h)
        return out
      },
    ) as never,
  )
  registry.registerMetric({
    name: 'chaingate_config_info',
    help: 'The running config version (1): the label changes on a reload',
    type: 'gauge',
    aggregator: 'omit',
    get: async () => ({
      name: 'chaingate_config_info',
      help: 'The running config version (1): the label changes on a reload',
      type: 'gauge',
      aggregator: 'omit',
      values: configVersion === undefined ? [] : [{ labels: { version: configVersion() }, value: 1 }],
    }),
  } as never)

  registry.registerMetric(
    collector(
      'chaingate_requests_total',
      'JSON-RPC calls answered, by network, method and outcome (ok, error, unavailable, or an HTTP refusal)',
      'counter',
      () => {
        const out: Series[] = []
        for (const [network, byMethod] of requests)
          for (const [method, byOutcome] of byMethod)
            for (const [outcome, value] of byOutcome) out.push({ labels: { network, method, outcome }, value })
        return out
      },
    ) as never,
  )
  registry.registerMetric(
    collector(
      'chaingate_upstream_latency_seconds',
      'Time for the upstream node to answer, by network',
      'histogram',
      () => {
        const out: Series[] = []
        for (const [network, h] of latency) histogramSeries(out, 'chaingate_upstream_latency_seconds', { network }, h)
        return out
      },
    ) as never,
  )
  registry.registerMetric(
    collector('chaingate_credits_charged_total', 'Credits charged, by network', 'counter', () =>
      [...creditsCharged].map(([network, value]) => ({ labels: { network }, value })),
    ) as never,
  )
  registry.registerMetric(
    collector(
      'chaingate_credits_refused_total',
      'Requests refused by a credit limit, by network and reason (daily_credits_exhausted, ' +
        'key_daily_credits_exhausted, account_throughput_exceeded, key_throughput_exceeded)',
      'counter',
      () =>
        [...refusedByLimit].flatMap(([network, counts]) =>
          LIMIT_CODES.map((code, i) => ({ labels: { network, reason: code.toLowerCase() }, value: counts[i]! })),
        ),
    ) as never,
  )
  registry.registerMetric(
    collector(
      'chaingate_answers_without_upstream_total',
      'Calls answered without an upstream request of their own, by network and source (cache, dedup); ' +
        'charged like any call',
      'counter',
      () => {
        const out: Series[] = []
        for (const [network, bySource] of servedLocally)
          for (const [source, value] of bySource) out.push({ labels: { network, source }, value })
        return out
      },
    ) as never,
  )
  registry.registerMetric(
    collector('chaingate_ws_connections_opened_total', 'WebSocket connections opened', 'counter', () => [
      { labels: {}, value: wsOpened },
    ]) as never,
  )

  const single = (name: string, help: string, value: () => number | undefined) =>
    registry.registerMetric({
      name,
      help,
      type: 'gauge',
      aggregator: 'sum',
      get: async () => {
        const v = value()
        return {
          name,
          help,
          type: 'gauge',
          aggregator: 'sum',
          values: v === undefined ? [] : [{ labels: {}, value: v }],
        }
      },
    } as never)
  single('chaingate_ws_connections', 'WebSocket connections open now', () => wsOpen)
  let redisInsurance: (() => boolean) | undefined
  single(
    'chaingate_redis_insurance_mode',
    '1 while Redis is unreachable and this replica serves under its insurance share of each limit (docs/scale-out.md)',
    () => (redisInsurance === undefined ? undefined : redisInsurance() ? 1 : 0),
  )

  let upstreamSource: (() => UpstreamGaugeSource[]) | undefined
  registerUpstreamGauges(registry, () => upstreamSource?.() ?? [])

  let cacheBytes: (() => number) | undefined
  const cacheHelp = 'Bytes the in-process answer cache holds (answers and keys), within cache.maxBytes'
  registry.registerMetric({
    name: 'chaingate_cache_bytes',
    help: cacheHelp,
    type: 'gauge',
    aggregator: 'sum',
    get: async () => ({
      name: 'chaingate_cache_bytes',
      help: cacheHelp,
      type: 'gauge',
      aggregator: 'sum',
      values: cacheBytes === undefined ? [] : [{ labels: {}, value: cacheBytes() }],
    }),
  } as never)

  return {
    registry,
    watchCache(bytes) {
      cacheBytes = bytes
    },
    watchRedis(insuranceMode) {
      redisInsurance = insuranceMode
    },
    watchUpstreams(source) {
      upstreamSource = source
    },
    call(network, method, outcome) {
      let byOutcome = last.byOutcome
      if (byOutcome === undefined || network !== last.network || method !== last.method) {
        const m = methodLabel(method, known)
        let byMethod = requests.get(network)
        if (byMethod === undefined) requests.set(network, (byMethod = new Map()))
        byOutcome = byMethod.get(m)
        if (byOutcome === undefined) byMethod.set(m, (byOutcome = new Map()))
        last.network = network
        last.method = method
        last.byOutcome = byOutcome
      }
      byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1)
    },
    upstreamLatency(network, seconds) {
      let h = latency.get(network)
      if (h === undefined) latency.set(network, (h = newHistogram()))
      observe(h, seconds)
    },
    requestDuration(network, method, outcome, seconds) {
      const c = methodClass(method)
      let byClass = durations.get(network)
      if (byClass === undefined) durations.set(network, (byClass = new Map()))
      let byOutcome = byClass.get(c)
      if (byOutcome === undefined) byClass.set(c, (byOutcome = new Map()))
      let h = byOutcome.get(outcome)
      if (h === undefined) byOutcome.set(outcome, (h = newHistogram()))
      observe(h, seconds)
    },
    creditsRefused(network, code) {
      let counts = refusedByLimit.get(network)
      if (counts === undefined) refusedByLimit.set(network, (counts = new Float64Array(LIMIT_CODES.length)))
      const i = LIMIT_CODES.indexOf(code)
      counts[i] = counts[i]! + 1
    },
    watchConfigVersion(version) {
      configVersion = version
    },
    credits(network, n) {
      if (n <= 0) return
      creditsCharged.set(network, (creditsCharged.get(network) ?? 0) + n)
    },
    served(network, source) {
      let bySource = servedLocally.get(network)
      if (bySource === undefined) servedLocally.set(network, (bySource = new Map()))
      bySource.set(source, (bySource.get(source) ?? 0) + 1)
    },
    wsConnections(delta) {
      if (delta > 0) wsOpened += delta
      wsOpen += delta
    },
  }
}
