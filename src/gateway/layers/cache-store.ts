/**
 * Where the gateway keeps answers it may serve again (CacheStore) and the highest block number each key has been
 * told (HeadFloorStore). Both are interfaces so a shared tier (Redis, for several replicas) can stand behind the
 * same calls; the in-process implementations here are the first tier.
 */
import { LRUCache } from 'lru-cache'

export interface CacheSetOptions {
  /** Never changes (finalized data, by-hash lookups): kept until evicted for space. */
  immutable: boolean
  /** For entries that are not immutable: dropped after this long even without a reorg. */
  ttlMs?: number | undefined
}

export interface CacheStore {
  /** The stored bytes, or undefined. A shared tier may answer asynchronously. */
  get(key: string): Buffer | undefined | Promise<Buffer | undefined>
  set(key: string, value: Buffer, opts: CacheSetOptions): void
  delete(key: string): void
  /** Drops every entry whose key starts with `prefix` (a network's entries: `<network>\0`), or all. */
  clear(prefix?: string): void
  /** Bytes held (the in-process tier; a shared tier may report 0). */
  readonly sizeBytes: number
}

/** Not frozen: lru-cache writes `status` into the options it is given. */
const GET_OPTIONS: LRUCache.GetOptions<string, Buffer, unknown> = {}

/**
 * What an entry costs beside its key's characters and its value's bytes: lru-cache's slots, the Map entry, the
 * Buffer object and the strings' headers. Measured ~510 B of heap per entry (200,000 balance answers, Node 20); with
 * 64 B counted, a full cache held 2-3.5x its budget.
 */
const ENTRY_OVERHEAD_BYTES = 512

/** The in-process tier: an LRU bounded by bytes (what its entries really cost), not by entry count. */
export function createMemoryCacheStore(opts: { maxBytes: number }): CacheStore {
  const lru = new LRUCache<string, Buffer>({
    maxSize: Math.max(1, opts.maxBytes),
    // Keys are one byte per character (JSON-RPC's method and params are ASCII as a rule).
    sizeCalculation: (value, key) => value.length + key.length + ENTRY_OVERHEAD_BYTES,
    // An entry larger than the whole budget is simply not stored.
    maxEntrySize: Math.max(1, opts.maxBytes),
  })
  return {
    // One options object for every lookup (lru-cache builds an empty one per call when none is given).
    get: (key) => lru.get(key, GET_OPTIONS),
    set(key, value, o) {
      lru.set(key, value, o.immutable || o.ttlMs === undefined ? undefined : { ttl: o.ttlMs })
    },
    delete: (key) => void lru.delete(key),
    clear(prefix) {
      if (prefix === undefined) return lru.clear()
      for (const key of [...lru.keys()]) if (key.startsWith(prefix)) lru.delete(key)
    },
    get sizeBytes() {
      return lru.calculatedSize
    },
  }
}

/**
 * The highest block number served to an API key on a network (monotonic `eth_blockNumber`, also when the answer
 * comes from another upstream than the last one).
 */
export interface HeadFloorStore {
  /** 0 when nothing was served yet. */
  get(keyId: string, network: string): number
  /** Stores max(stored, block) and returns it. */
  raise(keyId: string, network: string, block: number): number
  /**
   * Forgets a network's floors, its per-method ones (`<network>/<method>/<commitment>`, Solana slots) too: a devnet
   * went back in time (evm_revert, anvil_reset), or the chain was replaced under the gateway.
   */
  reset(network: string): void
}

export function createMemoryHeadFloorStore(): HeadFloorStore & { names(): Iterable<string> } {
  // network → key id → block; keys are bounded by the key snapshot, networks by the config.
  const floors = new Map<string, Map<string, number>>()
  return {
    get: (keyId, network) => floors.get(network)?.get(keyId) ?? 0,
    raise(keyId, network, block) {
      let byKey = floors.get(network)
      if (byKey === undefined) floors.set(network, (byKey = new Map()))
      const current = byKey.get(keyId) ?? 0
      if (block <= current) return current
      byKey.set(keyId, block)
      return block
    },
    reset(network) {
      floors.delete(network)
      for (const name of floors.keys()) if (name.startsWith(`${network}/`)) floors.delete(name)
    },
    names: () => floors.keys(),
  }
}
