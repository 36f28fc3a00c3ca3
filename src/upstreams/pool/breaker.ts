/**
 * A node's circuit breaker, owned rather than cockatiel's: the per-call cost is one field write on success, which
 * matters on the forwarding path (docs/benchmarks.md). `failureThreshold` consecutive failures open it; after
 * `openMs` one call is let through as a probe (half-open): an answer closes it, a failure opens it again for twice
 * as long (up to `maxOpenMs`).
 */
export interface BreakerSettings {
  failureThreshold: number
  openMs: number
  maxOpenMs: number
}

export class Breaker {
  /** Consecutive failures since the last answer. */
  failures = 0
  /** 0: closed; otherwise the time (ms) before which the node takes no call. */
  openUntil = 0
  /** A probe call is in flight (half-open). */
  probing = false
  private openMs: number
  private readonly s: BreakerSettings
  constructor(s: BreakerSettings) {
    this.s = s
    this.openMs = s.openMs
  }
  get isOpen(): boolean {
    return this.openUntil !== 0
  }
  /** Whether a call may go to the node now; past the open time, the first caller becomes the probe. */
  allow(now: number): boolean {
    if (this.openUntil === 0) return true
    if (now < this.openUntil || this.probing) return false
    this.probing = true
    return true
  }
  /** Without taking the probe slot: would allow() say yes? */
  wouldAllow(now: number): boolean {
    return this.openUntil === 0 || (now >= this.openUntil && !this.probing)
  }
  success(): void {
    this.failures = 0
    if (this.openUntil !== 0) {
      this.openUntil = 0
      this.probing = false
      this.openMs = this.s.openMs
    }
  }
  failure(now: number): void {
    this.failures++
    if (this.probing) {
      this.probing = false
      this.openMs = Math.min(this.s.maxOpenMs, this.openMs * 2)
      this.openUntil = now + this.openMs
    } else if (this.openUntil === 0 && this.failures >= this.s.failureThreshold) this.openUntil = now + this.openMs
  }
}
