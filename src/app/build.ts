/**
 * The one composition root: builds the parts of one chaingate process in order, each registering its stop on one
 * stop list as it starts, and returns a small handle (RunningApp; the parts themselves are for tests and the bench,
 * src/app/app.test-support.ts); `stop()` runs the list in reverse (the listener first, so in-flight calls finish;
 * the usage ledger flushed; the database last). Which optional parts run is chosen per role in src/app/roles.ts
 * (single process, `--workers` primary, `--workers` worker); tests and the bench pick them here:
 *
 *   startApp({ config, parts: { dashboard: true, wallet: true } })
 *
 * Order: database → upstream side (embedded chains, pools, Redis, call layers, hubs: parts/upstreams.ts) → tenancy
 * (accounts, keys, key security, key snapshot: parts/keys.ts) → counting side (limits, ledger, storage health:
 * parts/usage.ts) → serving side (pipeline, listeners; the dashboard mounted on it: parts/gateway.ts) → the wallet
 * (parts/wallet.ts), which calls the gateway in process.
 */
import { startAuditRetention } from '../audit/retention.ts'
import { randomBytes } from 'node:crypto'
import { join, resolve } from 'node:path'
import type { Config } from '../config/schema.ts'
import { openDatabase } from '../db/database.ts'
import type { Clock } from '../gateway/pipeline/types.ts'
import { createSwappableNetworkRegistry, type NetworkRegistry } from '../networks/registry.ts'
import { createLogger, type Logger } from '../observability/logger.ts'
import type { RequestWriter } from '../usage/requests/recorder.ts'
import { startAlerts } from './parts/alerts.ts'
import { startServing } from './parts/gateway.ts'
import { ensureDevKey, startTenancy } from './parts/keys.ts'
import { type EmbeddedNode, startUpstreams } from './parts/upstreams.ts'
import { startUsage } from './parts/usage.ts'
import { createStopList } from './stop-list.ts'
import { keepInternals } from './internals.ts'
import type { ApiKey } from '../keys/repository.ts'
import { createReloader, type ConfigVersion, type ReloadResult } from './reload/apply.ts'
import { createLiveConfig } from './reload/live-config.ts'
import { tracingSettings } from '../observability/tracing.ts'
import { readReloadConfig } from './reload/plan.ts'
import { everywhere, type ReloadEverywhere, reloadOverRedis, reloadThroughDataDir } from './reload/reach.ts'
import { logReload, processLabel, toAck } from './reload/triggers.ts'
import { keepTickShape } from '../shared/object-shapes.ts'
import { createMailer } from '../mail/mailer.ts'
import { createDashboardLimiters } from '../accounts/login-limiter.ts'

export interface AppOptions {
  config: Config
  logger?: Logger
  clock?: Clock
  /** Optional parts around the gateway core (each still off when its config says `enabled: false`). */
  parts?: {
    /** The dashboard on the gateway listener. */
    dashboard?: boolean
    /** The wallet, started after the gateway listener and stopped before it. */
    wallet?: boolean
    /** The admin API (docs/admin-api.md) on the gateway and operations listeners, when admin.token is set. */
    admin?: boolean
    /** Usage alerts: the threshold sweep and the webhook deliverer (still off with `alerts.enabled: false`). */
    alerts?: boolean
  }
  /**
   * Node URLs of embedded networks already running elsewhere (`--workers N`: the primary runs each chain once,
   * src/app/cluster): no anvil is started for them here.
   */
  embeddedUrls?: Map<string, { url: string; wsUrl: string }>
  /** Called once the gateway listener listens, before the optional parts start and /startupz turns 200 (tests). */
  onListening?: (url: string) => Promise<void>
  /**
   * Reads the config again for `reload()` (`chaingate start`: the same file, with its command-line overrides);
   * without it, `reload()` needs the new config as its argument.
   */
  readConfig?: () => Config
  /** How this process names itself in reload outcomes (`single`, `primary`, `worker 2`). */
  processRole?: string
  /** Where the request explorer's batches go instead of this process's own database writer (a `--workers` worker). */
  requestWriter?: RequestWriter
}

/**
 * What a running chaingate process offers the code that started it (src/cli/start.ts, src/app/cluster): its URLs,
 * reload, drain and stop. Its parts (database, ledger, pools, ...) are for tests and the bench only, through
 * `appInternals(app)` of src/app/app.test-support.ts.
 */
