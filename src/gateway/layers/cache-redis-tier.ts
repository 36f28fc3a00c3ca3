/**
 * The shared tier of the cache and of the head floors, on Redis (config `redis.url`; docs/scale-out.md,
 * docs/caching.md), for several replicas.
 *
 * Cache: the in-process LRU stays the first tier (a hit answers synchronously); a miss there asks Redis, and an
 * answer found in Redis fills the first tier. Every answer stored goes to both. Redis keys are
 * `<prefix>c:<network>:<sha256 of the cache key>`; the value carries its expiry, so the first tier gets the same.
 * Redis errors count as misses: the cache never fails a call. A clear (a devnet rewound) deletes the network's keys
 * in Redis and then tells every replica over pub/sub to drop them from its first tier too; the message goes out
 * after the deletes, so a replica cannot refill its memory from Redis entries that are about to go.
 *
 * Head floors (the highest block each key was told, so `eth_blockNumber` never goes back): read locally
 * (synchronous, as the pipeline needs), raised locally and in Redis, and pushed to every replica over pub/sub, so
 * a client moving between replicas sees no older head once the push has arrived (well under a millisecond on a
 * local network; a replica that misses a push catches up with the next head).
 */
import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { RedisConnection } from '../../redis/connection.ts'
import { createMemoryHeadFloorStore, type CacheStore, type HeadFloorStore } from './cache-store.ts'

/** Redis keeps an immutable answer at most this long (it is evicted earlier by Redis's maxmemory policy). */
const IMMUTABLE_TTL_MS = 24 * 3_600_000
const IMMUTABLE = 0xff

export interface RedisCacheTier extends CacheStore {
  /** Resolves once this replica listens for other replicas' clears (tests wait on it). */
  readonly listening: Promise<void>
  close(): Promise<void>
}

export function createRedisCacheTier(
  memory: CacheStore,
  connection: RedisConnection,
  opts: { now?: () => number } = {},
): RedisCacheTier {
  const client = connection.client
  const now = opts.now ?? Date.now
  const prefix = `${connection.prefix}c:`
  const channel = `${connection.prefix}cache-clear`
  // ioredis subscribes again by itself after a reconnection.
  const sub = connection.duplicate()
  sub.on('error', () => undefined)
  // Counts clears: an answer read from Redis before a clear arrived is not kept in memory (it may be a deleted one).
  let clears = 0
  sub.on('message', (_channel: string, network: string) => {
    clears++
    memory.clear(network === '' ? undefined : `${network}\0`)
  })
  const listening = sub.subscribe(channel).then(
    () => undefined,
    () => undefined,
  )
  const redisKey = (key: string) => {
    const nul = key.indexOf('\0')
    return `${prefix}${nul < 0 ? '' : key.slice(0, nul)}:${createHash('sha256').update(key).digest('base64url')}`
  }
  const ignore = () => undefined

  const fromRedis = (key: string): Promise<Buffer | undefined> => {
    const clearsBefore = clears
    return client.getBuffer(redisKey(key)).then((stored) => {
      // 1 byte: immutable (0xff) or not; 8 bytes: expiry (ms since epoch, 0 when immutable); then the answer.
      if (stored === null || stored.length < 9) return undefined
      const expiresAt = Number(stored.readBigUInt64BE(1))
      const value = stored.subarray(9)
      const keep = clears === clearsBefore
      if (stored[0] === IMMUTABLE) {
        if (keep) memory.set(key, value, { immutable: true })
      } else {
        const ttlMs = expiresAt - now()
        if (ttlMs <= 0) return undefined
        if (keep) memory.set(key, value, { immutable: false, ttlMs })
      }
      return value
    }, ignore)
  }

  return {
    get(key) {
      const hit = memory.get(key)
      if (hit === undefined) return fromRedis(key)
      if (hit instanceof Promise) return hit.then((h) => h ?? fromRedis(key))
      return hit
    },
    set(key, value, o) {
      memory.set(key, value, o)
      const immutable = o.immutable || o.ttlMs === undefined
      const ttlMs = immutable ? IMMUTABLE_TTL_MS : o.ttlMs!
      const head = Buffer.allocUnsafe(9)
      head[0] = immutable ? IMMUTABLE : 0
      head.writeBigUInt64BE(BigInt(immutable ? 0 : now() + ttlMs), 1)
      client.set(redisKey(key), Buffer.concat([head, value]), 'PX', ttlMs).catch(ignore)
    },
    delete(key) {
      memory.delete(key)
      client.del(redisKey(key)).catch(ignore)
    },
    clear(keyPrefix) {
      clears++
      memory.clear(keyPrefix)
      // A network's entries (`<network>\0`), or all: found by SCAN, deleted in batches, in the background.
      const network = keyPrefix === undefined ? undefined : keyPrefix.slice(0, Math.max(0, keyPrefix.indexOf('\0')))
      const match = `${prefix}${network === undefined ? '*' : `${network.replace(/[*?[\]\\]/g, '\\$&')}:*`}`
      const stream = client.scanStream({ match, count: 500 })
      const deletes: Promise<unknown>[] = []
      stream.on('data', (keys: string[]) => {
        if (keys.length) deletes.push(client.unlink(...keys).catch(ignore))
      })
      stream.on('error', ignore)
      stream.on('end', () => {
        void Promise.all(deletes).then(() => client.publish(channel, network ?? '').catch(ignore))
      })
    },
    get sizeBytes() {
      return memory.sizeBytes
    },
    listening,
    async close() {
      await sub.quit().catch(() => sub.disconnect())
    },
  }
}

