/**
 * The counting side (src/app/build.ts): the limit store (shared through Redis, or in memory) seeded with today's
 * usage, the usage ledger, /healthz `storage`, the upstream usage writer and the request explorer's recorder. Each
 * registers its stop on the app's stop list as it starts.
 */
import type { Config } from '../../config/schema.ts'
import { createUpstreamUsage } from '../../usage/upstream-usage.ts'
import { createRequestRecorder, type RequestRecorder, type RequestWriter } from '../../usage/requests/recorder.ts'
import { startRequestRetention } from '../../usage/requests/retention.ts'
import { requestWriterFor } from '../../usage/requests/writers.ts'
import { createMemoryLimitStore, type LimitStore } from '../../credits/limits/memory.ts'
import { createRedisLimitStore } from '../../credits/limits/redis/store.ts'
import { createUsageLedger, loadTodayUsage } from '../../usage/ledger.ts'
import { usageWriterFor } from '../../usage/writers.ts'
import type { OpenedDatabase } from '../../db/database.ts'
import { createStorageHealth } from '../../usage/storage-health.ts'
import type { Clock } from '../../gateway/pipeline/types.ts'
import type { NetworkRegistry } from '../../networks/registry.ts'
import type { Logger } from '../../observability/logger.ts'
import type { RedisConnection } from '../../redis/connection.ts'
import type { StopList } from '../stop-list.ts'

export interface UsageWiring {
  config: Config
  database: OpenedDatabase
  networks: NetworkRegistry
  redis: RedisConnection | undefined
  clock: Clock
  logger: Logger
  stops: StopList
  /**
   * Redis answers again and the counters have caught up (after an outage, or the first time when it was away at start).
   */
  onRedisBack?: () => void
  /** The request explorer's writer when not this process's database (AppOptions.requestWriter). */
  requestWriter?: RequestWriter | undefined
}

export async function startUsage(w: UsageWiring) {
  const { config, database, networks, redis, clock, logger, stops } = w
  const rc = config.redis
  const redisLimits = redis
    ? createRedisLimitStore({
        connection: redis,
        leaseCredits: rc.leaseCredits,
        leaseSyncMs: rc.leaseSyncMs,
        insuranceShare: rc.insuranceShare,
        // Redis restarted without its data: today's counts come from the ledger again (every replica writes it).
        reseed: () => loadTodayUsage(database.db, clock.now()),
        onReset: () =>
          logger.warn(
            'Redis had lost its counters (restarted without persistence?): seeded again from the usage ledger',
          ),
        onOutage: (down, detail) => {
          if (down)
            return logger.error(
              { detail, insuranceShare: rc.insuranceShare },
              'Redis unreachable: admitting under the per-replica insurance limit',
            )
          logger.warn({ detail }, 'Redis reachable again: shared counters caught up')
          w.onRedisBack?.()
        },
      })
    : undefined
  const limits: LimitStore = redisLimits ?? createMemoryLimitStore()
  const today = await loadTodayUsage(database.db, clock.now())
  await limits.seed(today.accounts, today.keys, clock.now())
  if (redisLimits) {
    redisLimits.start()
    // Before the connection closes: unused leases go back to Redis.
    stops.add('redis limits', () => redisLimits.stop())
  }
  // Methods stored and exported by name (served or priced, both bounded by the config); any other name a client
  // sends is one label (src/methods/labels.ts).
  const namedMethods = new Set([...networks.all.flatMap((n) => [...n.methods]), ...Object.keys(config.credits.methods)])
  const ledger = createUsageLedger(
    usageWriterFor(database),
    config.gateway.usageFlushMs,
    (err) => logger.error({ err }, 'writing usage failed; will retry'),
    namedMethods,
    config.database.usageBufferRows,
  )
  ledger.start()
  // /healthz `storage`: the database answering and the ledger written (docs/storage.md).
  const databaseHealth = createStorageHealth(database, ledger.health, {
    cacheMs: config.gateway.operations.healthCacheMs,
  })
  // With Redis, `storage.redis` too: insurance mode (Redis unreachable, docs/scale-out.md) makes /healthz degraded.
  const storageHealth = redisLimits
    ? async () => {
        const s = await databaseHealth()
        const reachable = !redisLimits.degraded
        return {
          ...s,
          status: s.status === 'ok' && reachable ? ('ok' as const) : ('degraded' as const),
          redis: { reachable, insuranceMode: !reachable },
        }
      }
    : databaseHealth
  stops.add('usage ledger', () => ledger.stop())
  // Written on the ledger's interval and at stop, through kysely (the same SQL on SQLite and PostgreSQL).
  const upstreamUsage = createUpstreamUsage(database.db, {
    flushMs: config.gateway.usageFlushMs,
    onError: (err) => logger.error({ err }, 'writing upstream usage failed; will retry'),
    served: namedMethods,
    maxBufferedRows: config.database.usageBufferRows,
  })
  upstreamUsage.start()
  stops.add('upstream usage', () => upstreamUsage.stop())
  const requests = startRequestExplorer(w)
  return { limits, namedMethods, ledger, storageHealth, upstreamUsage, requests }
}

/** The request explorer's records (docs/requests.md): written with the ledger's interval, pruned on a timer. */
function startRequestExplorer(w: UsageWiring): RequestRecorder | undefined {
  const { config, database, clock, logger, stops } = w
  const rc = config.requests
  if (!rc.enabled) return undefined
  const recorder = createRequestRecorder(w.requestWriter ?? requestWriterFor(database), {
    flushMs: config.gateway.usageFlushMs,
    bufferRows: rc.bufferRows,
    clock: () => clock.now(),
    onError: (err) => logger.error({ err }, 'writing the request explorer rows failed; those records are dropped'),
  })
  recorder.start()
  const retention = startRequestRetention(database.db, recorder, {
    retentionHours: rc.retentionHours,
    maxRowsPerKey: rc.maxRowsPerKey,
    maxRows: rc.pruneMaxRows,
    everyMs: rc.pruneEveryMs,
    clock: () => clock.now(),
    onError: (err) => logger.error({ err }, 'pruning the request explorer rows failed; will retry'),
  })
  stops.add('request explorer', async () => {
    await retention.stop()
    await recorder.stop()
  })
  return recorder
}
