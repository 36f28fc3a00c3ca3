/**
 * Wires the Redis settings push (./redis-push.ts) to a database handle: every `bumpSettingsVersion` made through
 * `db` is published once it has run, and, when a key snapshot is given (a server), every message makes it check
 * `settings_version` at once. The CLI attaches without a snapshot: it only publishes.
 */
import type { Db } from '../db/database.ts'
import { onSettingsBumped } from '../db/settings-version.ts'
import type { Logger } from '../observability/logger.ts'
import { createRedisSettingsPush, SETTINGS_CHANNEL_SUFFIX } from './settings-push.ts'

/** Longest a server waits at start for its subscription (Redis down: it starts anyway and polls meanwhile). */
const SUBSCRIBE_WAIT_MS = 3000
/** Redis errors repeat on every reconnection attempt: one log line per this interval is enough. */
const ERROR_LOG_EVERY_MS = 10_000

export interface AttachedSettingsPush {
  close(): Promise<void>
}

export async function attachSettingsPush(opts: {
  url: string
  keyPrefix: string
  db: Db
  snapshot?: { refresh(): Promise<void> }
  logger?: Pick<Logger, 'warn'>
  /**
   * Redis was unreachable when the server started (already logged): do not wait for the subscription, nor log its
   * failures for the first interval. It comes up, and reloads, when Redis does.
   */
  unreachableAtStart?: boolean
}): Promise<AttachedSettingsPush> {
  let lastLogged = opts.unreachableAtStart ? Date.now() : 0
  const snapshot = opts.snapshot
  const push = createRedisSettingsPush({
    url: opts.url,
    channel: `${opts.keyPrefix}${SETTINGS_CHANNEL_SUFFIX}`,
    ...(snapshot ? { onChange: () => void snapshot.refresh() } : {}),
    onError: (err) => {
      const now = Date.now()
      if (now - lastLogged < ERROR_LOG_EVERY_MS) return
      lastLogged = now
      opts.logger?.warn(
        { err: (err as Error)?.message ?? String(err) },
        'settings push over Redis failed; replicas pick the change up at their next poll',
      )
    },
  })
  const undo = onSettingsBumped(opts.db, () => push.publish())
  if (snapshot && !opts.unreachableAtStart) {
    let timer: NodeJS.Timeout | undefined
    await Promise.race([push.ready, new Promise<void>((r) => (timer = setTimeout(r, SUBSCRIBE_WAIT_MS)))])
    clearTimeout(timer)
  }
  return {
    async close() {
      undo()
      await push.close()
    },
  }
}
