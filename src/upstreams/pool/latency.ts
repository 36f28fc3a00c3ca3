/**
 * Rolling latency quantiles and error rate of one node (or of a whole network): two windows of `hdr-histogram-js`
 * counts, the current one and the one before, swapped by `rotate()` (the pool does it on a timer). Quantiles read
 * both, so they cover between one and two windows of calls, and a node that changed behaviour shows it within
 * two windows. Recording is a few arithmetic operations: it runs on every answer.
 */
import { build, type Histogram } from 'hdr-histogram-js'

const make = (): Histogram =>
  build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 2,
    autoResize: false,
    bitBucketSize: 32,
  })

export class RollingStats {
  private current = make()
  private previous = make()
  private readonly scratch = make()
  ok = 0
  failed = 0
  private prevOk = 0
  private prevFailed = 0
  /** An answer after `ms` milliseconds (kept in microseconds: local nodes answer in well under 1 ms). */
  recordLatency(ms: number): void {
    this.current.recordValue(Math.min(3_600_000_000, Math.max(1, Math.round(ms * 1000))))
    this.ok++
  }
  recordFailure(): void {
    this.failed++
  }
  rotate(): void {
    const old = this.previous
    old.reset()
    this.previous = this.current
    this.current = old
    this.prevOk = this.ok
    this.prevFailed = this.failed
    this.ok = 0
    this.failed = 0
  }
  /** Share of requests that failed over the last one or two windows (0 when there were none). */
  errorRate(): number {
    const total = this.ok + this.failed + this.prevOk + this.prevFailed
    return total === 0 ? 0 : (this.failed + this.prevFailed) / total
  }
  get samples(): number {
    return this.ok + this.prevOk
  }
  /** Latency in ms at quantile q (0.5, 0.99, …) over both windows; undefined without answers. */
  quantileMs(q: number): number | undefined {
    if (this.samples === 0) return undefined
    this.scratch.reset()
    this.scratch.add(this.previous)
    this.scratch.add(this.current)
    return this.scratch.getValueAtPercentile(q * 100) / 1000
  }
  /** Adds both windows to `into` (a network-wide quantile over several nodes). */
  addTo(into: Histogram): void {
    into.add(this.previous)
    into.add(this.current)
  }
  /** Several quantiles with one merge (for /healthz). */
  quantilesMs(qs: number[]): (number | undefined)[] {
    if (this.samples === 0) return qs.map(() => undefined)
    this.scratch.reset()
    this.scratch.add(this.previous)
    this.scratch.add(this.current)
    return qs.map((q) => this.scratch.getValueAtPercentile(q * 100) / 1000)
  }
}

const networkScratch = make()
/** Latency in ms at quantile q over several nodes' windows; undefined with fewer than `minSamples` answers. */
export function quantileOf(list: RollingStats[], q: number, minSamples: number): number | undefined {
  let samples = 0
  for (const s of list) samples += s.samples
  if (samples < minSamples) return undefined
  networkScratch.reset()
  for (const s of list) s.addTo(networkScratch)
  return networkScratch.getValueAtPercentile(q * 100) / 1000
}
