/**
 * The limit store shared by every replica, on Redis (config `redis.*`, docs/scale-out.md).
 *
 * Exact across replicas: Redis holds each day's charged total per account and per key, and each credits/s bucket;
 * one Lua script checks every limit and reserves atomically. A replica does not ask Redis on every call: it takes
 * a *lease* (`redis.leaseCredits` at once, counted in Redis as charged) and spends it locally, synchronously;
 * refunds go back into the lease, and what a key leaves unused is handed back to Redis (`redis.leaseSyncMs`). The
 * total Redis counts is therefore what every replica charged plus what they hold unused, never less, and a lease
 * is only granted within the limits — so the charged total can never pass a balance. A lease never takes more than
 * a quarter of what is left of a balance beyond the call's own price (nor more than the bucket holds), and a replica
 * that cannot cover a call hands its leftover back in the same script: near the end of a balance, admission is
 * exact per call. (The idea is web3-proxy's deferred rate limiter, made exact by reserving before spending.)
 *
 * Redis unreachable (`commandTimeoutMs`, a closed connection, or not reached yet at start): leases already held
 * are still spent; beyond them each replica admits on its own, in memory, up to `redis.insuranceShare` of each limit
 * (daily: of what it last knew was left; offline.ts). What it charges meanwhile is written to Redis
 * once Redis answers again, under a unique id per write, so a retried write is never counted twice.
 *
 * A replica killed without a stop (SIGKILL) cannot hand its leases back. Each replica therefore keeps, in Redis,
 * what it holds (`lease:<replica>`: leased, minus handed back, minus spent as reported at each sync) and a
 * heartbeat (`alive:<replica>`, 5 sync intervals). Any replica finding a lease record without a heartbeat returns
 * its credits to the day counters and leaves a tombstone; a replica that was only cut off and finds its own
 * tombstone drops its local leases (already returned) and re-counts what it spent since its last report. What
 * a killed replica spent after its last sync is returned with the rest: like the usage its ledger had not yet
 * written (`gateway.usageFlushMs`), it is not counted.
 */
import { randomBytes } from 'node:crypto'
import type { RedisConnection } from '../../../redis/connection.ts'
import { utcDay, type KeyLimits, type LimitRejection, type LimitStore } from '../memory.ts'
import {
  createLeaseBook,
  createReplicaState,
  spendLease,
  type AccountState,
  type KeyState,
  type Pending,
} from './leases.ts'
import { createLeaseAdmission } from './admit.ts'
import { createInsurance, createSeeding } from './offline.ts'
import { createLeaseSync, type LeaseSyncState } from './sync.ts'
import { APPLY, LEASE, REAP, RESET, type ScriptedRedis } from './scripts.ts'

export interface RedisLimitStoreOptions {
  connection: RedisConnection
  /** Credits leased at once (0: exactly each call's price, one round trip per call). */
  leaseCredits: number
  leaseSyncMs: number
  /** Share of each limit one replica may serve while Redis is unreachable. */
  insuranceShare: number
  /** Told when Redis becomes unreachable (true) and when the counters have caught up (false). */
  onOutage?: (down: boolean, detail: string) => void
  /** For the sync timer; default Date.now. */
  now?: () => number
  /** Today's usage from the ledger, to seed Redis again if it lost its data (restarted without persistence). */
  reseed?: () => Promise<{ accounts: Map<string, number>; keys: Map<string, number> }>
  /** Told when Redis was found without its data and the counters were seeded again. */
  onReset?: () => void
}

export interface RedisLimitStore extends LimitStore {
  /** True while Redis is unreachable and this replica admits under its insurance limit. */
  readonly degraded: boolean
  /** This replica's id in Redis (its lease record and heartbeat). */
  readonly replicaId: string
  start(): void
  /** Hands back unused leases and writes pending usage (best effort), then stops the timer. */
  stop(): Promise<void>
  /** One sync now: hand back idle leases, write pending usage; resolves true when Redis answered. */
  sync(): Promise<boolean>
}

