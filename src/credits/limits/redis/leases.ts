/**
 * What the Redis limit store (src/credits/limits/redis/store.ts) keeps per account and key on this replica, and its
 * lease
 * bookkeeping in Redis: checking unanswered lease scripts against the lease record, starting over when Redis lost
 * its data, adopting a reaping by another replica, and reaping the leases of replicas that are gone.
 */
import { MS_PER_DAY, type KeyLimits, type LimitStore } from '../memory.ts'
import type { ScriptedRedis } from './scripts.ts'

/** What this replica knows of one account today. */
export interface AccountState {
  day: number
  /** Redis's total at the last exchange (charged by every replica, plus unused leases). */
  knownUsed: number
  /** Unused lease credits this replica holds for the account's keys. */
  leased: number
  /** Charged here while Redis was unreachable, not yet written to Redis. */
  offline: number
}

/** One key's lease on this replica. */
export interface KeyState {
  accountId: string
  day: number
  /** Leased and not spent: counted in Redis for `day`. */
  credits: number
  lastUseMs: number
  limits: KeyLimits
  account: AccountState
  knownKeyUsed: number
  /** Spent from the lease (net of refunds) since the last report to the lease record. */
  unreported: number
  /** A lease request in flight: callers wait for it rather than each asking Redis (lease mode only). */
  inflight: Promise<unknown> | undefined
  /** Callers waiting for the lease in flight. */
  waiting: number
  /** Lease size multiplier (1 to MAX_LEASE_SCALE, admit.ts), and when the last lease was asked for. */
  scale: number
  leasedAtMs: number
  /** Lease scripts sent (a generation) and whether one's answer was lost (so the lease record is checked). */
  sent: number
  uncertain: boolean
}

/** Spends from this replica's lease: no round trip (admission and fees alike). */
export function spendLease(k: KeyState, credits: number, nowMs: number): void {
  k.credits -= credits
  k.account.leased -= credits
  k.unreported += credits
  k.lastUseMs = nowMs
}

/** Usage to write to Redis once: charged offline, or a correction beyond a lease. */
export interface Pending {
  day: number
  accountId: string
  keyId: string
  credits: number
  /** A lease handed back (also taken off the lease record). */
  lease: boolean
  /** Set when a write was attempted, so a retry reuses it. */
  marker?: string
}

/** Seconds a day counter is kept: to the end of the next day (a late correction still finds it). */
export const ttlFor = (day: number, nowMs: number) => Math.max(60, Math.ceil(((day + 2) * MS_PER_DAY - nowMs) / 1000))

/**
 * This replica's account and key states, rolled over at 00:00 UTC, and the usage to write to Redis (built once per
 * store, on the store's maps).
 */
export function createReplicaState(
  accounts: Map<string, AccountState>,
  keys: Map<string, KeyState>,
  pending: Map<string, Pending>,
  field: (day: number, accountId: string, keyId: string) => string,
) {
  const account = (id: string, day: number): AccountState => {
    let a = accounts.get(id)
    if (a === undefined) accounts.set(id, (a = { day, knownUsed: 0, leased: 0, offline: 0 }))
    else if (a.day !== day) {
      // Leases of the day before are no longer this day's: each key hands its own back as it rolls over.
      a.day = day
      a.knownUsed = 0
      a.leased = 0
      a.offline = 0
    }
    return a
  }

  const keyState = (r: KeyLimits, day: number): KeyState => {
    let k = keys.get(r.keyId)
    if (k === undefined) {
      const acc = account(r.accountId, day)
      keys.set(
        r.keyId,
        (k = {
          accountId: r.accountId,
          day,
          credits: 0,
          lastUseMs: 0,
          limits: r,
          account: acc,
          knownKeyUsed: 0,
          unreported: 0,
          inflight: undefined,
          waiting: 0,
          scale: 1,
          leasedAtMs: 0,
          sent: 0,
          uncertain: false,
        }),
      )
    } else if (k.day !== day) {
      // 00:00 UTC: yesterday's leftover goes back to yesterday's counters (with the next sync), today starts empty.
      if (k.credits > 0) addPending(k.day, k.accountId, r.keyId, -k.credits, true)
      if (k.unreported !== 0) reports.push({ field: field(k.day, k.accountId, r.keyId), spent: k.unreported })
      if (k.account.day === k.day) k.account.leased -= k.credits
      k.credits = 0
      k.unreported = 0
      k.day = day
      k.knownKeyUsed = 0
      k.account = account(r.accountId, day)
    }
    k.limits = r
    return k
  }

  /** Spends of earlier days not yet reported to the lease record. */
  const reports: { field: string; spent: number }[] = []
  const addPending = (day: number, accountId: string, keyId: string, credits: number, lease = false) => {
    if (credits === 0) return
    const id = `${day}\0${keyId}\0${lease ? 1 : 0}`
    const e = pending.get(id)
    if (e) e.credits += credits
    else pending.set(id, { day, accountId, keyId, credits, lease })
  }

  return { account, keyState, reports, addPending }
}

