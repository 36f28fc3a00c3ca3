/**
 * The serving side for src/app/build.ts: metrics, the pipeline (createGateway), the gateway listener with its
 * routes and WebSocket upgrades (and the dashboard when the role mounts it), in-process clients (the wallet's way to
 * the chains), and the separate /healthz and /metrics listener when configured. Each listener registers its stop
 * as it starts listening; the clients close before the listener.
 */
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../config/schema.ts'
import { redactUrl } from '../../config/show.ts'
import { registerStorageMetrics } from '../../usage/storage-health.ts'
import { registerRequestExplorerMetrics } from '../../usage/requests/metrics.ts'
import { createCostTable, createSwappableCostTable, type SwappableCostTable } from '../../credits/costs.ts'
import type { LimitStore } from '../../credits/limits/memory.ts'
import type { KeySnapshot } from '../../keys/snapshot.ts'
import type { NetworkLayers } from '../../gateway/layers/index.ts'
import { startOperationsServer } from '../../gateway/http/operations.ts'
import { openOperationsWarning, operationsExposure } from '../../gateway/http/operations-exposure.ts'
import { createGatewayServer, type GatewayServer } from '../../gateway/http/server.ts'
import type { SubscriptionDeps, Clock } from '../../gateway/pipeline/types.ts'
import { createGateway, type Gateway } from '../../gateway/pipeline/execute.ts'
import { createInProcessClient, type InProcessClient } from '../../gateway/pipeline/in-process-client.ts'
import type { NetworkRegistry } from '../../networks/registry.ts'
import type { Logger } from '../../observability/logger.ts'
import type { RedisConnection } from '../../redis/connection.ts'
import { createMetrics, type Metrics } from '../../observability/metrics.ts'
import { startTracing, unsupportedTracingEnv, type TracingSettings } from '../../observability/tracing.ts'
import type { UsageLedger } from '../../usage/ledger.ts'
import type { UpstreamUsage } from '../../usage/upstream-usage.ts'
import type { RequestRecorder } from '../../usage/requests/recorder.ts'
import type { UpstreamPool } from '../../upstreams/pool/pool.ts'
import type { SubscriptionHub } from '../../upstreams/subscriptions/hub.ts'
import { registerSubscriptionMetrics } from '../../upstreams/subscriptions/metrics.ts'
import { createSlots } from '../../shared/slots.ts'
import type { StopList } from '../stop-list.ts'
import type { KeySecurity } from './keys.ts'

export interface GatewayWiring {
  config: Config
  /** Tracing as the config and the OTEL_* variables set it (read first thing at start: a bad value refuses it). */
  traces: TracingSettings | null
  logger: Logger
  clock: Clock
  networks: NetworkRegistry
  keySnapshot: KeySnapshot
  security: KeySecurity
  pools: Map<string, UpstreamPool>
  hubs: Map<string, SubscriptionHub>
  callLayers: NetworkLayers
  limits: LimitStore
  ledger: UsageLedger
  upstreamUsage: UpstreamUsage
  /** The request explorer's recorder; undefined when config requests.enabled is false. */
  requests: RequestRecorder | undefined
  namedMethods: Set<string>
  /** The shared Redis, when configured (its insurance mode is a metric). */
  redis: RedisConnection | undefined
  storageHealth: () => Promise<{ status: 'ok' | 'degraded' }>
  /** Extra routes on the gateway listener (the dashboard, the admin API). */
  plugins: ((fastify: FastifyInstance) => Promise<void> | void)[]
  /** Extra routes on the separate operations listener, when configured (the admin API). */
  operationsPlugins?: ((fastify: FastifyInstance) => Promise<void> | void)[]
  /** True once every part has started (/startupz, /readyz). */
  isStarted(): boolean
  /** The config version /healthz shows (src/app/reload). */
  configVersion?: () => { version: string; loadedAt: string } | undefined
  stops: StopList
}

export interface ServingParts {
  gateway: Gateway
  /** Swapped whole by `chaingate reload` (src/app/reload). */
  costs: SwappableCostTable
  metrics: Metrics
  server: GatewayServer
  inProcessClient(keyId: string): InProcessClient
  url: string
  operationsUrl: string | undefined
  beginDrain(): void
  isDraining(): boolean
}

