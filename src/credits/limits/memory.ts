/**
 * Hot counters: daily credit balances (per account, and per key when the key has its own daily limit) and
 * throughput token buckets (credits per second, per account and per key). Two stores implement it: the in-memory
 * store below (one process, the embedded default) and the Redis store (redis/store.ts, several replicas).
 *
 * Admission reserves the full cost up front so concurrent requests cannot overshoot a limit; `adjust` settles the
 * difference once the answer is known (free 5xx, 5-credit input errors, ...).
 *
 * `admit` and `chargeWithin` answer synchronously when they can (always in memory; from a local lease with Redis)
 * and with a promise only when they must ask Redis: callers test for a promise instead of awaiting every call, so
 * the embedded default keeps its synchronous path.
 */
import type { LimitCode } from '../../errors/registry.ts'
import { TokenBucket } from '../../shared/token-bucket.ts'
import type { MaybePromise } from '../../shared/types.ts'

/** Why a limit refused: a code of the error registry (src/errors/registry.ts); the edge writes Infura's bodies. */
export type LimitRejection = LimitCode

/** A key's limits with its account's plan: built once per key when the key snapshot loads, not per request. */
export interface KeyLimits {
  accountId: string
  keyId: string
  accountCreditsPerDay: number
  accountCreditsPerSecond: number
  keyCreditsPerDay: number | null
  keyCreditsPerSecond: number | null
}

export interface LimitStore {
  /** Checks every limit and, only if all pass, reserves `credits`. */
  admit(limits: KeyLimits, credits: number, nowMs: number): MaybePromise<LimitRejection | null>
  /** Adds (or with a negative delta, refunds) credits after the fact, without checks. */
  adjust(accountId: string, keyId: string, delta: number, nowMs: number): void
  /**
   * Charges up to `credits` without the throughput checks, but never beyond what is left of today's balances
   * (account, and key when it has a daily limit): returns what was charged. Input-error fees use it.
   */
  chargeWithin(limits: KeyLimits, credits: number, nowMs: number): MaybePromise<number>
  /** Today's charged total as this process knows it (a shared store: as of its last exchange with Redis). */
  usedToday(accountId: string, nowMs: number): number
  keyUsedToday(keyId: string, nowMs: number): number
  /** Seeds today's usage at start (from the usage ledger), so a restart keeps the balance. */
  seed(accountUsed: Map<string, number>, keyUsed: Map<string, number>, nowMs: number): MaybePromise<void>
}

/** The in-memory store's own type: every answer synchronous (tests and the insurance limit rely on it). */
export interface SyncLimitStore extends LimitStore {
  admit(limits: KeyLimits, credits: number, nowMs: number): LimitRejection | null
  chargeWithin(limits: KeyLimits, credits: number, nowMs: number): number
  seed(accountUsed: Map<string, number>, keyUsed: Map<string, number>, nowMs: number): void
}

export const MS_PER_DAY = 86_400_000
export const utcDay = (nowMs: number) => Math.floor(nowMs / MS_PER_DAY)

interface Daily {
  day: number
  used: number
}

export function createMemoryLimitStore(): SyncLimitStore {
  const accountDaily = new Map<string, Daily>()
  const keyDaily = new Map<string, Daily>()
  const accountBuckets = new Map<string, TokenBucket>()
  const keyBuckets = new Map<string, TokenBucket>()

  const daily = (map: Map<string, Daily>, id: string, day: number): Daily => {
    let d = map.get(id)
    if (d === undefined) map.set(id, (d = { day, used: 0 }))
    else if (d.day !== day) {
      // 00:00 UTC: a new day starts with a full balance (Infura resets every day at 00:00 UTC).
      d.day = day
      d.used = 0
    }
    return d
  }

  // Token bucket holding at most one second of throughput. A call costing more than the whole bucket is still
  // admitted when the bucket is full, otherwise a 300-credit method could never run on a 200 credits/s key.
  const refill = (map: Map<string, TokenBucket>, id: string, perSecond: number, nowMs: number): TokenBucket => {
    let b = map.get(id)
    if (b === undefined) map.set(id, (b = new TokenBucket(perSecond, perSecond, nowMs)))
    else {
      // The key's plan may have changed since the last call: its current rate applies.
      b.ratePerSecond = perSecond
      b.burst = perSecond
      b.refill(nowMs)
    }
    return b
  }
  const fits = (b: TokenBucket, credits: number, perSecond: number) => b.has(Math.min(credits, perSecond))

  return {
    admit(r, credits, nowMs) {
      const day = utcDay(nowMs)
      const acc = daily(accountDaily, r.accountId, day)
      if (acc.used + credits > r.accountCreditsPerDay) return 'DAILY_CREDITS_EXHAUSTED'
      let key: Daily | undefined
      if (r.keyCreditsPerDay !== null) {
        key = daily(keyDaily, r.keyId, day)
        if (key.used + credits > r.keyCreditsPerDay) return 'KEY_DAILY_CREDITS_EXHAUSTED'
      }
      const accBucket = refill(accountBuckets, r.accountId, r.accountCreditsPerSecond, nowMs)
      if (!fits(accBucket, credits, r.accountCreditsPerSecond)) return 'ACCOUNT_THROUGHPUT_EXCEEDED'
      let keyBucket: TokenBucket | undefined
      if (r.keyCreditsPerSecond !== null) {
        keyBucket = refill(keyBuckets, r.keyId, r.keyCreditsPerSecond, nowMs)
        if (!fits(keyBucket, credits, r.keyCreditsPerSecond)) return 'KEY_THROUGHPUT_EXCEEDED'
      }
      acc.used += credits
      accBucket.charge(credits)
      if (key) key.used += credits
      else daily(keyDaily, r.keyId, day).used += credits
      keyBucket?.charge(credits)
      return null
    },
    adjust(accountId, keyId, delta, nowMs) {
      if (delta === 0) return
      const day = utcDay(nowMs)
      daily(accountDaily, accountId, day).used += delta
      daily(keyDaily, keyId, day).used += delta
      accountBuckets.get(accountId)?.charge(delta)
      keyBuckets.get(keyId)?.charge(delta)
    },
    chargeWithin(r, credits, nowMs) {
      const day = utcDay(nowMs)
      const acc = daily(accountDaily, r.accountId, day)
      const key = daily(keyDaily, r.keyId, day)
      let charged = Math.min(credits, Math.max(0, r.accountCreditsPerDay - acc.used))
      if (r.keyCreditsPerDay !== null) charged = Math.min(charged, Math.max(0, r.keyCreditsPerDay - key.used))
      acc.used += charged
      key.used += charged
      accountBuckets.get(r.accountId)?.charge(charged)
      keyBuckets.get(r.keyId)?.charge(charged)
      return charged
    },
    usedToday(accountId, nowMs) {
      const d = accountDaily.get(accountId)
      return d && d.day === utcDay(nowMs) ? d.used : 0
    },
    keyUsedToday(keyId, nowMs) {
      const d = keyDaily.get(keyId)
      return d && d.day === utcDay(nowMs) ? d.used : 0
    },
    seed(accountUsed, keyUsed, nowMs) {
      const day = utcDay(nowMs)
      for (const [id, used] of accountUsed) accountDaily.set(id, { day, used })
      for (const [id, used] of keyUsed) keyDaily.set(id, { day, used })
    },
  }
}
