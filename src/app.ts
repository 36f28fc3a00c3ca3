/**
 * Wiring only: builds the parts in order, starts them, and stops them in reverse order.
 */
import { join, resolve } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Config } from './config/schema.ts'
import { openDatabase, type OpenedDatabase } from './db/database.ts'
import { createStorageHealth, registerStorageMetrics } from './db/health.ts'
import { ensurePrivateDir } from './db/private-files.ts'
import { startAnvil, type RunningAnvil } from './devnet/anvil.ts'
import { createNetworkRegistry, type NetworkRegistry } from './networks/registry.ts'
import { createUpstreamPool, EMBEDDED_MAX_REQUEST_BYTES, redactUrl, type UpstreamPool } from './upstreams/pool.ts'
import { createSubscriptionHub, registerSubscriptionMetrics, type SubscriptionHub } from './upstreams/subscriptions.ts'
import { createAccountsRepository, type AccountsRepository } from './accounts/repository.ts'
import { createKeysRepository, type ApiKey, type KeysRepository } from './api-keys/repository.ts'
import { createKeySnapshot, type KeySnapshot, type SecurityLoader } from './api-keys/snapshot.ts'
import { evaluateKeyAccess } from './api-keys/security/evaluate.ts'
import { loadAllKeySecurity } from './api-keys/security/repository.ts'
import { createCostTable, type CostTable } from './credits/costs.ts'
import { createInProcessClient, type InProcessClient } from './gateway/in-process-client.ts'
import type { Metrics } from './observability/metrics.ts'
import { createMemoryLimitStore, type LimitStore } from './credits/limits.ts'
import { createRedisLimitStore } from './credits/limits-redis.ts'
import { connectRedis, type RedisConnection } from './redis/connection.ts'
import { createRedisCacheTier, createRedisHeadFloorStore } from './gateway/cache/redis-tier.ts'
import { createMemoryCacheStore } from './gateway/cache/store.ts'
import { createUsageLedger, loadTodayUsage, usageWriterFor, type UsageLedger } from './credits/usage-ledger.ts'
import { createUpstreamUsage, type UpstreamUsage } from './credits/upstream-usage.ts'
import { createGateway, type Gateway } from './gateway/execute.ts'
import { createNetworkLayers } from './gateway/cache/index.ts'
import type { AccessCheck, Clock } from './gateway/types.ts'
import type { SubscriptionDeps } from './gateway/subscriptions.ts'
import { createGatewayServer, type GatewayServer } from './http/gateway-server.ts'
import { startOperationsServer } from './http/operations.ts'
import { createLogger, type Logger } from './observability/logger.ts'
import { createMetrics } from './observability/metrics.ts'
import { attachSettingsPush } from './settings-changes/attach.ts'

/** How long after an embedded chain exits the app waits to see whether it is stopping (then the exit was expected). */
const EXIT_GRACE_MS = 500

export interface AppOptions {
  config: Config
  logger?: Logger
  clock?: Clock
  /**
   * Replaces how key security (secret, JWT, allowlists) is loaded and checked; it cannot be switched off: without
   * this option the app uses src/api-keys/security with config `dashboard.jwtAudience`.
   */
  security?: { load: SecurityLoader; check: AccessCheck }
  /** Extra routes on the gateway listener (dashboard). */
  plugins?: ((app: FastifyInstance, app2: RunningApp) => Promise<void> | void)[]
  /**
   * Node URLs of embedded networks already running elsewhere (`--workers N`: the primary runs each chain once,
   * src/cluster): no anvil is started for them here.
   */
  embeddedUrls?: Map<string, { url: string; wsUrl: string }>
  /** Parts started after the gateway listener (wallet); stopped before it. */
  services?: ((app: RunningApp) => Promise<{ stop(): Promise<void>; info?: Record<string, string> }>)[]
}

