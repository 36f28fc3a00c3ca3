/**
 * Admission through Redis for the Redis limit store (src/credits/limits/redis/store.ts): the lease script's arguments,
 * the lease size asked for, and one lease request (hand back the leftover, reserve the price and a lease beyond it).
 */
import type { KeyLimits, LimitRejection, LimitStore } from '../memory.ts'
import type { createLeaseBook, KeyState } from './leases.ts'
import { ttlFor } from './leases.ts'
import { CODES, RESET, type LeaseReply } from './scripts.ts'
import type { LeaseSyncState } from './sync.ts'

const MAX_LEASE_SCALE = 64

/** What admission through Redis needs beyond the shared state (given once per store). */
export interface LeaseAdmissionDeps {
  /** The store itself: a request answered "Redis lost its data" is admitted again after the reset. */
  store: LimitStore
  leaseCredits: number
  afterReset: ReturnType<typeof createLeaseBook>['afterReset']
  /** Admits under the insurance limit (Redis unreachable). */
  admitOffline: (r: KeyLimits, credits: number, nowMs: number, k: KeyState) => LimitRejection | null
}

/** One lease request's own arguments to the lease script (./scripts.ts, LEASE), beside the key's limits and keys. */
interface LeaseAsk {
  /** Credits to admit now. */
  need: number
  /** The lease asked for: `need` and what the key may hold beyond it (wantFor). */
  want: number
  /** The leftover of the replica's last lease, handed back first. */
  back: number
  nowMs: number
  /** An input-error fee or an event: what is left of the day up to `need`, without the bucket checks. */
  capped: boolean
}

export function createLeaseAdmission(s: LeaseSyncState, d: LeaseAdmissionDeps) {
  const {
    client,
    prefix: p,
    replicaId,
    leaseRecord,
    epochKey,
    heartbeat,
    heartbeatMs,
    field,
    dayKey,
    goDown,
    leaseSyncMs,
  } = s
  const { store, leaseCredits, afterReset, admitOffline } = d
  const leaseMode = leaseCredits > 0
  const bucketKey = (kind: 'a' | 'k', id: string) => `${p}b:${kind}:${id}`

  const leaseArgs = (r: KeyLimits, k: KeyState, { need, want, back, nowMs, capped }: LeaseAsk) =>
    [
      dayKey(k.day, 'a', r.accountId),
      dayKey(k.day, 'k', r.keyId),
      bucketKey('a', r.accountId),
      bucketKey('k', r.keyId),
      leaseRecord,
      heartbeat(replicaId),
      epochKey,
      need,
      want,
      r.accountCreditsPerDay,
      r.keyCreditsPerDay ?? -1,
      r.accountCreditsPerSecond,
      r.keyCreditsPerSecond ?? -1,
      nowMs,
      back,
      ttlFor(k.day, nowMs),
      capped ? '1' : '0',
      field(k.day, r.accountId, r.keyId),
      heartbeatMs,
    ] as const

  /**
   * The lease asked for: `leaseCredits`, scaled up (x2, up to x64) while a key uses its leases up within 100 ms and
   * down again when it slows, plus what the callers waiting for it need; never more than a quarter of the smallest
   * credits/s limit. (The script caps it further by what is left of each balance.)
   */
  const wantFor = (r: KeyLimits, k: KeyState, need: number, nowMs: number) => {
    if (!leaseMode) return need
    const sinceMs = nowMs - k.leasedAtMs
    if (sinceMs < 100) k.scale = Math.min(MAX_LEASE_SCALE, k.scale * 2)
    else if (sinceMs > leaseSyncMs) k.scale = Math.max(1, k.scale / 2)
    k.leasedAtMs = nowMs
    const perSecond =
      r.keyCreditsPerSecond === null
        ? r.accountCreditsPerSecond
        : Math.min(r.accountCreditsPerSecond, r.keyCreditsPerSecond)
    return Math.max(need, Math.min(leaseCredits * k.scale + need * k.waiting, Math.floor(perSecond / 4)))
  }

  const remember = (k: KeyState, reply: LeaseReply) => {
    k.account.knownUsed = reply[2]
    k.knownKeyUsed = reply[3]
  }

  /** Asks Redis: hands back the leftover, reserves `need` (and a lease beyond it). */
  const admitRemote = (r: KeyLimits, credits: number, nowMs: number, k: KeyState): Promise<LimitRejection | null> => {
    const back = k.credits
    k.credits = 0
    k.account.leased -= back
    k.sent++
    const lease = { need: credits, want: wantFor(r, k, credits, nowMs), back, nowMs, capped: false }
    const ask = client.cgLease(...leaseArgs(r, k, lease)).then(
      (reply): LimitRejection | null | Promise<LimitRejection | null> => {
        if (reply[0] === RESET) {
          // The retry must not wait for this very request.
          if (k.inflight === ask) k.inflight = undefined
          return afterReset(
            () => store.admit(r, credits, nowMs),
            () => admitOffline(r, credits, nowMs, k),
          )
        }
        remember(k, reply)
        if (reply[0] !== 0) return CODES[reply[0]] ?? 'DAILY_CREDITS_EXHAUSTED'
        const extra = reply[1] - credits
        k.credits += extra
        k.account.leased += extra
        k.unreported += credits
        k.lastUseMs = nowMs
        return null
      },
      (err: Error) => {
        // Whether Redis ran the script is unknown: the next sync compares the lease record with what this replica
        // holds and hands back the difference (a give-back not applied, or a lease granted but never learnt).
        k.uncertain = true
        goDown(err.message)
        return admitOffline(r, credits, nowMs, k)
      },
    )
    if (leaseMode) {
      k.inflight = ask
      void ask.finally(() => {
        if (k.inflight === ask) k.inflight = undefined
      })
    }
    return ask
  }

  return { leaseArgs, remember, admitRemote }
}
