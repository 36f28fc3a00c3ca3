/**
 * Call layers for tests: the options of an ordinary network (cache and dedup on, one node, memory stores), with
 * whatever a test changes in `over`.
 */
import { createMemoryCacheStore, createMemoryHeadFloorStore } from './cache-store.ts'
import type { CallLayerOptions } from './layers.ts'

export function testLayerOptions(
  over: Partial<CallLayerOptions> & Pick<CallLayerOptions, 'pool' | 'heads'>,
): CallLayerOptions {
  return {
    network: 'n',
    store: createMemoryCacheStore({ maxBytes: 1 << 20 }),
    floors: createMemoryHeadFloorStore(),
    cache: true,
    dedup: true,
    uncached: new Set(),
    maxItemBytes: 1 << 20,
    unfinalizedTtlMs: 60_000,
    blockNumberTtlMs: 60_000,
    multiUpstream: false,
    headIdleMs: 60_000,
    devnet: false,
    getLogs: {
      maxBlockRange: 10_000,
      maxResults: 10_000,
      upstreamMaxBlockRange: null,
      splitConcurrency: 4,
      maxSplits: 20,
    },
    ...over,
  }
}
