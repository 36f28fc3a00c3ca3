/**
 * The Redis connection for shared hot state (config `redis.*`, docs/scale-out.md): one ioredis client per process
 * for commands. Commands fail fast while Redis is unreachable (no offline queue, a command timeout), so callers
 * can fall back to their per-replica insurance limits instead of waiting; ioredis keeps reconnecting behind.
 *
 * Pub/sub needs its own connection (a subscribed client takes no other commands): `duplicate()`.
 */
import { Redis, type RedisOptions } from 'ioredis'

export interface RedisConnection {
  readonly client: Redis
  /** Prefix of every key (config redis.keyPrefix). */
  readonly prefix: string
  /** Connected and answering (false while ioredis reconnects). */
  isReady(): boolean
  /** Called on every transition to ready (also after a reconnect) and to not ready. */
  onStateChange(listener: (ready: boolean) => void): void
  /** A second connection with the same settings (pub/sub). */
  duplicate(): Redis
  close(): Promise<void>
}

export interface RedisConnectionOptions {
  url: string
  prefix: string
  commandTimeoutMs: number
  /** Told about connection errors (already redacted: no password). */
  onError?: (message: string) => void
}

/** The URL without its password, for logs and errors. */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return 'redis://(unparseable URL)'
  }
}

function clientOptions(opts: RedisConnectionOptions): RedisOptions {
  return {
    lazyConnect: true,
    // While Redis is down a command fails at once (the caller falls back) instead of queueing behind reconnects.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: opts.commandTimeoutMs,
    connectTimeout: Math.max(1000, opts.commandTimeoutMs * 4),
    // Many small commands from concurrent requests share one write and one round trip.
    enableAutoPipelining: true,
    // Reconnect soon, then at most every 2 s: an outage ends within about 2 s of Redis coming back.
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2000),
  }
}

/** Connects (waits until Redis answers or fails with the redacted URL in the message). */
/** Redis down or refusing at start: the CLI prints the message alone (it names the redacted URL and why). */
export class RedisUnreachableError extends Error {
  override readonly name = 'RedisUnreachableError'
}

export async function connectRedis(opts: RedisConnectionOptions): Promise<RedisConnection> {
  const client = new Redis(opts.url, clientOptions(opts))
  const listeners: ((ready: boolean) => void)[] = []
  let ready = false
  let lastError = ''
  const set = (r: boolean) => {
    if (r === ready) return
    ready = r
    for (const l of listeners) l(r)
  }
  client.on('ready', () => set(true))
  client.on('close', () => set(false))
  client.on('end', () => set(false))
  client.on('error', (err: Error) => {
    // One line per distinct error, not one per reconnect attempt.
    if (err.message !== lastError) opts.onError?.(err.message.replaceAll(opts.url, redactRedisUrl(opts.url)))
    lastError = err.message
  })
  try {
    await client.connect()
  } catch (err) {
    client.disconnect()
    throw new RedisUnreachableError(`cannot connect to Redis at ${redactRedisUrl(opts.url)} (config redis.url): ${(err as Error).message}`)
  }
  ready = client.status === 'ready'
  client.on('ready', () => (lastError = ''))
  return {
    client,
    prefix: opts.prefix,
    isReady: () => ready,
    onStateChange: (l) => void listeners.push(l),
    duplicate: () => new Redis(opts.url, { ...clientOptions(opts), enableOfflineQueue: true, lazyConnect: false }),
    async close() {
      try {
        await client.quit()
      } catch {
        client.disconnect()
      }
    },
  }
}