export interface RunningApp {
  config: Config
  logger: Logger
  clock: Clock
  database: OpenedDatabase
  networks: NetworkRegistry
  accounts: AccountsRepository
  keys: KeysRepository
  keySnapshot: KeySnapshot
  limits: LimitStore
  /** The shared Redis (config redis.url), when configured: hot counters and log-in limits live there. */
  redis: RedisConnection | undefined
  ledger: UsageLedger
  /** Upstream usage per call: which node answered, attempts, cache and dedup hits (src/credits/upstream-usage.ts). */
  upstreamUsage: UpstreamUsage
  gateway: Gateway
  costs: CostTable
  metrics: Metrics
  server: GatewayServer
  /** A client of this gateway inside the process, charged to `keyId` (the wallet's reads go through it). */
  inProcessClient(keyId: string): InProcessClient
  pools: Map<string, UpstreamPool>
  hubs: Map<string, SubscriptionHub>
  /** http://host:port of the gateway listener. */
  url: string
  /** http://host:port of the separate /healthz and /metrics listener (config gateway.operations.listen), if any. */
  operationsUrl?: string
  /** Node URLs of each network (embedded chains: the anvil's own URL). */
  upstreamUrls: Map<string, { url: string; wsUrl: string }>
  /** What services reported at start (wallet URL, console token, ...). */
  info: Record<string, string>
  /** SIGTERM's first step: /healthz answers 503 `draining` (load balancers stop sending calls); calls are still served. */
  beginDrain(): void
  readonly draining: boolean
  /** Stops everything in reverse order: the listener first (in-flight calls finish), the usage ledger flushed. */
  stop(): Promise<void>
}