export interface RunningApp {
  /** The running config: a view whose live sections read the current snapshot (src/app/reload/live-config.ts). */
  config: Config
  logger: Logger
  /** The networks as served (a Solana network's `chain` read from its nodes' genesis hash): the start banner. */
  networks: NetworkRegistry
  /** http://host:port of the gateway listener. */
  url: string
  /** http://host:port of the separate /healthz and /metrics listener (config gateway.operations.listen), if any. */
  operationsUrl: string | undefined
  /** Node URLs of each network (embedded chains: the anvil's own URL; `--workers` hands them to the workers). */
  upstreamUrls: Map<string, EmbeddedNode>
  /**
   * Where the request explorer's batches are written (undefined when config requests.enabled is false): on SQLite the
   * `--workers` primary writes its workers' batches there (src/app/cluster/request-explorer-relay.ts).
   */
  requestWriter: RequestWriter | undefined
  /** What the optional parts reported at start (wallet URL, console token, ...). */
  info: Record<string, string>
  /** The dev account's key (config gateway.devAccount), made or brought up to date; undefined without one. */
  ensureDevKey(): Promise<ApiKey | undefined>
  /**
   * Re-reads the config (AppOptions.readConfig, or `next`) and applies it in place (src/app/reload): networks,
   * upstreams, plans, credits, log level. Never rejects: an invalid or refused config changes nothing.
   */
  reload(next?: Config): Promise<ReloadResult>
  /** The config this process runs: a short hash of it, and when it was taken (/healthz shows it). */
  configVersion(): ConfigVersion
  /** SIGTERM's first step: /healthz answers 503 `draining` (load balancers stop sending calls); calls still served. */
  beginDrain(): void
  isDraining(): boolean
  /** Runs the stop list in reverse order of start; a failing stop is logged and the rest still run. */
  stop(): Promise<void>
}

