/**
 * The periodic sync of the Redis limit store (src/credits/limits/redis/store.ts): the heartbeat, handing back idle
 * leases,
 * writing pending usage (charged while Redis was unreachable, corrections, handbacks) exactly once, reporting what
 * was spent from leases, and catching up after an outage once everything is written.
 */
import { randomBytes } from 'node:crypto'
import type { RedisConnection } from '../../../redis/connection.ts'
import { MS_PER_DAY, utcDay } from '../memory.ts'
import { ttlFor, type AccountState, type createLeaseBook, type LeaseBookState, type Pending } from './leases.ts'
import { RESET } from './scripts.ts'

/** What the sync shares with the store and its lease bookkeeping (built once per store). */
export interface LeaseSyncState extends LeaseBookState {
  connection: RedisConnection
  accounts: Map<string, AccountState>
  epochKey: string
  heartbeatMs: number
  leaseSyncMs: number
  dayKey: (day: number, kind: 'a' | 'k', id: string) => string
  /** Redis answered and every pending write is in (`writes` this sync): the store leaves an outage, if in one. */
  caughtUp: (writes: number) => void
  /** Writes the day counters' seed if Redis was not reached at start (offline.ts). */
  seedDeferred: () => Promise<void>
}

export function createLeaseSync(s: LeaseSyncState, book: ReturnType<typeof createLeaseBook>) {
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
  } = s
  const { connection, accounts, epochKey, heartbeatMs, leaseSyncMs, dayKey, caughtUp, seedDeferred } = s
  const { reconcile, reset, adoptReaped, reapGone } = book
  let syncs = 0

  /** Hands back idle leases and writes pending usage; brings the store back from an outage when all is written. */
  async function runSync(): Promise<boolean> {
    const nowMs = clockNow()
    const day = utcDay(nowMs)
    if (!connection.isReady()) {
      goDown('connection closed')
      return false
    }
    const idleBefore = nowMs - leaseSyncMs
    let writes: Pending[] = []
    let lost = false
    try {
      const [[, reaped], , [, epoch]] = (await client
        .multi()
        .get(tombstone(replicaId))
        .set(heartbeat(replicaId), '1', 'PX', heartbeatMs)
        .exists(epochKey)
        .exec()) as [[Error | null, string | null], unknown, [Error | null, number]]
      if (epoch === 0) await reset()
      else if (reaped !== null) adoptReaped()
      // Started while Redis was unreachable: seed (where no replica has) before the usage charged meanwhile is added.
      await seedDeferred()
      for (const [keyId, k] of keys) {
        if (k.credits > 0 && k.lastUseMs < idleBefore && k.inflight === undefined) {
          addPending(k.day, k.accountId, keyId, -k.credits, true)
          if (k.account.day === k.day) k.account.leased -= k.credits
          k.credits = 0
        }
        if (k.unreported !== 0) {
          reports.push({ field: field(k.day, k.accountId, keyId), spent: k.unreported })
          k.unreported = 0
        }
        // A key idle for a day is forgotten (its lease was handed back above).
        if (k.credits === 0 && k.day < day && k.lastUseMs < nowMs - MS_PER_DAY) keys.delete(keyId)
      }
      for (const e of pending.values()) if (e.credits !== 0) retrying.push(e)
      pending.clear()
      writes = retrying.splice(0)
      await Promise.all(
        writes.map(async (e) => {
          e.marker ??= randomBytes(12).toString('base64url')
          try {
            const [done, accUsed, keyUsed] = await client.cgApply(
              dayKey(e.day, 'a', e.accountId),
              dayKey(e.day, 'k', e.keyId),
              `${p}applied:${e.marker}`,
              leaseRecord,
              epochKey,
              e.credits,
              ttlFor(e.day, nowMs),
              e.lease ? field(e.day, e.accountId, e.keyId) : '',
            )
            if (done === RESET) {
              lost = true
              return
            }
            const a = accounts.get(e.accountId)
            if (a && a.day === e.day) a.knownUsed = accUsed
            const k = keys.get(e.keyId)
            if (k && k.day === e.day) k.knownKeyUsed = keyUsed
          } catch (err) {
            retrying.push(e)
            throw err
          }
        }),
      )
      if (lost) await reset()
      // What was spent from leases since the last sync: the lease record keeps only what is held.
      const sent = reports.splice(0)
      if (sent.length) {
        const batch = client.multi()
        for (const r of sent) batch.hincrby(leaseRecord, r.field, -r.spent)
        await batch.exec().catch((err: Error) => {
          reports.push(...sent)
          throw err
        })
      }
      await reconcile()
      if (++syncs % 10 === 1) await reapGone()
    } catch (err) {
      goDown((err as Error).message)
      return false
    }
    caughtUp(writes.length)
    return true
  }

  return runSync
}
