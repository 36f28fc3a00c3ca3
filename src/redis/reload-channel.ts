/**
 * `chaingate reload` over Redis pub/sub (https://redis.io/docs/latest/commands/publish/): the CLI publishes a
 * request id on `<prefix>reload`; every chaingate process on that Redis (each replica, each `--workers` worker)
 * re-reads its own config file, applies it, and publishes its outcome on `<prefix>reload-done`. PUBLISH answers
 * how many subscribers got the request, so the CLI knows how many outcomes to wait for.
 */
import { Redis } from 'ioredis'

export const RELOAD_CHANNEL_SUFFIX = 'reload'
export const RELOAD_DONE_CHANNEL_SUFFIX = 'reload-done'

/** One process's outcome (the CLI prints one line per process). */
export interface ReloadAck {
  id: string
  /** `<host> pid <pid>` and its role (`worker 2`, `primary`). */
  process: string
  ok: boolean
  version: string
  loadedAt: string
  changes: string[]
  error?: string
  /** Applied, but a step after the swap failed: one line each (src/app/reload/apply.ts). */
  warnings?: string[]
  /** Filled in by the CLI: from its request to this answer. */
  afterMs?: number
}

export interface ReloadListener {
  /** Resolves once subscribed (or failed to: Redis down; it subscribes when Redis is back). */
  ready: Promise<void>
  close(): Promise<void>
}

/** A server's side: every request runs `reload` and its outcome is published. */
export function listenForReloads(opts: {
  url: string
  keyPrefix: string
  reload: (id: string) => Promise<ReloadAck>
  onError: (err: unknown) => void
}): ReloadListener {
  const sub = new Redis(opts.url, {
    connectionName: 'chaingate-reload-sub',
    maxRetriesPerRequest: null,
    retryStrategy: (times) => Math.min(100 * times, 1000),
  })
  const pub = new Redis(opts.url, {
    connectionName: 'chaingate-reload-pub',
    maxRetriesPerRequest: 1,
    retryStrategy: (times) => Math.min(100 * times, 1000),
  })
  sub.on('error', opts.onError)
  pub.on('error', opts.onError)
  const channel = `${opts.keyPrefix}${RELOAD_CHANNEL_SUFFIX}`
  sub.on('message', (ch: string, message: string) => {
    if (ch !== channel) return
    let id: string
    try {
      id = String((JSON.parse(message) as { id?: unknown }).id ?? '')
    } catch {
      return
    }
    opts
      .reload(id)
      .then((ack) => pub.publish(`${opts.keyPrefix}${RELOAD_DONE_CHANNEL_SUFFIX}`, JSON.stringify(ack)))
      .catch(opts.onError)
  })
  const ready = sub.subscribe(channel).then(
    () => undefined,
    (err) => opts.onError(err),
  )
  return {
    ready,
    async close() {
      sub.disconnect()
      pub.disconnect()
    },
  }
}

/**
 * The CLI's side: publishes one request and collects the outcomes of every process that got it (within
 * `timeoutMs`; a process that did not answer by then is reported as such).
 */
export async function broadcastReload(opts: {
  url: string
  keyPrefix: string
  id: string
  timeoutMs: number
}): Promise<{ receivers: number; acks: ReloadAck[] }> {
  const options = { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null, enableOfflineQueue: false }
  const sub = new Redis(opts.url, { ...options, connectionName: 'chaingate-reload-cli-sub' })
  const pub = new Redis(opts.url, { ...options, connectionName: 'chaingate-reload-cli-pub' })
  sub.on('error', () => undefined)
  pub.on('error', () => undefined)
  try {
    await Promise.all([sub.connect(), pub.connect()])
    const acks: ReloadAck[] = []
    let receivers = Number.POSITIVE_INFINITY
    let sent = 0
    let done: () => void = () => undefined
    const all = new Promise<void>((resolve) => (done = resolve))
    sub.on('message', (_ch: string, message: string) => {
      try {
        const ack = JSON.parse(message) as ReloadAck
        if (ack.id !== opts.id) return
        acks.push({ ...ack, afterMs: Date.now() - sent })
        if (acks.length >= receivers) done()
      } catch {}
    })
    await sub.subscribe(`${opts.keyPrefix}${RELOAD_DONE_CHANNEL_SUFFIX}`)
    sent = Date.now()
    receivers = await pub.publish(`${opts.keyPrefix}${RELOAD_CHANNEL_SUFFIX}`, JSON.stringify({ id: opts.id }))
    if (acks.length >= receivers) done()
    let timer: NodeJS.Timeout | undefined
    await Promise.race([all, new Promise<void>((r) => (timer = setTimeout(r, opts.timeoutMs)))])
    clearTimeout(timer)
    return { receivers, acks }
  } finally {
    sub.disconnect()
    pub.disconnect()
  }
}
