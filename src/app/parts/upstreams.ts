/**
 * The networks' upstream side (src/app/build.ts): embedded chains, upstream pools, the shared Redis (its cache tier
 * and head floors), the call layers and the subscription hubs. Each registers its stop on the app's stop list as it
 * starts, so they stop in reverse.
 */
import { join } from 'node:path'
import type { Config, NetworkConfig } from '../../config/schema.ts'
import { ensurePrivateDir } from '../../db/private-files.ts'
import { createNetworkLayers, type NetworkLayers } from '../../gateway/layers/index.ts'
import { createRedisCacheTier, createRedisHeadFloorStore } from '../../gateway/layers/cache-redis-tier.ts'
import { createMemoryCacheStore } from '../../gateway/layers/cache-store.ts'
import type { Logger } from '../../observability/logger.ts'
import type { RedisConnection } from '../../redis/connection.ts'
import {
  createUpstreamPool,
  EMBEDDED_MAX_REQUEST_BYTES,
  redactUrl,
  type UpstreamPool,
} from '../../upstreams/pool/pool.ts'
import { createSubscriptionHub, type SubscriptionHub } from '../../upstreams/subscriptions/hub.ts'
import type { StopList } from '../stop-list.ts'

/** An embedded chain's node: its URLs, and (Solana) the CAIP-2 id its genesis hash gives. */
export interface EmbeddedNode {
  url: string
  wsUrl: string
  chain?: string | undefined
  /** Solana: the funded accounts' addresses (the banner prints them; never keys). */
  accounts?: string[] | undefined
}

/** A devnet process chaingate started (anvil, or the Solana devnet). */
interface RunningDevnet extends EmbeddedNode {
  stop(): Promise<void>
  onExit(listener: (code: number | null, signal: string | null) => void): void
}

const startEvm = async (n: NetworkConfig, dataDir: string, logger: Logger): Promise<RunningDevnet> => {
  const { startAnvil } = await import('../../upstreams/devnet/anvil.ts')
  return startAnvil({
    chainId: n.chainId!,
    port: n.embedded!.port,
    blockTimeSeconds: n.embedded!.blockTimeSeconds,
    stateFile: join(dataDir, 'chains', `${n.name}.json`),
    ...(n.embedded!.mnemonic ? { mnemonic: n.embedded!.mnemonic } : {}),
    logger,
  })
}

const startSolana = async (n: NetworkConfig, dataDir: string, logger: Logger): Promise<RunningDevnet> => {
  const { startSolanaDevnet } = await import('../../upstreams/devnet/solana/devnet.ts')
  const devnet = await startSolanaDevnet({
    port: n.embedded!.port,
    stateFile: join(dataDir, 'chains', `${n.name}.json`),
    ...(n.embedded!.slotMs ? { slotMs: n.embedded!.slotMs } : {}),
    ...(n.embedded!.engine ? { engine: n.embedded!.engine } : {}),
    ...(n.embedded!.mnemonic ? { mnemonic: n.embedded!.mnemonic } : {}),
    logger,
  })
  return {
    url: devnet.url,
    wsUrl: devnet.wsUrl,
    chain: devnet.caip2,
    accounts: devnet.accounts.map((a) => a.address),
    stop: () => devnet.stop(),
    onExit: (l) => devnet.onExit(l),
  }
}

/**
 * A Solana node more than this many slots behind the served tip is lagging (400 ms slots: 20 s), when the network's
 * upstreamPolicy.maxLagBlocks is not set; slots pass ~30 times faster than EVM blocks.
 */
const SOLANA_MAX_LAG_SLOTS = 50

/** How long after an embedded chain exits the app waits to see whether it is stopping (then the exit was expected). */
const EXIT_GRACE_MS = 500

export interface UpstreamsWiring {
  config: Config
  /** The resolved data dir (embedded chains keep their state under it). */
  dataDir: string
  logger: Logger
  /** Node URLs of embedded networks already running elsewhere (AppOptions.embeddedUrls). */
  embeddedUrls?: Map<string, EmbeddedNode> | undefined
  /** The app's stop list (an embedded chain that exits once it is stopping was expected to). */
  stops: StopList
}

export interface StartedUpstreams {
  upstreamUrls: Map<string, EmbeddedNode>
  pools: Map<string, UpstreamPool>
  hubs: Map<string, SubscriptionHub>
  redis: RedisConnection | undefined
  callLayers: NetworkLayers
  /** Each network's config as the pools and hubs were built from it (`chaingate reload` replaces entries). */
  networkConfigs: Map<string, NetworkConfig>
}