/** What the lease bookkeeping shares with the store (built once per store). */
export interface LeaseBookState {
  client: ScriptedRedis
  prefix: string
  replicaId: string
  leaseRecord: string
  keys: Map<string, KeyState>
  pending: Map<string, Pending>
  retrying: Pending[]
  /** Spends of earlier days not yet reported to the lease record. */
  reports: { field: string; spent: number }[]
  field: (day: number, accountId: string, keyId: string) => string
  heartbeat: (id: string) => string
  tombstone: (id: string) => string
  addPending: (day: number, accountId: string, keyId: string, credits: number, lease?: boolean) => void
  goDown: (detail: string) => void
  clockNow: () => number
  reseed?: () => Promise<{ accounts: Map<string, number>; keys: Map<string, number> }>
  onReset?: () => void
  /** The store itself, to seed the counters again. */
  store: Pick<LimitStore, 'seed'>
}

export function createLeaseBook(s: LeaseBookState) {
  const {
    client,
    prefix: p,
    replicaId,
    leaseRecord,
    keys,
    pending,
    retrying,
    reports,
    field,
    heartbeat,
    tombstone,
    addPending,
    goDown,
    clockNow,
    store,
  } = s
  let resetting: Promise<void> | undefined

  /**
   * Keys whose lease script went unanswered: the lease record says what Redis counts as held by this replica; what
   * it counts beyond what the replica holds (leftover + spent since the last report) is handed back. Skipped for a
   * key while another of its scripts could run between the read and the answer (checked by generation).
   */
  async function reconcile(): Promise<void> {
    const checks: { keyId: string; k: KeyState; day: number; sent: number }[] = []
    for (const [keyId, k] of keys)
      if (k.uncertain && k.inflight === undefined) checks.push({ keyId, k, day: k.day, sent: k.sent })
    if (checks.length === 0) return
    const held = await client.hmget(leaseRecord, ...checks.map((c) => field(c.day, c.k.accountId, c.keyId)))
    checks.forEach((c, i) => {
      const k = c.k
      if (k.sent !== c.sent || k.day !== c.day || !k.uncertain) return
      k.uncertain = false
      const extra = Number(held[i] ?? 0) - (k.credits + k.unreported)
      if (extra > 0) addPending(k.day, k.accountId, c.keyId, -extra, true)
    })
  }

  /**
   * Redis lost its data (restarted without persistence): the day counters are seeded again from the usage ledger
   * (which every replica writes), where no replica has done it yet; local leases, unreported spending and pending
   * writes are dropped, since the ledger is now the count. One reset at a time per replica.
   */
  function reset(): Promise<void> {
    resetting ??= (async () => {
      for (const k of keys.values()) {
        if (k.account.day === k.day) k.account.leased -= k.credits
        k.credits = 0
        k.unreported = 0
        k.uncertain = false
      }
      pending.clear()
      retrying.length = 0
      reports.length = 0
      const nowMs = clockNow()
      const today = s.reseed
        ? await s.reseed()
        : { accounts: new Map<string, number>(), keys: new Map<string, number>() }
      await store.seed(today.accounts, today.keys, nowMs)
      s.onReset?.()
    })().finally(() => (resetting = undefined))
    return resetting
  }

  /** After a reset, runs the admission again; if the reset failed (ledger unreadable), the insurance limit. */
  function afterReset<T>(retry: () => T | Promise<T>, fallback: () => T): Promise<T> {
    return reset().then(retry, (err: Error) => {
      goDown(`reseeding from the ledger failed: ${err.message}`)
      return fallback()
    })
  }

  /**
   * Another replica found this one's heartbeat gone (a long outage) and returned everything its lease record held:
   * local leases are no longer counted (dropped), and what was spent since the last report is counted again.
   */
  function adoptReaped(): void {
    for (const [keyId, k] of keys) {
      if (k.account.day === k.day) k.account.leased -= k.credits
      k.credits = 0
      if (k.unreported !== 0) addPending(k.day, k.accountId, keyId, k.unreported)
      k.unreported = 0
      k.uncertain = false
    }
    for (const r of reports.splice(0)) {
      const [d, accountId, keyId] = r.field.split('|') as [string, string, string]
      addPending(Number(d), accountId, keyId, r.spent)
    }
    // Handbacks not yet written were part of what the record held.
    for (const [id, e] of pending) if (e.lease) pending.delete(id)
    for (let i = retrying.length - 1; i >= 0; i--) if (retrying[i]!.lease) retrying.splice(i, 1)
    void client.del(tombstone(replicaId)).catch(() => undefined)
  }

  /** Returns the leases of replicas whose heartbeat is gone (killed without a stop). */
  async function reapGone(): Promise<void> {
    let cursor = '0'
    do {
      const [next, records] = await client.scan(cursor, 'MATCH', `${p}lease:*`, 'COUNT', 200)
      cursor = next
      for (const record of records) {
        const id = record.slice(`${p}lease:`.length)
        if (id !== replicaId) await client.cgReap(record, heartbeat(id), tombstone(id), p)
      }
    } while (cursor !== '0')
  }

  return { reconcile, reset, afterReset, adoptReaped, reapGone }
}
