/**
 * The Redis connection for shared hot state (config `redis.*`, docs/scale-out.md): one ioredis client per process
 * for commands. Commands fail fast while Redis is unreachable (no offline queue, a command timeout), so callers
 * can fall back to their per-replica insurance limits instead of waiting; ioredis keeps reconnecting behind.
 *
 * At start, a Redis that cannot be reached (refused, reset, timed out, a name that does not resolve yet) does not
 * stop the replica: the connection is returned not ready, with the reason, and ioredis goes on reconnecting (a
 * rolling restart or a pod rescheduled during a Redis outage keeps serving). A Redis that answers and refuses
 * (wrong password or user, TLS certificate rejected) is a configuration error: RedisRefusedError.
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
  /** Why Redis could not be reached at start (redacted), or undefined if it answered; it is retried meanwhile. */
  readonly unreachableAtStart: string | undefined
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
  /** Told about connection errors (already redacted: no password); not about the failed attempts at start. */
  onError?: (message: string) => void
  /** Longest the start waits for Redis before going on without it (default: the connect timeout). */
  startWaitMs?: number
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

const connectTimeoutMs = (opts: RedisConnectionOptions) => Math.max(1000, opts.commandTimeoutMs * 4)

function clientOptions(opts: RedisConnectionOptions): RedisOptions {
  return {
    lazyConnect: true,
    // While Redis is down a command fails at once (the caller falls back) instead of queueing behind reconnects.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: opts.commandTimeoutMs,
    connectTimeout: connectTimeoutMs(opts),
    // Many small commands from concurrent requests share one write and one round trip.
    enableAutoPipelining: true,
    // Reconnect soon, then at most every 2 s: an outage ends within about 2 s of Redis coming back.
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2000),
  }
}

/**
 * Redis answered and refused (credentials, TLS certificate): a configuration error; the CLI prints the message alone.
 */
export class RedisRefusedError extends Error {
  override readonly name = 'RedisRefusedError'
}

/** An answer from Redis refusing this client (not an outage): wrong password or user, no permission. */
const AUTH_REFUSED = /^(WRONGPASS|NOAUTH|NOPERM)\b|invalid (username-)?password/i
/** The TLS handshake rejected the server's certificate (Node's error codes). */
const TLS_REFUSED = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|^ERR_TLS|^ERR_SSL/

/** Whether an error met while connecting is Redis (or its certificate) refusing us, rather than Redis being away. */
export function isRedisRefusal(err: Error & { code?: unknown }): boolean {
  return (
    (err.name === 'ReplyError' && AUTH_REFUSED.test(err.message)) ||
    (typeof err.code === 'string' && TLS_REFUSED.test(err.code))
  )
}

/**
 * Connects: resolves once Redis answers, or once the first attempt failed (or `startWaitMs` passed) with Redis
 * unreachable — then `isReady()` is false, `unreachableAtStart` says why, and ioredis keeps reconnecting. Rejects
 * with RedisRefusedError when Redis answered and refused.
 */
export async function connectRedis(opts: RedisConnectionOptions): Promise<RedisConnection> {
  const client = new Redis(opts.url, clientOptions(opts))
  const url = redactRedisUrl(opts.url)
  const redact = (message: string) => message.replaceAll(opts.url, url)
  const listeners: ((ready: boolean) => void)[] = []
  let ready = false
  let lastError = ''
  let starting = true
  let startError: Error | undefined
  const set = (r: boolean) => {
    if (r === ready) return
    ready = r
    for (const l of listeners) l(r)
  }
  client.on('ready', () => set(true))
  client.on('close', () => set(false))
  client.on('end', () => set(false))
  client.on('error', (err: Error) => {
    // The start reports its own failure once; after it, one line per distinct error, not one per reconnect attempt.
    if (starting) startError ??= err
    else if (err.message !== lastError) opts.onError?.(redact(err.message))
    lastError = err.message
  })
  const waitMs = opts.startWaitMs ?? connectTimeoutMs(opts)
  let timer: NodeJS.Timeout | undefined
  const outcome = await Promise.race([
    client.connect().then(
      () => 'ready' as const,
      () => 'failed' as const,
    ),
    new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), waitMs))),
  ])
  clearTimeout(timer)
  starting = false
  if (outcome !== 'ready' && startError && isRedisRefusal(startError)) {
    client.disconnect()
    throw new RedisRefusedError(
      `Redis at ${url} (config redis.url) refused the connection: ${redact(startError.message)}`,
    )
  }
  ready = client.status === 'ready'
  const unreachableAtStart = ready
    ? undefined
    : redact(startError?.message ?? (outcome === 'timeout' ? `no answer within ${waitMs} ms` : 'connection closed'))
  client.on('ready', () => (lastError = ''))
  return {
    client,
    prefix: opts.prefix,
    isReady: () => ready,
    unreachableAtStart,
    onStateChange: (l) => void listeners.push(l),
    duplicate: () => new Redis(opts.url, { ...clientOptions(opts), enableOfflineQueue: true, lazyConnect: false }),
    async close() {
      // Still reconnecting (Redis away): nothing to say goodbye to.
      if (client.status !== 'ready') return client.disconnect()
      try {
        await client.quit()
      } catch {
        client.disconnect()
      }
    },
  }
}