export async function startServing(w: GatewayWiring): Promise<ServingParts> {
  const { config, networks, keySnapshot, pools, hubs, limits, ledger, clock, stops } = w
  const ops = config.gateway.operations
  let draining = false
  const isDraining = () => draining
  const costs = createSwappableCostTable(
    createCostTable(
      config.credits,
      networks.all.map((n) => n.name),
    ),
  )
  const metrics = createMetrics(w.namedMethods)
  registerStorageMetrics(metrics.registry, () => ledger.health!())
  if (w.requests) registerRequestExplorerMetrics(metrics.registry, w.requests.health)
  // Without a token /metrics, like /healthz, names an embedded chain's node `embedded`, not its URL.
  const embedded = ops.token === null ? operationsExposure(config, config.gateway.host).embeddedNetworks : undefined
  metrics.watchUpstreams(() =>
    [...pools.values()].flatMap((p) =>
      p
        .status()
        .map((u) => ({ network: p.network, ...u, ...(embedded?.has(p.network) ? { upstream: 'embedded' } : {}) })),
    ),
  )
  metrics.watchCache(() => w.callLayers.store.sizeBytes)
  w.callLayers.lookups.register(metrics.registry, w.redis !== undefined)
  const version = w.configVersion
  if (version !== undefined) metrics.watchConfigVersion(() => version()?.version ?? '')
  if (w.redis) metrics.watchRedis(() => (limits as { degraded?: boolean }).degraded === true)
  registerSubscriptionMetrics(metrics.registry, hubs)
  // Off unless configured (or OTEL_TRACES_EXPORTER=otlp): then the SDK is loaded, and flushed last at stop.
  for (const warning of unsupportedTracingEnv(process.env)) w.logger.warn({}, warning)
  const { traces } = w
  const tracing = await startTracing(traces)
  if (tracing.on) stops.add('traces', () => tracing.shutdown())
  if (traces) {
    const { protocol, sampleRatio, parentBased } = traces
    w.logger.info({ url: redactUrl(traces.url), protocol, sampleRatio, parentBased }, 'traces exported over OTLP')
  }
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
    checkAccess: w.security.check,
    layers: w.callLayers.layers,
    upstreamUsage: w.upstreamUsage,
    requests: w.requests,
    onDailyExhausted: (accountId) => server?.closeAccountSockets(accountId, 'daily credit limit reached'),
    tracing,
  })
  const subscriptions: SubscriptionDeps = {
    keys: keySnapshot,
    costs,
    limits,
    ledger,
    metrics,
    clock,
    maxSubscriptions: config.gateway.maxSubscriptionsPerConnection,
    keyCap: { max: config.gateway.maxSubscriptionsPerKey, perKey: createSlots() },
    tracing,
  }
  const clients: InProcessClient[] = []
  stops.add('in-process clients', () => Promise.all(clients.map((c) => c.close())))
  server = createGatewayServer({
    gateway,
    networks,
    keys: keySnapshot,
    pools,
    hubs,
    metrics,
    logger: w.logger,
    logRequests: config.log.requests,
    maxBodyBytes: config.gateway.maxBodyBytes,
    gzipMinBytes: config.gateway.gzipMinBytes,
    maxInFlight: config.gateway.maxInFlight,
    maxWsMessageBytes: config.gateway.maxWsMessageBytes,
    trustProxy: config.gateway.trustProxy,
    maxWsBufferedBytes: config.gateway.maxWsBufferedBytes,
    subscriptions,
    wsConnections: {
      perKey: config.gateway.maxWsConnectionsPerKey,
      perAddress: config.gateway.maxWsConnectionsPerAddress,
    },
    timeouts: {
      requestMs: config.gateway.requestTimeoutMs,
      headersMs: config.gateway.headersTimeoutMs,
      keepAliveMs: config.gateway.keepAliveTimeoutMs,
    },
    operations: {
      token: ops.token,
      openProbes: ops.openProbes,
      separate: ops.listen !== null,
      healthCacheMs: ops.healthCacheMs,
      isDraining,
      isStarted: w.isStarted,
      storage: w.storageHealth,
      ...(w.configVersion ? { configVersion: w.configVersion } : {}),
      exposure: operationsExposure(config, config.gateway.host),
    },
    plugins: w.plugins,
  })
  const listening = server
  const address = await listening.listen(config.gateway.host, config.gateway.port)
  stops.add('gateway listener', () => listening.close(config.gateway.drainTimeoutMs))
  const openWarning = openOperationsWarning(config)
  if (openWarning) w.logger.warn({}, openWarning)
  let operationsUrl: string | undefined
  if (ops.listen !== null) {
    const opsServer = await startOperationsServer({
      networks,
      pools,
      metrics,
      token: ops.token,
      openProbes: ops.openProbes,
      healthCacheMs: ops.healthCacheMs,
      isDraining,
      isStarted: w.isStarted,
      storage: w.storageHealth,
      ...(w.configVersion ? { configVersion: w.configVersion } : {}),
      exposure: operationsExposure(config, ops.listen.host),
      plugins: w.operationsPlugins ?? [],
      ...ops.listen,
    })
    stops.add('operations listener', () => opsServer.close())
    operationsUrl = opsServer.url
  }
  return {
    gateway,
    costs,
    metrics,
    server: listening,
    inProcessClient(keyId) {
      const client = createInProcessClient({ gateway, keys: keySnapshot, networks, pools, hubs, subscriptions, keyId })
      clients.push(client)
      return client
    },
    url: address.replace('[::1]', 'localhost'),
    operationsUrl,
    beginDrain() {
      draining = true
      listening.stopKeepAlive()
    },
    isDraining,
  }
}
