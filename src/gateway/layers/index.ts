/**
 * The cache, dedup and consistent-heads layers of every network, built from the config (one byte-budgeted store
 * and one head-floor store shared by all networks; docs/caching.md).
 */
import type { Config } from '../../config/schema.ts'
import type { UpstreamPool } from '../../upstreams/pool/pool.ts'
import { createCallLayers, type CallLayers } from './layers.ts'
import { createCacheLookups, type CacheLookups } from './cache-lookups.ts'
import {
  createMemoryCacheStore,
  createMemoryHeadFloorStore,
  type CacheStore,
  type HeadFloorStore,
} from './cache-store.ts'

export type { CallLayers } from './layers.ts'

export interface NetworkLayers {
  layers: Map<string, CallLayers>
  store: CacheStore
  floors: HeadFloorStore
  /** Cache look-up counts per network (chaingate_cache_lookups_total), shared by the layers a reload builds. */
  lookups: CacheLookups
  close(): void
}

export function createNetworkLayers(
  config: Pick<Config, 'cache' | 'networks'>,
  pools: ReadonlyMap<string, UpstreamPool>,
  stores?: { cache?: CacheStore; floors?: HeadFloorStore; lookups?: CacheLookups },
): NetworkLayers {
  const store = stores?.cache ?? createMemoryCacheStore({ maxBytes: config.cache.maxBytes })
  const floors = stores?.floors ?? createMemoryHeadFloorStore()
  const lookups = stores?.lookups ?? createCacheLookups()
  const layers = new Map<string, CallLayers>()
  for (const n of config.networks) {
    const pool = pools.get(n.name)
    if (pool === undefined) continue
    layers.set(
      n.name,
      createCallLayers({
        network: n.name,
        pool,
        heads: pool.heads,
        store,
        floors,
        cache: n.cache.enabled ?? config.cache.enabled,
        dedup: config.cache.dedup,
        uncached: new Set(n.cache.uncachedMethods),
        maxItemBytes: config.cache.maxItemBytes,
        unfinalizedTtlMs: config.cache.unfinalizedTtlMs,
        blockNumberTtlMs: config.cache.blockNumberTtlMs,
        multiUpstream: (n.upstreams?.length ?? 1) > 1,
        headIdleMs: n.upstreamPolicy.headIdleMs,
        devnet: n.embedded !== undefined || n.devMethods === true,
        getLogs: n.getLogs,
        lookups: lookups.of(n.name),
      }),
    )
  }
  return {
    layers,
    store,
    floors,
    lookups,
    close() {
      for (const l of layers.values()) l.close()
    },
  }
}
