/**
 * `chaingate start --workers N`: this process (the primary) runs what must exist once — the embedded chains, the
 * wallet (with its own in-process gateway for its reads, on no public port) and the dev key — then forks N workers
 * (node:cluster, https://nodejs.org/api/cluster.html) that share the gateway listener. Counters are shared through
 * Redis (`redis.url`; start refuses N > 1 without it) and changes reach every worker through Redis pub/sub.
 *
 * - A worker that dies is replaced (the listener keeps serving on the others meanwhile).
 * - SIGHUP: every process reloads its config in place (src/app/reload); SIGUSR2: rolling restart, one worker at a
 *   time: the new one listens before the old one drains.
 * - SIGTERM / SIGINT: every worker drains (src/app/drain.ts), then the wallet and the chains stop.
 */
import cluster, { type Worker } from 'node:cluster'
import { hostname } from 'node:os'
import type { ReloadAck } from '../../redis/reload-channel.ts'
import type { RunningApp } from '../build.ts'
import { startRole } from '../roles.ts'
import type { Config } from '../../config/schema.ts'
import type { Logger } from '../../observability/logger.ts'
import { drainDeadlineMs, ROLL_DRAIN_DELAY_MS, stopLogged } from '../drain.ts'
import { answerRelayedExplorerBatches } from './request-explorer-relay.ts'
import { isWorkerMessage, workerEnv, type EmbeddedUrls, type PrimaryMessage } from './protocol.ts'
import { workerExecArgv } from '../heap-growth.ts'

/**
 * A dead worker is replaced after this; one that died within RESTART_STABLE_MS of its start waits twice as long as the
 * last time, up to RESTART_MAX_DELAY_MS (a crash loop does not spin).
 */
const RESTART_DELAY_MS = 1000
const RESTART_STABLE_MS = 10_000
const RESTART_MAX_DELAY_MS = 30_000
/** A worker that has not told how its reload went within this is reported as not answering. */
const RELOAD_ANSWER_MS = 30_000

const noAnswer = (id: string, number: number, pid: number | undefined): ReloadAck => ({
  id,
  process: `${hostname()} pid ${pid} (worker ${number})`,
  ok: false,
  version: '',
  loadedAt: '',
  changes: [],
  error: `no answer within ${RELOAD_ANSWER_MS / 1000} s`,
})

export interface RunningCluster {
  /** The primary's own app (chains, wallet); its gateway listens on an internal port only. */
  app: RunningApp
  /** The shared gateway listener (what the workers report). */
  url: string
  operationsUrl?: string
  workerPids(): number[]
  /** Replaces every worker, one at a time, with no moment without a listener. */
  roll(): Promise<void>
  /** Tells every worker to reload its config (SIGHUP to the primary); one outcome per worker. */
  reloadWorkers(id: string): Promise<ReloadAck[]>
  stop(signal: string): Promise<void>
}

/** Why `--workers N` cannot run with this config, or undefined. */
export function workersProblem(config: Config, workers: number): string | undefined {
  if (workers > 1 && !config.redis.url)
    return (
      `--workers ${workers} needs Redis for the counters the workers share (daily balances, credits/s): ` +
      'set redis.url in the config or CHAINGATE_REDIS_URL (docs/deploy.md); ' +
      `without it each worker would count alone and serve up to ${workers}× every limit`
    )
  return undefined
}

