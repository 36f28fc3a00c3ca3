/**
 * Wiring only: builds the parts in order, starts them, and stops them in reverse order.
 * The networks' upstream side (chains, pools, Redis, call layers, hubs) is built by app-upstreams.ts, the counting
 * side (limits, usage ledger, storage health) by app-usage.ts, each in this order.
 */
import { join, resolve } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config/schema.ts'
import { openDatabase, type OpenedDatabase } from '../db/database.ts'
import { registerStorageMetrics } from '../db/health.ts'
import { createNetworkRegistry, type NetworkRegistry } from '../networks/registry.ts'
import type { UpstreamPool } from '../upstreams/pool/pool.ts'
import { registerSubscriptionMetrics, type SubscriptionHub } from '../upstreams/subscriptions/hub.ts'
import { createAccountsRepository, type AccountsRepository } from '../accounts/repository.ts'
import { createKeysRepository, type ApiKey, type KeysRepository } from '../keys/repository.ts'
import { createKeySnapshot, type KeySnapshot, type SecurityLoader } from '../keys/snapshot.ts'
import { evaluateKeyAccess } from '../keys/security/evaluate.ts'
import { loadAllKeySecurity } from '../keys/security/repository.ts'
import { createCostTable, type CostTable } from '../credits/costs.ts'
import { createInProcessClient, type InProcessClient } from '../gateway/pipeline/in-process-client.ts'
import type { Metrics } from '../observability/metrics.ts'
import type { LimitStore } from '../credits/limits/memory.ts'
import type { RedisConnection } from '../redis/connection.ts'
import type { UsageLedger } from '../usage/ledger.ts'
import type { UpstreamUsage } from '../usage/upstream-usage.ts'
import { createGateway, type Gateway } from '../gateway/pipeline/execute.ts'
import type { AccessCheck, Clock } from '../gateway/pipeline/types.ts'
import type { SubscriptionDeps } from '../gateway/pipeline/client-subscriptions.ts'
import { createGatewayServer, type GatewayServer } from '../gateway/http/server.ts'
import { startOperationsServer } from '../gateway/http/operations.ts'
import { createLogger, type Logger } from '../observability/logger.ts'
import { createMetrics } from '../observability/metrics.ts'
import { attachSettingsPush } from '../redis/settings-push-attach.ts'
import { startUpstreams } from './upstreams.ts'
import { startUsage } from './usage.ts'

export interface AppOptions {
  config: Config
  logger?: Logger
  clock?: Clock
  /**
   * Replaces how key security (secret, JWT, allowlists) is loaded and checked; it cannot be switched off: without
   * this option the app uses src/keys/security with config `dashboard.jwtAudience`.
   */
  security?: { load: SecurityLoader; check: AccessCheck }
  /** Extra routes on the gateway listener (dashboard). */
  plugins?: ((app: FastifyInstance, app2: RunningApp) => Promise<void> | void)[]
  /**
   * Node URLs of embedded networks already running elsewhere (`--workers N`: the primary runs each chain once,
   * src/app/cluster): no anvil is started for them here.
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
  /** Upstream usage per call: which node answered, attempts, cache and dedup hits (src/usage/upstream-usage.ts). */
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
  /**
   * SIGTERM's first step: /healthz answers 503 `draining` (load balancers stop sending calls); calls are still served.
   */
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
    check: ((sec, request) =>
      evaluateKeyAccess(sec, request, { jwtAudience: config.dashboard.jwtAudience, now: clock.now() })) as AccessCheck,
  }
  const stops: (() => Promise<void> | void)[] = []
  let stopping = false
  let draining = false
  const isDraining = () => draining
  let started = false
  const isStarted = () => started
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
    const database = await openDatabase({
      url: config.database.url,
      file: join(dataDir, 'chaingate.sqlite'),
      poolSize: config.database.poolSize,
    })
    stops.push(() => database.close())
    const networks = createNetworkRegistry(config.networks)

    // Embedded chains, pools, Redis (cache tier, head floors), call layers and subscription hubs
    // (src/app/upstreams.ts).
    const { upstreamUrls, pools, hubs, redis, callLayers } = await startUpstreams({
      config,
      dataDir,
      logger,
      embeddedUrls: options.embeddedUrls,
      stops,
      isStopping: () => stopping,
    })

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
    // Redis unreachable at start: the subscription comes up (and reloads the snapshot) when Redis does.
    const push = config.redis.url
      ? await attachSettingsPush({
          url: config.redis.url,
          keyPrefix: config.redis.keyPrefix,
          db: database.db,
          snapshot: keySnapshot,
          logger,
          unreachableAtStart: redis?.unreachableAtStart !== undefined,
        })
      : undefined
    keySnapshot.start(push ? config.gateway.settingsPushPollMs : undefined)
    stops.push(() => keySnapshot.stop())
    if (push) stops.push(() => push.close())

    // Redis back after an outage: re-read the settings too, in case the subscription did not notice it was cut off.
    const onRedisBack = () => void keySnapshot.refresh()
    const { limits, namedMethods, ledger, storageHealth, upstreamUsage } = await startUsage({
      config,
      database,
      networks,
      redis,
      clock,
      logger,
      stops,
      onRedisBack,
    })

    const costs = createCostTable(
      config.credits,
      networks.all.map((n) => n.name),
    )
    const metrics = createMetrics(namedMethods)
    registerStorageMetrics(metrics.registry, () => ledger.health!())
    metrics.watchUpstreams(() =>
      [...pools.values()].flatMap((p) => p.status().map((u) => ({ network: p.network, ...u }))),
    )
    metrics.watchCache(() => callLayers.store.sizeBytes)
    if (redis) metrics.watchRedis(() => (limits as { degraded?: boolean }).degraded === true)
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
    const subscriptions: SubscriptionDeps = {
      keys: keySnapshot,
      costs,
      limits,
      ledger,
      metrics,
      clock,
      maxSubscriptions: config.gateway.maxSubscriptionsPerConnection,
    }
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
      timeouts: {
        requestMs: config.gateway.requestTimeoutMs,
        headersMs: config.gateway.headersTimeoutMs,
        keepAliveMs: config.gateway.keepAliveTimeoutMs,
      },
      operations: {
        token: ops.token,
        separate: ops.listen !== null,
        healthCacheMs: ops.healthCacheMs,
        isDraining,
        isStarted,
        storage: storageHealth,
      },
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
        const client = createInProcessClient({
          gateway,
          keys: keySnapshot,
          networks,
          pools,
          hubs,
          subscriptions,
          keyId,
        })
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
      const opsServer = await startOperationsServer({
        networks,
        pools,
        metrics,
        token: ops.token,
        healthCacheMs: ops.healthCacheMs,
        isDraining,
        isStarted,
        storage: storageHealth,
        ...ops.listen,
      })
      stops.push(() => opsServer.close())
      app.operationsUrl = opsServer.url
    }

    for (const start of options.services ?? []) {
      const service = await start(app)
      Object.assign(app.info, service.info ?? {})
      stops.push(() => service.stop())
    }
    started = true
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
  const account =
    (await app.accounts.findByEmail(dev.email)) ??
    (await app.accounts.create({ email: dev.email, plan: dev.plan }, app.clock.now()))
  const existing = await app.keys.list({ accountId: account.id })
  const key = existing[0] ?? (await app.keys.create({ accountId: account.id, name: 'dev key' }, app.clock.now()))
  await app.keySnapshot.reload()
  return key
}
