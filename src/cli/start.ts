/**
 * `chaingate start`: checks the data dir lock and the ports first, then runs everything, prints what a newcomer
 * needs (key, URLs, a curl line that works when pasted) and keeps it visible (the log goes to a file in the local
 * setup), and stops everything on Ctrl-C / SIGTERM.
 */
import { join, resolve } from 'node:path'
import type { Config } from '../config/schema.ts'
import type { RunningApp } from '../app/build.ts'
import { startRole } from '../app/roles.ts'
import { maskKey } from '../keys/repository.ts'
import { createServiceLog } from '../observability/log-setup.ts'
import { checkPortsFree, lockDataDir, portInUseLine, StartRefused } from './preflight.ts'
import { startBanner } from './banner.ts'
import { resolves } from '../networks/name-resolution.ts'
import { drainDeadlineMs, drainThenStop } from '../app/drain.ts'
import { isClusterWorker, runWorker } from '../app/cluster/worker.ts'
import { applyHeapGrowing, heapGrowingPercent } from '../app/heap-growth.ts'
import type { RunningCluster } from '../app/cluster/primary.ts'
import { processLabel, reloadOnSighup, toAck } from '../app/reload/triggers.ts'
import { printLine } from './printable.ts'

export interface StartOptions {
  configFile?: string | undefined
  /** --log-requests: overrides config log.destination; `off` sets log.requests false. */
  logRequests?: 'file' | 'stdout' | 'off' | undefined
  version: string
  /** --workers N: N gateway processes sharing the listener (src/app/cluster); N > 1 needs redis.url. */
  workers?: number | undefined
  /** Reads the config file again with the same command-line overrides (`chaingate reload`, SIGHUP). */
  readConfig?: () => Config
}

export async function runStart(config: Config, options: StartOptions): Promise<number> {
  const dataDir = resolve(config.dataDir)
  const workers = options.workers ?? 1
  applyHeapGrowing(heapGrowingPercent(config.gateway.heapGrowingPercent, isClusterWorker() || workers > 1))
  if (isClusterWorker()) {
    // A `--workers` worker: the primary holds the data-dir lock, checked the ports and prints the banner.
    const log = createServiceLog({
      level: config.log.level,
      to: logDestination(config, options),
      file: join(dataDir, 'logs', 'chaingate.log'),
    })
    if (options.logRequests === 'off') config.log.requests = false
    return runWorker(config, log.logger, () => log.flush(), options.readConfig)
  }
  const { workersProblem } = await import('../app/cluster/primary.ts')
  const problem = workersProblem(config, workers)
  if (problem) {
    printLine(process.stderr, `error: ${problem}`)
    return 1
  }
  let lock: { release(): void }
  try {
    lock = lockDataDir(dataDir)
    await checkPortsFree(config)
  } catch (err) {
    if (!(err instanceof StartRefused)) throw err
    printLine(process.stderr, `error: ${err.message}`)
    return 1
  }
  if (options.logRequests === 'off') config.log.requests = false
  const logTo = logDestination(config, options)
  const log = createServiceLog({ level: config.log.level, to: logTo, file: join(dataDir, 'logs', 'chaingate.log') })
  // Looked up while the chains start; the answer orders the URLs in the banner.
  const hostsResolve = Promise.all(config.networks.map((n) => resolves(n.hosts?.[0] ?? `${n.name}.localhost`)))

  let app: RunningApp
  let cluster: RunningCluster | undefined
  try {
    if (workers > 1) {
      const { startCluster } = await import('../app/cluster/primary.ts')
      cluster = await startCluster(config, workers, log.logger, options.readConfig)
      app = cluster.app
    } else app = await startRole({ kind: 'single' }, config, log.logger, options.readConfig)
  } catch (err) {
    log.flush()
    lock.release()
    const line = portInUseLine(err, config)
    if (!line) throw err
    printLine(process.stderr, `error: ${line}`)
    return 1
  }
  let stopping = false
  const shutdown = (signal: string) => {
    if (stopping) return
    stopping = true
    app.logger.info({ signal }, 'stopping')
    const force = setTimeout(() => process.exit(1), drainDeadlineMs(config) + 5000)
    force.unref()
    ;(cluster ? cluster.stop(signal) : drainThenStop(app, signal)).then(
      () => {
        log.flush()
        lock.release()
        process.exit(0)
      },
      () => process.exit(1),
    )
  }
  process.on('SIGINT', () => shutdown('SIGINT'))
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  // SIGHUP: reload the config in place, every worker too (docs/config.md, "Reloading").
  const self = processLabel(cluster ? 'primary' : 'single')
  const running = cluster
  reloadOnSighup(
    dataDir,
    async (id) => [toAck(id, self, await app.reload()), ...(running ? await running.reloadWorkers(id) : [])],
    app.logger,
  )
  if (running) {
    // SIGUSR2: a rolling restart (a new Node.js version or chaingate build), one worker at a time.
    process.on('SIGUSR2', () => {
      app.logger.info({ workers }, 'SIGUSR2: restarting the workers one at a time')
      running.roll().then(
        () => app.logger.info({ pids: running.workerPids() }, 'rolling restart done'),
        (err) => app.logger.error({ err }, 'rolling restart failed'),
      )
    })
  }

  const key = await app.ensureDevKey()
  if (key) app.logger.info({ keyId: key.id, key: maskKey(key.key) }, 'dev key ready')
  const resolved = await hostsResolve
  let banner = startBanner({
    app: cluster ? { ...app, url: cluster.url } : app,
    key,
    version: options.version,
    source: options.configFile ? `config ${options.configFile}` : 'embedded defaults',
    logFile: log.file,
    hostsResolve: Object.fromEntries(config.networks.map((n, i) => [n.name, resolved[i]!])),
  })
  if (cluster) {
    // Under the gateway line: the processes that serve it.
    const pids = cluster.workerPids().join(', ')
    const line =
      `  workers:   ${workers} gateway processes (pids ${pids}) share this listener; ` +
      'counters in Redis; SIGHUP reloads the config, SIGUSR2 restarts them one at a time'
    banner = banner.replace(/^( {2}gateway: .*)$/m, `$1\n${line}`)
  }
  // With the log on stdout, stdout stays pure JSON lines (what a log shipper parses); the banner goes to stderr.
  const bannerTo = logTo === 'stdout' ? process.stderr : process.stdout
  bannerTo.write(banner)
  return -1 // keep running
}

function logDestination(config: Config, options: StartOptions): 'file' | 'stdout' {
  const wanted =
    options.logRequests === 'file' || options.logRequests === 'stdout' ? options.logRequests : config.log.destination
  return wanted === 'auto' ? (config.networks.every((n) => n.embedded) ? 'file' : 'stdout') : wanted
}
