/**
 * `chaingate start`: checks the data dir lock and the ports first, then runs everything, prints what a newcomer
 * needs (key, URLs, a curl line that works when pasted) and keeps it visible (the log goes to a file in the local
 * setup), and stops everything on Ctrl-C / SIGTERM.
 */
import { join, resolve } from 'node:path'
import type { Config } from '../config/schema.ts'
import { ensureDevKey, startApp } from '../app.ts'
import { maskKey } from '../api-keys/repository.ts'
import { appOptions } from '../composition.ts'
import { createServiceLog } from '../observability/log-setup.ts'
import { checkPortsFree, lockDataDir, portInUseLine, StartRefused } from './preflight.ts'
import { startBanner } from './banner.ts'
import { resolves } from '../networks/name-resolution.ts'

export interface StartOptions {
  configFile?: string | undefined
  /** --log-requests: overrides config log.destination; `off` sets log.requests false. */
  logRequests?: 'file' | 'stdout' | 'off' | undefined
  version: string
}

export async function runStart(config: Config, options: StartOptions): Promise<number> {
  const dataDir = resolve(config.dataDir)
  let lock: { release(): void }
  try {
    lock = lockDataDir(dataDir)
    await checkPortsFree(config)
  } catch (err) {
    if (!(err instanceof StartRefused)) throw err
    process.stderr.write(`error: ${err.message}\n`)
    return 1
  }
  if (options.logRequests === 'off') config.log.requests = false
  const wanted = options.logRequests === 'file' || options.logRequests === 'stdout' ? options.logRequests : config.log.destination
  const to = wanted === 'auto' ? (config.networks.every((n) => n.embedded) ? 'file' : 'stdout') : wanted
  const log = createServiceLog({ level: config.log.level, to, file: join(dataDir, 'logs', 'chaingate.log') })
  // Looked up while the chains start; the answer orders the URLs in the banner.
  const hostsResolve = Promise.all(config.networks.map((n) => resolves(n.hosts?.[0] ?? `${n.name}.localhost`)))

  let app: Awaited<ReturnType<typeof startApp>>
  try {
    app = await startApp({ ...appOptions(config), logger: log.logger })
  } catch (err) {
    log.flush()
    lock.release()
    const line = portInUseLine(err, config)
    if (!line) throw err
    process.stderr.write(`error: ${line}\n`)
    return 1
  }
  let stopping = false
  const shutdown = (signal: string) => {
    if (stopping) return
    stopping = true
    app.logger.info({ signal }, 'stopping')
    const force = setTimeout(() => process.exit(1), 15_000)
    force.unref()
    app.stop().then(
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

  const key = await ensureDevKey(app)
  if (key) app.logger.info({ keyId: key.id, key: maskKey(key.key) }, 'dev key ready')
  const resolved = await hostsResolve
  process.stdout.write(
    startBanner({
      app,
      key,
      version: options.version,
      source: options.configFile ? `config ${options.configFile}` : 'embedded defaults',
      logFile: log.file,
      hostsResolve: Object.fromEntries(config.networks.map((n, i) => [n.name, resolved[i]!])),
    }),
  )
  return -1 // keep running
}
