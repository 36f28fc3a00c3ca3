/**
 * A replica started while Redis is unreachable (docs/scale-out.md, "Started while Redis is unreachable"): it logs
 * one warning line, serves under the insurance limits with /healthz `degraded`, and what needs Redis at start (the
 * head floors' subscription and load) runs once Redis is reached. The limit store and the settings push catch up by
 * themselves (src/credits/limits/redis/store.ts, src/redis/settings-push.ts).
 */
import type { Logger } from '../observability/logger.ts'
import { redactRedisUrl, type RedisConnection } from './connection.ts'

/** The one line a replica logs when it starts without Redis (the URL without its password). */
export function logRedisUnreachableAtStart(
  logger: Pick<Logger, 'warn'>,
  redis: { url: string | null; insuranceShare: number },
  reason: string,
): void {
  const url = redactRedisUrl(redis.url ?? '')
  logger.warn(
    { redis: url, reason, insuranceShare: redis.insuranceShare },
    `Redis at ${url} unreachable at start (${reason}): ` +
      'serving under the per-replica insurance limits and /healthz degraded until it is reached',
  )
}

/**
 * Runs `start` now if Redis is reachable (and waits for it); otherwise once Redis is first reached, in the
 * background (a failure goes to `onError`). Returns a function that cancels a start not yet begun (at stop).
 */
export async function startWhenReachable(
  redis: RedisConnection,
  start: () => Promise<void>,
  onError: (err: Error) => void,
): Promise<() => void> {
  if (redis.isReady()) {
    await start()
    return () => undefined
  }
  let done = false
  redis.onStateChange((ready) => {
    if (!ready || done) return
    done = true
    start().catch(onError)
  })
  return () => void (done = true)
}
