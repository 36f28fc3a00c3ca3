/**
 * What the Redis limit store (src/credits/limits/redis/store.ts) does without Redis: admission under the per-replica
 * insurance limits (`redis.insuranceShare` of each limit, daily ones never beyond what was last known to be left),
 * and the seeding of the day counters from the usage ledger, deferred until Redis is reached when it was not at
 * start (a replica started during an outage, docs/scale-out.md).
 */
import { randomBytes } from 'node:crypto'
import { createMemoryLimitStore, utcDay, type KeyLimits, type LimitRejection, type SyncLimitStore } from '../memory.ts'
import { ttlFor, type AccountState, type KeyState } from './leases.ts'
import type { ScriptedRedis } from './scripts.ts'

/**
 * The insurance limits: an in-memory store started afresh at each outage, admitting each key under its limits scaled
 * by `share`. What was left of a daily balance is what Redis last said (or, before any exchange, the usage ledger at
 * start: a replica started during an outage does not grant a balance the ledger shows spent).
 */
export function createInsurance(o: {
  share: number
  accounts: Map<string, AccountState>
  keys: Map<string, KeyState>
  account: (id: string, day: number) => AccountState
}) {
  let offline: SyncLimitStore = createMemoryLimitStore()
  let scaled = new WeakMap<KeyLimits, KeyLimits>()
  /** Each key's usage today according to the ledger at start. */
  const ledgerKeys = new Map<string, { day: number; used: number }>()

  const insured = (r: KeyLimits): KeyLimits => {
    let s = scaled.get(r)
    if (s === undefined) {
      const share = o.share
      const acc = o.accounts.get(r.accountId)
      const k = o.keys.get(r.keyId)
      const base = ledgerKeys.get(r.keyId)
      const keyKnown = Math.max(k?.knownKeyUsed ?? 0, base && k && base.day === k.day ? base.used : 0)
      const accLeft = Math.max(0, r.accountCreditsPerDay - (acc?.knownUsed ?? 0))
      const keyLeft = r.keyCreditsPerDay === null ? null : Math.max(0, r.keyCreditsPerDay - keyKnown)
      s = {
        accountId: r.accountId,
        keyId: r.keyId,
        accountCreditsPerDay: Math.min(accLeft, Math.floor(r.accountCreditsPerDay * share)),
        accountCreditsPerSecond: Math.max(1, Math.floor(r.accountCreditsPerSecond * share)),
        keyCreditsPerDay: keyLeft === null ? null : Math.min(keyLeft, Math.floor(r.keyCreditsPerDay! * share)),
        keyCreditsPerSecond:
          r.keyCreditsPerSecond === null ? null : Math.max(1, Math.floor(r.keyCreditsPerSecond * share)),
      }
      scaled.set(r, s)
    }
    return s
  }

  return {
    /** A new outage: insurance counts start from zero; the daily share is of what was last known to be left. */
    restart() {
      offline = createMemoryLimitStore()
      scaled = new WeakMap()
    },
    admit: (r: KeyLimits, credits: number, nowMs: number): LimitRejection | null =>
      offline.admit(insured(r), credits, nowMs),
    chargeWithin: (r: KeyLimits, credits: number, nowMs: number): number =>
      offline.chargeWithin(insured(r), credits, nowMs),
    adjust: (accountId: string, keyId: string, delta: number, nowMs: number) =>
      offline.adjust(accountId, keyId, delta, nowMs),
    /** The ledger's usage today (read at start): the most an account or key is known to have used until Redis says. */
    baseline(accountUsed: Map<string, number>, keyUsed: Map<string, number>, nowMs: number) {
      const day = utcDay(nowMs)
      for (const [id, used] of accountUsed) {
        const a = o.account(id, day)
        a.knownUsed = Math.max(a.knownUsed, used)
      }
      for (const [id, used] of keyUsed) ledgerKeys.set(id, { day, used })
    },
  }
}

/**
 * Seeding the day counters from the ledger (`SET NX`: only where Redis has none, so a running Redis is left as it
 * is). When Redis cannot be reached at start the seed is kept and written by the first sync that reaches Redis,
 * before the usage charged meanwhile: the same order as a replica that found Redis at start.
 */
export function createSeeding(s: {
  client: ScriptedRedis
  epochKey: string
  dayKey: (day: number, kind: 'a' | 'k', id: string) => string
  /** Told when a seed could not be written (it is kept and retried). */
  onDeferred: (detail: string) => void
}) {
  let deferred: { accounts: Map<string, number>; keys: Map<string, number>; nowMs: number } | undefined

  /** Writes the seed now (rejects if Redis does not answer). */
  async function write(accountUsed: Map<string, number>, keyUsed: Map<string, number>, nowMs: number): Promise<void> {
    const day = utcDay(nowMs)
    const ttl = ttlFor(day, nowMs)
    const batch = s.client.multi()
    for (const [id, used] of accountUsed) batch.set(s.dayKey(day, 'a', id), String(used), 'EX', ttl, 'NX')
    for (const [id, used] of keyUsed) batch.set(s.dayKey(day, 'k', id), String(used), 'EX', ttl, 'NX')
    batch.set(s.epochKey, randomBytes(8).toString('hex'), 'NX')
    await batch.exec()
    deferred = undefined
  }

  return {
    write,
    /** The store's seed: written now, or kept for the first sync that reaches Redis. */
    async seed(accountUsed: Map<string, number>, keyUsed: Map<string, number>, nowMs: number): Promise<void> {
      try {
        await write(accountUsed, keyUsed, nowMs)
      } catch (err) {
        deferred = { accounts: accountUsed, keys: keyUsed, nowMs }
        s.onDeferred(`seeding the day counters failed: ${(err as Error).message}`)
      }
    },
    /** Writes a seed kept while Redis was unreachable (rejects if Redis does not answer; kept then). */
    async catchUp(): Promise<void> {
      if (deferred) await write(deferred.accounts, deferred.keys, deferred.nowMs)
    },
  }
}
