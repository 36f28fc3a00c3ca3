/**
 * One `--workers N` worker: the gateway listener (port shared with the other workers by node:cluster) and the
 * dashboard, over the primary's embedded chains. It tells the primary when it is listening, and drains on SIGTERM,
 * on SIGINT (Ctrl-C reaches the whole process group) and when the primary goes away (its IPC channel closes).
 */
import cluster from 'node:cluster'
import type { RunningApp } from '../build.ts'
import { startRole } from '../roles.ts'
import type { Config } from '../../config/schema.ts'
import type { Logger } from '../../observability/logger.ts'
import { drainDeadlineMs, drainThenStop } from '../drain.ts'
import { processLabel, toAck } from '../reload/triggers.ts'
import { type Channel, createRelayedRequestWriter } from './request-explorer-relay.ts'
import { EMBEDDED_URLS_ENV, isPrimaryMessage, readWorkerEnv, type WorkerMessage } from './protocol.ts'

export function isClusterWorker(): boolean {
  return cluster.isWorker && process.env[EMBEDDED_URLS_ENV] !== undefined
}

export async function runWorker(
  config: Config,
  logger: Logger,
  onStopped: () => void,
  readConfig?: () => Config,
): Promise<number> {
  const send = (m: WorkerMessage) => process.send?.(m)
  const { number, embeddedUrls } = readWorkerEnv(process.env)
  let app: RunningApp
  try {
    // On SQLite the primary writes every worker's request explorer records (one writer thread, not one per worker).
    const requestWriter = config.database.url ? undefined : createRelayedRequestWriter(process as Channel)
    const role = { kind: 'cluster-worker', embeddedUrls, number, ...(requestWriter ? { requestWriter } : {}) } as const
    app = await startRole(role, config, logger.child({ worker: number }), readConfig)
  } catch (err) {
    onStopped()
    // The IPC channel would keep this process alive: exit once the primary has the message.
    const exit = () => process.exit(1)
    if (process.send)
      process.send({ type: 'failed', message: (err as Error)?.message ?? String(err) } satisfies WorkerMessage, exit)
    else exit()
    return 1
  }
  let stopping = false
  const shutdown = (signal: string, minDelayMs = 0) => {
    if (stopping) return
    stopping = true
    setTimeout(() => process.exit(1), drainDeadlineMs(config)).unref()
    drainThenStop(app, signal, minDelayMs).then(
      () => {
        onStopped()
        process.exit(0)
      },
      () => process.exit(1),
    )
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
  // The primary passes SIGHUP on as a message (below): ignore one sent to the whole group.
  process.on('SIGHUP', () => {})
  const label = processLabel(`worker ${number}`)
  // The primary is gone (even SIGKILLed): nothing supervises this worker or runs its chains any more.
  process.on('disconnect', () => shutdown('primary exited'))
  process.on('message', (m: unknown) => {
    if (!isPrimaryMessage(m)) return
    if (m.type === 'drain') shutdown('rolling restart', m.minDelayMs)
    else void app.reload().then((r) => send({ type: 'reloaded', ack: toAck(m.id, label, r) }))
  })
  send({ type: 'ready', url: app.url, ...(app.operationsUrl ? { operationsUrl: app.operationsUrl } : {}) })
  return -1
}