export function createRedisLimitStore(opts: RedisLimitStoreOptions): RedisLimitStore {
  const client = opts.connection.client as ScriptedRedis
  const p = opts.connection.prefix
  if (typeof client.cgLease !== 'function') {
    client.defineCommand('cgLease', { numberOfKeys: 7, lua: LEASE })
    client.defineCommand('cgApply', { numberOfKeys: 5, lua: APPLY })
    client.defineCommand('cgReap', { numberOfKeys: 3, lua: REAP })
  }
  const replicaId = randomBytes(8).toString('hex')
  const leaseRecord = `${p}lease:${replicaId}`
  const heartbeat = (id: string) => `${p}alive:${id}`
  const tombstone = (id: string) => `${p}reaped:${id}`
  const heartbeatMs = Math.max(3000, opts.leaseSyncMs * 5)
  const field = (day: number, accountId: string, keyId: string) => `${day}|${accountId}|${keyId}`
  // Set when counters are first seeded; a Redis that lost its data (restarted without persistence) has none.
  const epochKey = `${p}epoch`
  const clockNow = opts.now ?? Date.now
  const accounts = new Map<string, AccountState>()
  const keys = new Map<string, KeyState>()
  const pending = new Map<string, Pending>()
  const retrying: Pending[] = []
  // Not reached yet at start: the replica starts in insurance mode and catches up with the first sync that reaches it.
  let down = !opts.connection.isReady()
  let stopped = false // stop() ran: the connection closing next (the app's stop list) is no outage to report
  let timer: NodeJS.Timeout | undefined
  let syncing: Promise<boolean> | undefined

  const dayKey = (day: number, kind: 'a' | 'k', id: string) => `${p}d:${day}:${kind}:${id}`

  const { account, keyState, reports, addPending } = createReplicaState(accounts, keys, pending, field)
  const offline = createInsurance({ share: opts.insuranceShare, accounts, keys, account })

  const goDown = (detail: string) => {
    if (down) return
    down = true
    offline.restart()
    opts.onOutage?.(true, detail)
  }
  const seeding = createSeeding({ client, epochKey, dayKey, onDeferred: goDown })

  const admitOffline = (r: KeyLimits, credits: number, nowMs: number, k: KeyState): LimitRejection | null => {
    const code = offline.admit(r, credits, nowMs)
    if (code === null) {
      addPending(k.day, r.accountId, r.keyId, credits)
      k.account.offline += credits
    }
    return code
  }

  const store: RedisLimitStore = {
    replicaId,
    get degraded() {
      return down
    },

    admit(r, credits, nowMs) {
      const day = utcDay(nowMs)
      const k = keyState(r, day)
      if (k.credits >= credits) {
        // The common case: spent from this replica's lease, no round trip.
        spendLease(k, credits, nowMs)
        return null
      }
      if (down) return admitOffline(r, credits, nowMs, k)
      if (k.inflight !== undefined) {
        k.waiting++
        return k.inflight.then(() => {
          k.waiting--
          return store.admit(r, credits, nowMs)
        })
      }
      return admitRemote(r, credits, nowMs, k)
    },

    adjust(accountId, keyId, delta, nowMs) {
      if (delta === 0) return
      const day = utcDay(nowMs)
      const k = keys.get(keyId)
      if (down) {
        offline.adjust(accountId, keyId, delta, nowMs)
        addPending(day, accountId, keyId, delta)
        account(accountId, day).offline += delta
        return
      }
      if (k === undefined || k.day !== day) {
        addPending(day, accountId, keyId, delta)
        return
      }
      // A refund goes back into the lease (the next call spends it, or the sync hands it back); an extra charge
      // comes out of it, the rest is written with the next sync.
      const fromLease = delta < 0 ? delta : Math.min(delta, k.credits)
      k.credits -= fromLease
      k.account.leased -= fromLease
      k.unreported += fromLease
      if (fromLease !== delta) addPending(day, accountId, keyId, delta - fromLease)
    },

    chargeWithin(r, credits, nowMs) {
      const day = utcDay(nowMs)
      const k = keyState(r, day)
      if (k.credits >= credits) {
        spendLease(k, credits, nowMs)
        return credits
      }
      if (down) {
        const charged = offline.chargeWithin(r, credits, nowMs)
        addPending(day, r.accountId, r.keyId, charged)
        k.account.offline += charged
        return charged
      }
      const back = k.credits
      k.credits = 0
      k.account.leased -= back
      const chargeOffline = () => {
        const charged = offline.chargeWithin(r, credits, nowMs)
        addPending(day, r.accountId, r.keyId, charged)
        k.account.offline += charged
        return charged
      }
      k.sent++
      const lease = { need: credits, want: credits, back, nowMs, capped: true }
      return client.cgLease(...leaseArgs(r, k, lease)).then(
        (reply): number | Promise<number> => {
          if (reply[0] === RESET) return afterReset(() => store.chargeWithin(r, credits, nowMs), chargeOffline)
          remember(k, reply)
          return reply[1]
        },
        (err: Error) => {
          k.uncertain = true
          goDown(err.message)
          return chargeOffline()
        },
      )
    },

    usedToday(accountId, nowMs) {
      const a = accounts.get(accountId)
      return a && a.day === utcDay(nowMs) ? Math.max(0, a.knownUsed - a.leased + a.offline) : 0
    },

    keyUsedToday(keyId, nowMs) {
      const k = keys.get(keyId)
      return k && k.day === utcDay(nowMs) ? Math.max(0, k.knownKeyUsed - k.credits) : 0
    },

    seed(accountUsed, keyUsed, nowMs) {
      // Only where Redis has no count for today (a fresh or flushed Redis): the first replica to start seeds it.
      // Redis not reached: the first sync that reaches it seeds; meanwhile the ledger bounds the insurance limits.
      offline.baseline(accountUsed, keyUsed, nowMs)
      return seeding.seed(accountUsed, keyUsed, nowMs)
    },

    sync() {
      syncing ??= runSync().finally(() => (syncing = undefined))
      return syncing
    },
    start() {
      timer = setInterval(() => void store.sync(), opts.leaseSyncMs)
      timer.unref()
    },

    async stop() {
      stopped = true
      if (timer) clearInterval(timer)
      timer = undefined
      // Every lease is handed back: the next replica (or this one after a restart) starts from exact counters.
      for (const k of keys.values()) k.lastUseMs = -Infinity
      await syncing
      // Everything handed back and reported: the lease record holds nothing; it and the heartbeat can go.
      if (await store.sync()) await client.del(leaseRecord, heartbeat(replicaId)).catch(() => undefined)
    },
  }

  /** Redis answered and every pending write is in: the outage is over. */
  const caughtUp = (writes: number) => {
    if (down) {
      down = false
      // What was charged offline is now in Redis's count (knownUsed).
      for (const a of accounts.values()) a.offline = 0
      offline.restart()
      opts.onOutage?.(false, `caught up: ${writes} pending usage writes applied`)
    }
  }

  // Shared by the lease bookkeeping, the sync and admission through Redis (built once per store).
  const shared: LeaseSyncState = {
    client,
    prefix: p,
    replicaId,
    leaseRecord,
    epochKey,
    heartbeat,
    heartbeatMs,
    tombstone,
    field,
    dayKey,
    clockNow,
    accounts,
    keys,
    pending,
    retrying,
    reports,
    addPending,
    goDown,
    caughtUp,
    store: { seed: seeding.write },
    connection: opts.connection,
    leaseSyncMs: opts.leaseSyncMs,
    reseed: opts.reseed,
    onReset: opts.onReset,
    seedDeferred: seeding.catchUp,
  }
  const book = createLeaseBook(shared)
  const { afterReset } = book
  const runSync = createLeaseSync(shared, book)
  const { leaseArgs, remember, admitRemote } = createLeaseAdmission(shared, {
    store,
    leaseCredits: opts.leaseCredits,
    afterReset,
    admitOffline,
  })

  opts.connection.onStateChange((ready) => {
    if (stopped) return
    if (!ready) goDown('connection closed')
    else if (down) void store.sync()
  })
  return store
}
