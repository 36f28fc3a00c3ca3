/**
 * What `chaingate start` checks before it starts anything (database, anvil, listeners): that no other chaingate
 * uses the data dir (a lock file holding the pid), and that the fixed ports are free. Two servers on one data dir
 * used to start two anvils on the same state files and end in a stack trace; now each case is one line.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import type { Config } from '../config/schema.ts'
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../db/private-files.ts'
import { LOCK_FILE } from '../app/reload/reach.ts'
import { portHolderClause } from './port-holder.ts'

/** The data dir's lock (one source: src/app/reload/reach.ts, which signals its pid). */
export { LOCK_FILE }

/** A refusal to start that the CLI prints as one line (exit code 1). */
export class StartRefused extends Error {
  override name = 'StartRefused'
}

/** Whether a process with this pid runs (EPERM: it runs, as another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Takes `<dataDir>/chaingate.lock` (created exclusively, with this pid). A lock whose pid no longer runs is stale
 * (a crash or kill -9) and is taken over. `release()` removes it only while it is still ours.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  ensurePrivateDir(dataDir)
  const file = join(dataDir, LOCK_FILE)
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number
    try {
      fd = openSync(file, 'wx', PRIVATE_FILE_MODE)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const text = readTextOrEmpty(file)
      const pid = Number.parseInt(text, 10)
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid))
        throw new StartRefused(
          `the data dir ${dataDir} is in use by another chaingate (pid ${pid}); stop it first, ` +
            `or use another --data-dir (if pid ${pid} is not chaingate, delete ${file})`,
        )
      // Stale (dead pid) or unreadable (a crash between create and write): take it over.
      try {
        unlinkSync(file)
      } catch {}
      continue
    }
    writeSync(fd, `${process.pid}\n`)
    closeSync(fd)
    let released = false
    const release = () => {
      if (released) return
      released = true
      if (readTextOrEmpty(file).trim() === String(process.pid))
        try {
          unlinkSync(file)
        } catch {}
    }
    process.once('exit', release)
    return { release }
  }
  throw new StartRefused(`cannot take the lock ${file}; another chaingate may be starting on the same data dir`)
}

function readTextOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}

/** The fixed ports a start would bind, each with the config key that sets it (port 0 = any free one: skipped). */
export function fixedPorts(config: Config): { host: string; port: number; key: string }[] {
  const ports = [{ host: config.gateway.host, port: config.gateway.port, key: 'gateway.port in the config, or --port' }]
  if (config.wallet.enabled)
    ports.push({ host: config.wallet.host, port: config.wallet.port, key: 'wallet.port in the config' })
  const ops = config.gateway.operations.listen
  if (ops) ports.push({ host: ops.host, port: ops.port, key: 'gateway.operations.listen.port in the config' })
  config.networks.forEach((n, i) => {
    if (n.embedded)
      ports.push({
        host: '127.0.0.1',
        port: n.embedded.port,
        key: `networks[${i}].embedded.port (${n.name}) in the config`,
      })
  })
  return ports.filter((p) => p.port !== 0)
}

/** Binds and releases each fixed port; the first busy one is refused with a line naming it and its config key. */
export async function checkPortsFree(config: Config): Promise<void> {
  const seen = new Map<number, string>()
  for (const p of fixedPorts(config)) {
    const other = seen.get(p.port)
    if (other !== undefined)
      throw new StartRefused(
        `port ${p.port} is configured twice (${other}; ${p.key}); choose another port for one of them`,
      )
    seen.set(p.port, p.key)
    const problem = await tryBind(p.host, p.port)
    if (problem === 'EADDRINUSE')
      throw new StartRefused(
        `port ${p.port} is already in use (${p.key}); ` +
          `stop the other process or choose another port${portHolderClause(p.port)}`,
      )
    if (problem) throw new StartRefused(`cannot listen on ${p.host}:${p.port} (${p.key}): ${problem}`)
  }
}

function tryBind(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message))
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)))
  })
}

/** A listener that failed with EADDRINUSE after the checks (another process took the port meanwhile), as one line. */
export function portInUseLine(err: unknown, config: Config): string | undefined {
  const e = err as NodeJS.ErrnoException & { port?: number }
  const code = e?.code
  if (code !== 'EADDRINUSE' && code !== 'ANVIL_PORT_IN_USE' && code !== 'SOLANA_DEVNET_PORT_IN_USE') return undefined
  const port = e.port ?? Number(/:(\d+)/.exec(e.message ?? '')?.[1])
  const known = fixedPorts(config).find((p) => p.port === port)
  const holder = Number.isFinite(port) ? portHolderClause(port) : ''
  const which = known ? ` (${known.key})` : ''
  return (
    `port ${Number.isFinite(port) ? port : '(unknown)'} is already in use${which}; ` +
    `stop the other process or choose another port${holder}`
  )
}