export async function startCluster(
  config: Config,
  workers: number,
  logger: Logger,
  readConfig?: () => Config,
): Promise<RunningCluster> {
  // The kernel hands connections to the workers, which accept on the one shared socket (SCHED_NONE), rather than
  // the primary passing each to a worker in turn (SCHED_RR, Linux's default): a connection the primary passed to a
  // worker as it was killed would hang unanswered, while a connection waiting in the shared queue goes to a live one.
  cluster.schedulingPolicy = cluster.SCHED_NONE
  // Structured clone on the IPC channel: the request explorer's batches carry typed arrays
  // (./request-explorer-relay.ts).
  // The workers' young generation is smaller than V8's default (../heap-growth.ts).
  cluster.setupPrimary({ serialization: 'advanced', execArgv: workerExecArgv() })
  // The chains and the wallet, once; its gateway listens on an internal port only (src/app/roles.ts).
  const app = await startRole({ kind: 'cluster-primary' }, config, logger.child({ worker: 'primary' }), readConfig)

  const embedded: EmbeddedUrls = {}
  for (const n of config.networks) if (n.embedded) embedded[n.name] = app.upstreamUrls.get(n.name)!
  let stopping = false
  let listening: { url: string; operationsUrl?: string } | undefined
  const live = new Map<number, Worker>() // worker number → worker
  const exits = new WeakMap<Worker, Promise<void>>()

  const ready = new WeakMap<Worker, Promise<void>>()
  /** Starts worker `number`; its promise (also in `ready`) resolves once it listens. */
  const fork = (number: number): Worker => {
    const worker = cluster.fork(workerEnv(number, embedded))
    if (!config.database.url) answerRelayedExplorerBatches(worker, () => app.requestWriter)
    exits.set(worker, new Promise((r) => worker.once('exit', () => r())))
    const listens = new Promise<void>((resolve, reject) => {
      const onExit = (code: number | null, signal: string | null) =>
        reject(new Error(`worker ${number} exited before listening (${signal ?? `code ${code}`})`))
      worker.once('exit', onExit)
      worker.on('message', (m: unknown) => {
        if (!isWorkerMessage(m) || m.type === 'reloaded') return
        if (m.type === 'failed') return reject(new Error(`worker ${number} could not start: ${m.message}`))
        worker.off('exit', onExit)
        listening ??= { url: m.url, ...(m.operationsUrl ? { operationsUrl: m.operationsUrl } : {}) }
        resolve()
      })
    })
    listens.catch(() => {}) // observed by whoever awaits it; a replacement that fails is handled by its exit
    ready.set(worker, listens)
    return worker
  }
  /** Worker `number` is now `worker`: when it exits without being replaced on purpose, a new one starts. */
  const restartDelay = new Map<number, number>()
  const supervise = (number: number, worker: Worker) => {
    live.set(number, worker)
    const startedAt = Date.now()
    worker.once('exit', (code, signal) => {
      if (live.get(number) !== worker) return // replaced on purpose (rolling restart)
      live.delete(number)
      if (stopping) return
      const delayMs =
        Date.now() - startedAt < RESTART_STABLE_MS
          ? Math.min(2 * (restartDelay.get(number) ?? RESTART_DELAY_MS / 2), RESTART_MAX_DELAY_MS)
          : RESTART_DELAY_MS
      restartDelay.set(number, delayMs)
      logger.error(
        { worker: number, code, signal, restartInMs: delayMs },
        'worker exited unexpectedly; starting a replacement',
      )
      setTimeout(() => {
        if (!stopping && !live.has(number)) supervise(number, fork(number))
      }, delayMs).unref()
    })
  }
  const drain = async (worker: Worker, rolling = false) => {
    const exited = exits.get(worker)!
    if (!worker.isDead()) {
      if (rolling) worker.send({ type: 'drain', minDelayMs: ROLL_DRAIN_DELAY_MS } satisfies PrimaryMessage)
      else worker.process.kill('SIGTERM')
    }
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), drainDeadlineMs(config))))
    if ((await Promise.race([exited, deadline])) === 'late') worker.process.kill('SIGKILL')
    clearTimeout(timer)
    await exited
  }

  const started: Worker[] = []
  try {
    for (let i = 1; i <= workers; i++) started.push(fork(i))
    await Promise.all(started.map((w) => ready.get(w)))
    started.forEach((w, i) => supervise(i + 1, w))
  } catch (err) {
    stopping = true
    await Promise.all(started.map((w) => drain(w)))
    await app.stop()
    throw err
  }

  let rolling: Promise<void> | undefined
  return {
    app,
    url: listening!.url,
    ...(listening!.operationsUrl ? { operationsUrl: listening!.operationsUrl } : {}),
    workerPids: () => [...live.values()].map((w) => w.process.pid!),
    roll() {
      rolling ??= (async () => {
        for (const number of [...live.keys()].sort((x, y) => x - y)) {
          // A worker still starting (a replacement) is let finish first: it could not take a drain message yet.
          await ready.get(live.get(number)!)?.catch(() => {})
          const old = live.get(number)
          if (stopping || !old) break
          // The old worker serves until its successor listens; a successor that fails to start leaves it running.
          const next = fork(number)
          await ready.get(next)
          supervise(number, next)
          await drain(old, true)
        }
      })().finally(() => {
        rolling = undefined
      })
      return rolling
    },
    reloadWorkers: (id) =>
      Promise.all(
        [...live.entries()].map(
          ([number, worker]) =>
            new Promise<ReloadAck>((resolve) => {
              const timer = setTimeout(() => {
                worker.off('message', onMessage)
                resolve(noAnswer(id, number, worker.process.pid))
              }, RELOAD_ANSWER_MS)
              const onMessage = (m: unknown) => {
                if (!isWorkerMessage(m) || m.type !== 'reloaded' || m.ack.id !== id) return
                clearTimeout(timer)
                worker.off('message', onMessage)
                resolve(m.ack)
              }
              worker.on('message', onMessage)
              worker.send({ type: 'reload', id } satisfies PrimaryMessage)
            }),
        ),
      ),
    async stop(signal) {
      stopping = true
      const began = Date.now()
      logger.info({ signal, workers: live.size }, 'stopping: draining the workers')
      await Promise.all([...live.values()].map((w) => drain(w)))
      await stopLogged(app, signal, began)
    },
  }
}