export async function startApp(options: AppOptions): Promise<RunningApp> {
  // Read through one snapshot that a reload swaps whole (src/app/reload/live-config.ts).
  const live = createLiveConfig(options.config)
  const { config } = live
  // The OTEL_* variables are config too: a malformed one refuses the start before anything runs.
  const traces = tracingSettings(config.tracing, process.env)
  // V8 keeps process.nextTick's entries fast only while one stays alive (src/shared/object-shapes.ts).
  keepTickShape()
  const logger = options.logger ?? createLogger(config.log.level)
  const clock = options.clock ?? { now: () => Date.now() }
  const stops = createStopList(logger)
  let started = false
  try {
    // SQLite in the data dir, or PostgreSQL with database.url (docs/storage.md).
    const dataDir = resolve(config.dataDir)
    const database = await openDatabase({
      url: config.database.url,
      file: join(dataDir, 'chaingate.sqlite'),
      poolSize: config.database.poolSize,
    })
    stops.add('database', () => database.close())
    // The admin audit (API, CLI and dashboard changes) is kept `admin.auditRetentionDays`.
    const auditRetention = startAuditRetention(database.db, {
      retentionDays: config.admin.auditRetentionDays,
      clock: () => clock.now(),
      onError: (err) => logger.error({ err }, 'pruning the admin audit failed; will retry'),
    })
    stops.add('audit retention', () => auditRetention.stop())
    const { embeddedUrls } = options
    const upstreams = await startUpstreams({ config, dataDir, logger, embeddedUrls, stops })
    // A Solana network that names no `chain` has it now, from its nodes' genesis hash.
    const networks = createSwappableNetworkRegistry(config.networks)
    const { redis } = upstreams
    const tenancy = await startTenancy({ config, database, networks, redis, clock, logger, stops })
    const usage = await startUsage({
      config,
      database,
      networks,
      redis,
      clock,
      logger,
      stops,
      // Redis back after an outage: re-read the settings too, in case the subscription missed being cut off.
      onRedisBack: () => void tenancy.keySnapshot.refresh(),
      requestWriter: options.requestWriter,
    })
    // Mail goes out through SMTP when configured; otherwise it lands in <dataDir>/mail/ (docs/config.md, `mail`).
    const mailer = createMailer(config.mail, { dataDir, logger })
    stops.add('mailer', () => mailer.close())
    // Made once per process: the dashboard counts log-ins in them, the admin API's unlock clears them.
    const limiters = createDashboardLimiters(config.dashboard, redis)
    const core = { config, logger, clock, database, networks, redis, mailer, limiters, ...tenancy }
    // The reloader is made once the listener exists; /healthz asks it for the config version.
    let reloader: ReturnType<typeof createReloader> | undefined
    const notStarted = async (): Promise<never> => {
      throw new Error('not started')
    }
    let reload: (next?: Config) => Promise<ReloadResult> = notStarted
    let reloadEveryProcess: () => Promise<ReloadEverywhere> = notStarted
    // Before the listener's stop: pools a reload retired close once in-flight calls had their chance.
    stops.add('reloaded networks', () => reloader?.close())
    // The optional parts are imported only where they run (a worker has no wallet; tracing-sdk.ts likewise): each
    // costs its process memory at start (npm run bench:module-cost, docs/benchmarks.md). The admin API's
    // POST /admin/v1/reload is the reload below (a refused one answers 422 naming the setting).
    const admin = options.parts?.admin
      ? (await import('./parts/admin.ts')).adminPlugins({
          ...core,
          pools: upstreams.pools,
          ...(options.readConfig ? { reload: () => reloadEveryProcess() } : {}),
        })
      : []
    const dashboard =
      options.parts?.dashboard && config.dashboard.enabled
        ? (await import('./parts/dashboard.ts')).dashboardPlugins(core)
        : []
    const serving = await startServing({
      ...core,
      ...upstreams,
      ...usage,
      plugins: [...dashboard, ...admin],
      operationsPlugins: admin,
      isStarted: () => started,
      configVersion: () => live.current.version,
      traces,
      stops,
    })
    reloader = createReloader({
      ...core,
      ...upstreams,
      ...tenancy,
      live,
      costs: serving.costs,
      server: serving.server,
    })
    const reloading = reloader
    reload = async (next?: Config): Promise<ReloadResult> => {
      const read = readReloadConfig(next, options.readConfig)
      const result =
        typeof read === 'string'
          ? { ok: false, ...reloading.current(), changes: [], error: read }
          : await reloading.apply(read)
      logReload(logger, result)
      return result
    }
    // POST /admin/v1/reload reaches what `chaingate reload` reaches (src/app/reload/reach.ts): every process over
    // Redis; else a worker signals its primary (which reloads every worker); else this process alone.
    const label = processLabel(options.processRole ?? 'single')
    reloadEveryProcess = async () => {
      const id = randomBytes(8).toString('hex')
      const { url, keyPrefix } = config.redis
      const unreachable = (message: string) => logger.warn({ err: message }, 'reload: Redis unreachable')
      const overRedis = url ? await reloadOverRedis({ url, keyPrefix }, id, unreachable) : undefined
      if (overRedis) return overRedis
      if (options.processRole?.startsWith('worker')) {
        const viaPrimary = await reloadThroughDataDir(resolve(config.dataDir), id)
        if (typeof viaPrimary !== 'string') return viaPrimary
        logger.warn({ err: viaPrimary }, 'reload: the primary did not answer; reloading this worker only')
      }
      return everywhere([toAck(id, label, await reload())], 1)
    }
    // With Redis, `chaingate reload` reaches every process of every replica over it (src/redis/reload-channel.ts).
    if (options.readConfig && config.redis.url) {
      const { listenForReloads } = await import('../redis/reload-channel.ts')
      const listener = listenForReloads({
        url: config.redis.url,
        keyPrefix: config.redis.keyPrefix,
        reload: async (id) => toAck(id, label, await reload()),
        onError: (err) => logger.debug({ err: (err as Error)?.message }, 'reload channel'),
      })
      stops.add('reload channel', () => listener.close())
      await Promise.race([listener.ready, new Promise((r) => setTimeout(r, 3000).unref())])
    }
    await options.onListening?.(serving.url)
    const alerts = options.parts?.alerts ? startAlerts({ ...core, limits: usage.limits, stops }) : undefined
    const info = options.parts?.wallet
      ? await (await import('./parts/wallet.ts')).startWallet({ ...core, ...serving, stops })
      : {}
    started = true
    const app: RunningApp = {
      config,
      logger,
      networks,
      url: serving.url,
      operationsUrl: serving.operationsUrl,
      upstreamUrls: upstreams.upstreamUrls,
      requestWriter: usage.requests?.writer,
      info,
      ensureDevKey: () => ensureDevKey({ ...tenancy, clock, config }),
      reload: (next) => reload(next),
      configVersion: () => live.current.version,
      beginDrain: serving.beginDrain,
      isDraining: serving.isDraining,
      stop: () => stops.stop(),
    }
    keepInternals(app, {
      live,
      clock,
      database,
      accounts: tenancy.accounts,
      keys: tenancy.keys,
      keySnapshot: tenancy.keySnapshot,
      limits: usage.limits,
      redis,
      ledger: usage.ledger,
      upstreamUsage: usage.upstreamUsage,
      requests: usage.requests,
      gateway: serving.gateway,
      costs: serving.costs,
      metrics: serving.metrics,
      server: serving.server,
      inProcessClient: serving.inProcessClient,
      pools: upstreams.pools,
      hubs: upstreams.hubs,
      alerts,
      mailer,
    })
    return app
  } catch (err) {
    await stops.stop()
    throw err
  }
}
