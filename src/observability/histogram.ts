/**
 * A Prometheus histogram as plain numbers: observed on the hot path without prom-client (which hashes label objects
 * on every observe, even on a labelled child), turned into series only when scraped (src/observability/metrics.ts).
 * A caller keeps one Histogram per label set, found or bound ahead of the call, so observing builds nothing.
 */

/** A series as prom-client's registry takes it from a collector's `get`. */
export interface Series {
  labels: Record<string, string | number>
  value: number
  metricName?: string
}

/** Upper bounds (seconds) of the latency histograms' buckets (node latency, client request duration). */
export const LATENCY_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
]

export interface Histogram {
  /** Upper bounds of the buckets, ascending (+Inf is implied). */
  readonly bounds: readonly number[]
  /** Per bucket, observations at or below its bound and above the previous one (cumulated when scraped). */
  readonly buckets: Float64Array
  sum: number
  count: number
}

export const newHistogram = (bounds: readonly number[] = LATENCY_BUCKETS): Histogram => ({
  bounds,
  buckets: new Float64Array(bounds.length),
  sum: 0,
  count: 0,
})

export function observe(h: Histogram, seconds: number): void {
  h.count++
  h.sum += seconds
  const { bounds, buckets } = h
  for (let i = 0; i < bounds.length; i++)
    if (seconds <= bounds[i]!) {
      buckets[i] = buckets[i]! + 1
      break
    }
}

/** A histogram's series as Prometheus has them: cumulative buckets, +Inf, sum and count. */
export function histogramSeries(out: Series[], name: string, labels: Record<string, string>, h: Histogram): void {
  let cumulative = 0
  h.bounds.forEach((le, i) => {
    cumulative += h.buckets[i]!
    out.push({ metricName: `${name}_bucket`, labels: { le, ...labels }, value: cumulative })
  })
  out.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', ...labels }, value: h.count })
  out.push({ metricName: `${name}_sum`, labels, value: h.sum })
  out.push({ metricName: `${name}_count`, labels, value: h.count })
}

/** What prom-client's registry asks of a metric read when scraped: a name, help, type and its series. */
export function collector(
  name: string,
  help: string,
  type: 'counter' | 'gauge' | 'histogram',
  values: () => Series[],
): never {
  return {
    name,
    help,
    type,
    aggregator: 'sum' as const,
    get: async () => ({ name, help, type, aggregator: 'sum' as const, values: values() }),
  } as never
}
