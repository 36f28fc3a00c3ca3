/**
 * Settings changes pushed to every replica over Redis pub/sub (https://redis.io/docs/latest/develop/interact/pubsub/):
 * a key revoked, a network disabled, a limit or a plan changed on one replica (dashboard), or by the CLI, is
 * announced on one channel once the write has committed (`bumpSettingsVersion`, src/db/settings-version.ts), and
 * every replica subscribed reloads its key snapshot at once instead of waiting for its next poll.
 *
 * The message carries nothing but the fact of a change: each replica re-reads `settings_version` and the keys from
 * the database, so a message lost or repeated can do no harm. Pub/sub does not queue messages for a subscriber
 * that is disconnected, so once each subscription is confirmed — the first (Redis may have been unreachable when the
 * replica started) and after every reconnection — the subscriber reloads once too; the snapshot keeps a slow poll
 * (`gateway.settingsPushPollMs`) as a safety net.
 */
import { Redis } from 'ioredis'

export interface SettingsPush {
  /** Announces a committed change to every replica (this one included). Never rejects. */
  publish(): Promise<void>
  /** Resolves once the subscription is active (the first one; later reconnections happen by themselves). */
  ready: Promise<void>
  close(): Promise<void>
}

export interface SettingsPushOptions {
  url: string
  /** The channel name: one per deployment sharing a Redis. */
  channel: string
  /** Called on every message and once every (re)subscription is confirmed; omit for a publisher only (the CLI). */
  onChange?: () => void
  onError?: (err: unknown) => void
  /** Longest a publish may wait for Redis (the CLI must not hang when Redis is down; the poll catches up). */
  publishTimeoutMs?: number
}

export const SETTINGS_CHANNEL_SUFFIX = 'settings-changed'

export function createRedisSettingsPush(opts: SettingsPushOptions): SettingsPush {
  const onError = opts.onError ?? (() => {})
  const publishTimeoutMs = opts.publishTimeoutMs ?? 2000
  // Failing fast rather than queueing while disconnected: a change made then is caught by the reload that follows
  // each reconnection of the subscribers, or by their poll.
  const publisher = new Redis(opts.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectionName: 'chaingate-settings-pub',
  })
  publisher.on('error', onError)
  let publisherConnecting: Promise<void> | undefined
  const connectPublisher = () =>
    (publisherConnecting ??= publisher.connect().catch((err) => {
      publisherConnecting = undefined
      throw err
    }))

  let subscriber: Redis | undefined
  let ready: Promise<void> = Promise.resolve()
  if (opts.onChange) {
    const onChange = opts.onChange
    // A connection in subscriber mode can do nothing else: it is this module's own.
    const sub = new Redis(opts.url, {
      connectionName: 'chaingate-settings-sub',
      maxRetriesPerRequest: null,
      retryStrategy: (times) => Math.min(100 * times, 500),
    })
    subscriber = sub
    sub.on('error', onError)
    sub.on('message', (channel: string) => {
      if (channel === opts.channel) onChange()
    })
    let first = true
    ready = new Promise<void>((resolve) => {
      // After a reconnection ('ready' again) anything published meanwhile was not delivered: subscribe (ioredis would
      // too, after this event; subscribing twice is harmless) and reload once the subscription is confirmed, so no
      // change can fall between the reload and the subscription.
      sub.on('ready', () => {
        if (!first) sub.subscribe(opts.channel).then(onChange, onError)
      })
      // The first subscription waits in ioredis's queue while Redis is unreachable; changes made before it is
      // confirmed were not delivered either, so it reloads too (a settings_version read when nothing changed).
      sub
        .subscribe(opts.channel)
        .then(onChange, onError)
        .finally(() => {
          first = false
          resolve()
        })
    })
  }

  return {
    ready,
    async publish() {
      let timer: NodeJS.Timeout | undefined
      try {
        await Promise.race([
          (async () => {
            if (publisher.status !== 'ready') await connectPublisher()
            await publisher.publish(opts.channel, '1')
          })(),
          new Promise((_, reject) => {
            timer = setTimeout(
              () => reject(new Error(`publishing a settings change to Redis took over ${publishTimeoutMs} ms`)),
              publishTimeoutMs,
            )
          }),
        ])
      } catch (err) {
        onError(err)
      } finally {
        clearTimeout(timer)
      }
    },
    async close() {
      publisher.disconnect()
      if (subscriber) subscriber.disconnect()
    },
  }
}