export async function startUpstreams(w: UpstreamsWiring): Promise<StartedUpstreams> {
  const { config, dataDir, logger, stops } = w

  // Embedded chains start in parallel; each keeps its state in the data dir.
  const upstreamUrls = new Map<string, EmbeddedNode>()
  const devnets: RunningDevnet[] = []
  stops.add('embedded chains', () => Promise.all(devnets.map((a) => a.stop())))
  await Promise.all(
    config.networks.map(async (n) => {
      const running = n.embedded ? w.embeddedUrls?.get(n.name) : undefined
      if (running) upstreamUrls.set(n.name, running)
      else if (n.embedded) {
        // Chain state (keys' balances, transactions) is private like the database (0700; src/db/private-files.ts).
        ensurePrivateDir(join(dataDir, 'chains'))
        // Loaded only where a chain is embedded: a --workers worker uses the primary's.
        const devnet =
          n.family === 'solana' ? await startSolana(n, dataDir, logger) : await startEvm(n, dataDir, logger)
        devnets.push(devnet)
        devnet.onExit((code, signal) => {
          // Ctrl-C or a SIGTERM to the process group reaches the devnet as well as chaingate: it may exit just before
          // the app starts stopping. Decide a moment later whether that exit was expected.
          setTimeout(() => {
            if (stops.isStopping())
              logger.info({ network: n.name, code, signal }, 'embedded chain exited (chaingate is stopping)')
            else logger.error({ network: n.name, code, signal }, 'embedded chain exited unexpectedly')
          }, EXIT_GRACE_MS).unref()
        })
        upstreamUrls.set(n.name, {
          url: devnet.url,
          wsUrl: devnet.wsUrl,
          ...(devnet.chain ? { chain: devnet.chain } : {}),
          ...(devnet.accounts ? { accounts: devnet.accounts } : {}),
        })
      } else {
        const first = n.upstreams![0]!
        upstreamUrls.set(n.name, { url: first.url, wsUrl: first.wsUrl ?? first.url.replace(/^http/, 'ws') })
      }
    }),
  )

  const pools = new Map<string, UpstreamPool>()
  const hubs = new Map<string, SubscriptionHub>()
  const networkConfigs = new Map(config.networks.map((n) => [n.name, n]))
  for (const n of config.networks) pools.set(n.name, createNetworkPool(n, config, upstreamUrls, logger))
  stops.add('subscription hubs and pools', async () => {
    await Promise.all([...hubs.values()].map((h) => h.close()))
    await Promise.all([...pools.values()].map((p) => p.close()))
  })
  // Redis (several replicas, docs/scale-out.md): shared counters, cache tier and head floors; without it, all
  // in-process, and ioredis is never loaded.
  const rc = config.redis
  const redisModules = rc.url
    ? await Promise.all([import('../../redis/connection.ts'), import('../../redis/degraded-start.ts')])
    : undefined
  const redis = redisModules
    ? await redisModules[0].connectRedis({
        url: rc.url!,
        prefix: rc.keyPrefix,
        commandTimeoutMs: rc.commandTimeoutMs,
        onError: (message) => logger.warn({ message }, 'Redis connection'),
      })
    : undefined
  if (redis) stops.add('redis', () => redis.close())
  const floors = redis ? createRedisHeadFloorStore(redis) : undefined
  // Unreachable (not refusing): start anyway, in insurance mode until it is reached (src/redis/degraded-start.ts).
  if (redis?.unreachableAtStart !== undefined)
    redisModules![1].logRedisUnreachableAtStart(logger, rc, redis.unreachableAtStart)
  if (floors) {
    // Without Redis at start the floors stay local until it is reached, then subscribe and load.
    const names = config.networks.map((n) => n.name)
    const cancel = await redisModules![1].startWhenReachable(
      redis!,
      () => floors.start(names),
      (err) => logger.warn({ err: err.message }, 'loading head floors from Redis failed'),
    )
    stops.add('head floors', () => {
      cancel()
      return floors.close()
    })
  }
  // Cache, in-flight dedup and consistent heads in front of each pool (docs/caching.md); built before any head is
  // polled, so the layers see every announced head (unfinalized entries are keyed on their hashes).
  const cacheTier = redis
    ? createRedisCacheTier(createMemoryCacheStore({ maxBytes: config.cache.maxBytes }), redis)
    : undefined
  if (cacheTier) stops.add('cache tier', () => cacheTier.close())
  const callLayers = createNetworkLayers(config, pools, cacheTier && floors ? { cache: cacheTier, floors } : undefined)
  stops.add('call layers', () => callLayers.close())
  // Every external node's eth_chainId, in parallel (docs/config.md, onChainIdMismatch): a wrong one stops start-up.
  await Promise.all([...pools.values()].map((p) => p.verifyChainId()))
  // A Solana network's id is its nodes' genesis hash when the config names none: kept for the network registry.
  for (const n of config.networks) if (n.family === 'solana') n.chain ??= pools.get(n.name)!.chain
  // After the check: subscriptions follow the pool's order of nodes (wrong chain id last, and refused by the hub).
  for (const n of config.networks) hubs.set(n.name, createNetworkHub(n.name, { config, pools, networkConfigs, logger }))
  return { upstreamUrls, pools, hubs, redis, callLayers, networkConfigs }
}