// KEYS: the network's floor hash, the channel. ARGV: key id, block, message. Raises and announces only upward.
const RAISE = `
local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if tonumber(ARGV[2]) <= current then return current end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], 86400000)
redis.call('PUBLISH', KEYS[2], ARGV[3])
return tonumber(ARGV[2])
`

interface ScriptedRedis extends Redis {
  cgFloorRaise(k1: string, k2: string, keyId: string, block: number, message: string): Promise<number>
}

export interface RedisHeadFloorStore extends HeadFloorStore {
  /** Subscribes and loads the floors Redis holds for these networks. */
  start(networks: readonly string[]): Promise<void>
  close(): Promise<void>
}

export function createRedisHeadFloorStore(connection: RedisConnection): RedisHeadFloorStore {
  const client = connection.client as ScriptedRedis
  if (typeof client.cgFloorRaise !== 'function') client.defineCommand('cgFloorRaise', { numberOfKeys: 2, lua: RAISE })
  const local = createMemoryHeadFloorStore()
  const channel = `${connection.prefix}floors`
  const hash = (network: string) => `${connection.prefix}floor:${network}`
  let sub: Redis | undefined
  const ignore = () => undefined

  return {
    get: (keyId, network) => local.get(keyId, network),
    raise(keyId, network, block) {
      const before = local.get(keyId, network)
      const floor = local.raise(keyId, network, block)
      if (floor > before)
        client.cgFloorRaise(hash(network), channel, keyId, floor, `r\0${network}\0${keyId}\0${floor}`).catch(ignore)
      return floor
    },
    reset(network) {
      const names = [...local.names()].filter((name) => name === network || name.startsWith(`${network}/`))
      local.reset(network)
      client
        .multi()
        .del(hash(network), ...names.map(hash))
        .publish(channel, `x\0${network}`)
        .exec()
        .catch(ignore)
    },
    async start(networks) {
      sub = connection.duplicate()
      sub.on('error', ignore)
      sub.on('message', (_channel: string, message: string) => {
        const [kind, network, keyId, block] = message.split('\0')
        if (kind === 'r' && network && keyId && block) local.raise(keyId, network, Number(block))
        else if (kind === 'x' && network) local.reset(network)
      })
      await sub.subscribe(channel)
      for (const network of networks) {
        const floors = await client.hgetall(hash(network))
        for (const [keyId, block] of Object.entries(floors)) local.raise(keyId, network, Number(block))
      }
    },
    async close() {
      if (!sub) return
      await sub.quit().catch(() => sub!.disconnect())
    },
  }
}
