/**
 * Redis connections for a test file: `connection(prefix)` opens one on the test Redis (or `url`, e.g. a TCP proxy in
 * front of it) with a short command timeout; it and whatever is passed to `closeLater` are closed after each test,
 * newest first.
 */
import { afterEach } from 'vitest'
import { connectRedis, type RedisConnection } from '../../src/redis/connection.ts'
import { redisUrl } from './services.ts'

export function useRedisConnections(): {
  connection(prefix: string, url?: string): Promise<RedisConnection>
  closeLater(c: { close(): Promise<void> }): void
} {
  const opened: { close(): Promise<void> }[] = []
  afterEach(async () => {
    for (const c of opened.splice(0).reverse()) await c.close()
  })
  return {
    async connection(prefix, url = redisUrl) {
      const c = await connectRedis({ url, prefix, commandTimeoutMs: 300 })
      opened.push(c)
      return c
    },
    closeLater: (c) => void opened.push(c),
  }
}