/** One network's pool over its nodes (an embedded chain: its anvil, `upstreamUrls`); also `chaingate reload`'s. */
export function createNetworkPool(
  n: NetworkConfig,
  config: Config,
  upstreamUrls: ReadonlyMap<string, EmbeddedNode>,
  logger: Logger,
): UpstreamPool {
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
  const solana = n.family === 'solana'
  return createUpstreamPool(n.name, endpoints, {
    family: n.family,
    timeoutMs: config.gateway.upstreamTimeoutMs,
    maxRequestBytes: n.maxRequestBytes ?? (n.embedded ? EMBEDDED_MAX_REQUEST_BYTES : undefined),
    maxResponseBytes: n.maxResponseBytes,
    // An embedded chain's id is set by chaingate: nothing to check. A Solana network without `chain` learns it.
    chainId: n.embedded || solana ? undefined : n.chainId,
    chain: solana ? (n.chain ?? (n.embedded ? upstreamUrls.get(n.name)?.chain : undefined) ?? 'learn') : undefined,
    policy: { ...n.upstreamPolicy, maxLagBlocks: n.upstreamPolicy.maxLagBlocks ?? (solana ? SOLANA_MAX_LAG_SLOTS : 5) },
    log: logger,
  })
}

/**
 * One network's subscription hub. Its nodes are read from the network's pool and config as they are *now*
 * (`pools`, `networkConfigs`): after `chaingate reload` rotates them, the next (re)connection uses the new ones.
 */
export function createNetworkHub(
  name: string,
  w: {
    config: Config
    pools: ReadonlyMap<string, UpstreamPool>
    networkConfigs: ReadonlyMap<string, NetworkConfig>
    logger: Logger
  },
): SubscriptionHub {
  const { config } = w
  const n = w.networkConfigs.get(name)!
  // The pool's nodes in config order (as status() lists them), by WebSocket URL (as wsUrls names them).
  const wsOf = () => (w.networkConfigs.get(name)?.upstreams ?? []).map((u) => u.wsUrl ?? u.url.replace(/^http/i, 'ws'))
  return createSubscriptionHub(name, {
    timeoutMs: config.gateway.upstreamTimeoutMs,
    wsUrls: () => w.pools.get(name)?.wsUrls ?? [],
    failoverMs: config.gateway.subscriptionFailoverMs,
    heartbeatMs: config.gateway.subscriptionHeartbeatMs,
    failbackMs: config.gateway.subscriptionFailbackMs,
    maxSubscriptions: config.gateway.maxUpstreamSubscriptionsPerNetwork,
    ...(n.embedded
      ? {}
      : {
          isHealthy: (url: string) => {
            const urls = wsOf()
            const i = urls.indexOf(url)
            return urls.length < 2 || i < 0 || w.pools.get(name)?.status()[i]?.state === 'healthy'
          },
        }),
    chainId: n.embedded ? undefined : n.chainId,
    family: n.family,
    // Solana: the pool's finding of a node on another cluster (getGenesisHash over HTTP), by config order.
    ...(n.family === 'solana' && !n.embedded
      ? {
          wrongChain: (url: string) => {
            const i = wsOf().indexOf(url)
            return i >= 0 && w.pools.get(name)?.status()[i]?.cause === 'wrong-chain-id'
          },
        }
      : {}),
    label: (u) => redactUrl(new URL(u)),
    log: w.logger,
  })
}
