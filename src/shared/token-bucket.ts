/**
 * A token bucket: `ratePerSecond` tokens flow in continuously, up to `burst`. Used for credits per second (the
 * in-memory limit store), an upstream node's request budget and the wallet listener's message rate. The caller
 * passes the time (milliseconds), so tests drive it with their own clock and the per-request path reads the
 * clock once.
 *
 * `tokens` may go below zero: charges settled after the fact (refunds, fees) are taken without a check.
 */
export class TokenBucket {
  ratePerSecond: number
  burst: number
  tokens: number
  private atMs: number

  constructor(ratePerSecond: number, burst: number, nowMs: number) {
    this.ratePerSecond = ratePerSecond
    this.burst = burst
    this.tokens = burst
    this.atMs = nowMs
  }

  /** Adds what flowed in since the last refill (time going backwards adds nothing). */
  refill(nowMs: number): this {
    if (nowMs > this.atMs) {
      this.tokens = Math.min(this.burst, this.tokens + ((nowMs - this.atMs) * this.ratePerSecond) / 1000)
      this.atMs = nowMs
    }
    return this
  }

  /** Whether at least `n` tokens are there (after a refill by the caller). */
  has(n: number): boolean {
    return this.tokens >= n
  }

  /** Takes `n` tokens without a check (a refund is a negative `n`). */
  charge(n: number): void {
    this.tokens -= n
  }

  /** Refills, then takes `n` tokens if they are there: false (nothing taken) when they are not. */
  take(n: number, nowMs: number): boolean {
    this.refill(nowMs)
    if (this.tokens < n) return false
    this.tokens -= n
    return true
  }
}