export async function startApp(options: AppOptions): Promise<RunningApp> {
  const { config } = options
  const logger = options.logger ?? createLogger(config.log.level)
  const clock = options.clock ?? { now: () => Date.now() }
  const dataDir = resolve(config.dataDir)
  const ops = config.gateway.operations
  // Key security is part of the gateway, not a plug-in: a key that requires a secret, a JWT or an allowlist is
  // never served unchecked, whoever starts the app.
  const security = options.security ?? {
    load: loadAllKeySecurity,
    check: ((sec, request) => evaluateKeyAccess(sec, request, { jwtAudience: config.dashboard.jwtAudience, now: clock.now() })) as AccessCheck,
  }
  const stops: (() => Promise<void> | void)[] = []
  let stopping = false
  let draining = false
  const isDraining = () => draining
  const stopAll = async () => {
    stopping = true
    for (const stop of stops.reverse()) {
      try {
        await stop()
      } catch (err) {
        logger.error({ err }, 'error while stopping')
      }
    }
    stops.length = 0
  }

  try {
    // SQLite in the data dir, or PostgreSQL with database.url (docs/storage.md).
    let keysErrorLoggedMs = -Infinity
    const database = await openDatabase({ url: config.database.url, file: join(dataDir, 'chaingate.sqlite'), poolSize: config.database.poolSize })
    stops.push(() => database.close())
    const networks = createNetworkRegistry(config.networks)

    // Embedded chains start in parallel; each keeps its state in the data dir.
    const upstreamUrls = new Map<string, { url: string; wsUrl: string }>()
    const anvils: RunningAnvil[] = []
    stops.push(() => Promise.all(anvils.map((a) => a.stop())).then(() => undefined))
    await Promise.all(
      config.networks.map(async (n) => {
        const running = n.embedded ? options.embeddedUrls?.get(n.name) : undefined
        if (running) upstreamUrls.set(n.name, running)
        else if (n.embedded) {
          // Chain state (keys' balances, transactions) is private like the database (0700; src/db/private-files.ts).
          ensurePrivateDir(join(dataDir, 'chains'))
          const anvil = await startAnvil({
            chainId: n.chainId,
            port: n.embedded.port,
            blockTimeSeconds: n.embedded.blockTimeSeconds,
            stateFile: join(dataDir, 'chains', `${n.name}.json`),
            ...(n.embedded.mnemonic ? { mnemonic: n.embedded.mnemonic } : {}),
            logger,
          })
          anvils.push(anvil)
          anvil.onExit((code, signal) => {
            // Ctrl-C or a SIGTERM to the process group reaches anvil as well as chaingate: anvil may exit just before
            // the app starts stopping. Decide a moment later whether that exit was expected.
            setTimeout(() => {
              if (stopping) logger.info({ network: n.name, code, signal }, 'embedded chain exited (chaingate is stopping)')
              else logger.error({ network: n.name, code, signal }, 'embedded chain exited unexpectedly')
            }, EXIT_GRACE_MS).unref()
          })
          upstreamUrls.set(n.name, { url: anvil.url, wsUrl: anvil.wsUrl })
        } else {
          const first = n.upstreams![0]!
          upstreamUrls.set(n.name, { url: first.url, wsUrl: first.wsUrl ?? first.url.replace(/^http/, 'ws') })
        }
      }),
    )

    const pools = new Map<string, UpstreamPool>()
    const hubs = new Map<string, SubscriptionHub>()
    for (const n of config.networks) {
      const endpoints = n.embedded
        ? [upstreamUrls.get(n.name)!]
        : n.upstreams!.map((u) => ({
            url: u.url,
            onChainIdMismatch: u.onChainIdMismatch,
            role: u.role,
            weight: u.weight,
            timeoutMs: u.timeoutMs,
            maxRequestsPerSecond: u.maxRequestsPerSecond,
            labels: u.labels,
            ...(u.wsUrl ? { wsUrl: u.wsUrl } : {}),
          }))
      const pool = createUpstreamPool(n.name, endpoints, {
        timeoutMs: config.gateway.upstreamTimeoutMs,
        maxRequestBytes: n.maxRequestBytes ?? (n.embedded ? EMBEDDED_MAX_REQUEST_BYTES : undefined),
        // An embedded chain's id is set by chaingate: nothing to check.
        chainId: n.embedded ? undefined : n.chainId,
        policy: n.upstreamPolicy,
        log: logger,
      })
      pools.set(n.name, pool)
    }
    stops.push(async () => {
      await Promise.all([...hubs.values()].map((h) => h.close()))
      await Promise.all([...pools.values()].map((p) => p.close()))
    })
    // Redis (several replicas, docs/scale-out.md): shared counters, cache tier and head floors; without it, all in-process.
    const rc = config.redis
    const redis = rc.url
      ? await connectRedis({ url: rc.url, prefix: rc.keyPrefix, commandTimeoutMs: rc.commandTimeoutMs, onError: (message) => logger.warn({ message }, 'Redis connection') })
      : undefined
    if (redis) stops.push(() => redis.close())
    const floors = redis ? createRedisHeadFloorStore(redis) : undefined
    if (floors) {
      await floors.start(config.networks.map((n) => n.name))
      stops.push(() => floors.close())
    }
    // Cache, in-flight dedup and consistent heads in front of each pool (docs/caching.md); built before any head is
    // polled, so the layers see every announced head (unfinalized entries are keyed on their hashes).
    const callLayers = createNetworkLayers(
      config,
      pools,
      redis ? { cache: createRedisCacheTier(createMemoryCacheStore({ maxBytes: config.cache.maxBytes }), redis), floors } : undefined,
    )
    stops.push(() => callLayers.close())
    // Every external node's eth_chainId, in parallel (docs/config.md, onChainIdMismatch): a wrong one stops start-up.
    await Promise.all([...pools.values()].map((p) => p.verifyChainId()))
    // After the check: subscriptions follow the pool's order of nodes (wrong chain id last, and refused by the hub).
    for (const n of config.networks) {
      const pool = pools.get(n.name)!
      // The pool's nodes in config order (as status() lists them), by WebSocket URL (as wsUrls names them).
      const wsOf = (n.upstreams ?? []).map((u) => u.wsUrl ?? u.url.replace(/^http/i, 'ws'))
      hubs.set(
        n.name,
        createSubscriptionHub(n.name, {
          timeoutMs: config.gateway.upstreamTimeoutMs,
          wsUrls: () => pool.wsUrls,
          failoverMs: config.gateway.subscriptionFailoverMs,
          heartbeatMs: config.gateway.subscriptionHeartbeatMs,
          ...(wsOf.length > 1 ? { isHealthy: (url: string) => wsOf.indexOf(url) < 0 || pool.status()[wsOf.indexOf(url)]?.state === 'healthy' } : {}),
          chainId: n.embedded ? undefined : n.chainId,
          label: (u) => redactUrl(new URL(u)),
          log: logger,
        }),
      )
    }

    const accounts = createAccountsRepository(database.db, config.plans)
    const keys = createKeysRepository(database.db, { networks: networks.all.map((n) => n.name), plans: config.plans })
    const keySnapshot = createKeySnapshot(database.db, {
      plans: config.plans,
      pollMs: config.gateway.settingsPollMs,
      loadSecurity: security.load,
      // While the database is unreachable every poll fails and the keys loaded before keep serving: log the first
      // failure, then at most one line per 30 s.
      onError: (err) => {
        const t = Date.now()
        if (t - keysErrorLoggedMs < 30_000) return
        keysErrorLoggedMs = t
        logger.error({ err }, 'reloading keys failed')
      },
    })
    await keySnapshot.reload()
    // Several replicas: a change made on any of them (or by the CLI) is pushed to all over Redis; the poll slows down.
    const push = config.redis.url ? await attachSettingsPush({ url: config.redis.url, keyPrefix: config.redis.keyPrefix, db: database.db, snapshot: keySnapshot, logger }) : undefined
    keySnapshot.start(push ? config.gateway.settingsPushPollMs : undefined)
    stops.push(() => keySnapshot.stop())
    if (push) stops.push(() => push.close())

    const redisLimits = redis
      ? createRedisLimitStore({
          connection: redis,
          leaseCredits: rc.leaseCredits,
          leaseSyncMs: rc.leaseSyncMs,
          insuranceShare: rc.insuranceShare,
          // Redis restarted without its data: today's counts come from the ledger again (every replica writes it).
          reseed: () => loadTodayUsage(database.db, clock.now()),
          onReset: () => logger.warn('Redis had lost its counters (restarted without persistence?): seeded again from the usage ledger'),
          onOutage: (down, detail) =>
            down
              ? logger.error({ detail, insuranceShare: rc.insuranceShare }, 'Redis unreachable: admitting under the per-replica insurance limit')
              : logger.warn({ detail }, 'Redis reachable again: shared counters caught up'),
        })
      : undefined
    const limits: LimitStore = redisLimits ?? createMemoryLimitStore()
    const today = await loadTodayUsage(database.db, clock.now())
    await limits.seed(today.accounts, today.keys, clock.now())
    if (redisLimits) {
      redisLimits.start()
      // Before the connection closes: unused leases go back to Redis.
      stops.push(() => redisLimits.stop())
    }
    // Methods stored and exported by name (served or priced, both bounded by the config); any other name a client
    // sends is one label (src/rpc-methods/labels.ts).
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
    const databaseHealth = createStorageHealth(database, ledger.health, { cacheMs: ops.healthCacheMs })
    // With Redis, `storage.redis` too: insurance mode (Redis unreachable, docs/scale-out.md) makes /healthz degraded.
    const storageHealth = redisLimits
      ? async () => {
          const s = await databaseHealth()
          const reachable = !redisLimits.degraded
          return { ...s, status: s.status === 'ok' && reachable ? ('ok' as const) : ('degraded' as const), redis: { reachable, insuranceMode: !reachable } }
        }
      : databaseHealth
    stops.push(() => ledger.stop())
    // Written on the ledger's interval and at stop, through kysely (the same SQL on SQLite and PostgreSQL).
    const upstreamUsage = createUpstreamUsage(database.db, {
      flushMs: config.gateway.usageFlushMs,
      onError: (err) => logger.error({ err }, 'writing upstream usage failed; will retry'),
      served: namedMethods,
      maxBufferedRows: config.database.usageBufferRows,
    })
    upstreamUsage.start()
    stops.push(() => upstreamUsage.stop())

    const costs = createCostTable(
      config.credits,
      networks.all.map((n) => n.name),
    )
    const metrics = createMetrics(namedMethods)
    registerStorageMetrics(metrics.registry, () => ledger.health!())
    metrics.watchUpstreams(() => [...pools.values()].flatMap((p) => p.status().map((u) => ({ network: p.network, ...u }))))
    metrics.watchCache(() => callLayers.store.sizeBytes)
    registerSubscriptionMetrics(metrics.registry, hubs)
    let server: GatewayServer | undefined
    const gateway = createGateway({
      networks,
      keys: keySnapshot,
      pools,
      costs,
      limits,
      ledger,
      metrics,
      clock,
      maxBatchSize: config.gateway.maxBatchSize,
      checkAccess: security.check,
      layers: callLayers.layers,
      upstreamUsage,
      onDailyExhausted: (accountId) => server?.closeAccountSockets(accountId, 'daily credit limit reached'),
    })

    const app = {} as RunningApp
    const subscriptions: SubscriptionDeps = { keys: keySnapshot, costs, limits, ledger, metrics, clock, maxSubscriptions: config.gateway.maxSubscriptionsPerConnection }
    const clients: InProcessClient[] = []
    stops.push(() => Promise.all(clients.map((c) => c.close())).then(() => undefined))
    server = createGatewayServer({
      gateway,
      networks,
      keys: keySnapshot,
      pools,
      hubs,
      metrics,
      logger,
      logRequests: config.log.requests,
      maxBodyBytes: config.gateway.maxBodyBytes,
      gzipMinBytes: config.gateway.gzipMinBytes,
      maxWsMessageBytes: config.gateway.maxWsMessageBytes,
      trustProxy: config.gateway.trustProxy,
      maxWsBufferedBytes: config.gateway.maxWsBufferedBytes,
      subscriptions,
      timeouts: { requestMs: config.gateway.requestTimeoutMs, headersMs: config.gateway.headersTimeoutMs, keepAliveMs: config.gateway.keepAliveTimeoutMs },
      operations: { token: ops.token, separate: ops.listen !== null, healthCacheMs: ops.healthCacheMs, isDraining, storage: storageHealth },
      plugins: (options.plugins ?? []).map((p) => (fastify: FastifyInstance) => p(fastify, app)),
    })
    Object.assign(app, {
      config,
      logger,
      clock,
      database,
      networks,
      accounts,
      keys,
      keySnapshot,
      limits,
      redis,
      ledger,
      upstreamUsage,
      gateway,
      costs,
      metrics,
      server,
      inProcessClient(keyId: string) {
        const client = createInProcessClient({ gateway, keys: keySnapshot, networks, pools, hubs, subscriptions, keyId })
        clients.push(client)
        return client
      },
      pools,
      hubs,
      upstreamUrls,
      info: {},
      beginDrain() {
        draining = true
        server!.stopKeepAlive()
      },
      stop: stopAll,
    })
    // A live view (Object.assign would copy the getter's value once).
    Object.defineProperty(app, 'draining', { get: isDraining, enumerable: true })
    const address = await server.listen(config.gateway.host, config.gateway.port)
    stops.push(() => server!.close(config.gateway.drainTimeoutMs))
    app.url = address.replace('[::1]', 'localhost')
    if (ops.listen !== null) {
      const opsServer = await startOperationsServer({ networks, pools, metrics, token: ops.token, healthCacheMs: ops.healthCacheMs, isDraining, storage: storageHealth, ...ops.listen })
      stops.push(() => opsServer.close())
      app.operationsUrl = opsServer.url
    }

    for (const start of options.services ?? []) {
      const service = await start(app)
      Object.assign(app.info, service.info ?? {})
      stops.push(() => service.stop())
    }
    return app
  } catch (err) {
    await stopAll()
    throw err
  }
}

/** The account and key `npm start` prints: created on first start, the same ones after. */
export async function ensureDevKey(app: RunningApp): Promise<ApiKey | undefined> {
  const dev = app.config.gateway.devAccount
  if (!dev) return undefined
  const account = (await app.accounts.findByEmail(dev.email)) ?? (await app.accounts.create({ email: dev.email, plan: dev.plan }, app.clock.now()))
  const existing = await app.keys.list({ accountId: account.id })
  const key = existing[0] ?? (await app.keys.create({ accountId: account.id, name: 'dev key' }, app.clock.now()))
  await app.keySnapshot.reload()
  return key
}
