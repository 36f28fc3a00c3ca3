/**
 * How a reload reaches a running process (docs/config.md, "Reloading"):
 * - SIGHUP to `chaingate start` (single process, or the `--workers` primary, which passes it to every worker): the
 *   outcome of each process is written to `<dataDir>/reload-result.json`, with the id `chaingate reload` left in
 *   `<dataDir>/reload-request` before signalling (how the CLI knows the answer is to its request);
 * - with Redis, a request published by `chaingate reload` (src/redis/reload-channel.ts): every process of every
 *   replica answers on its own.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import type { Logger } from '../../observability/logger.ts'
import { PRIVATE_FILE_MODE } from '../../db/private-files.ts'
import type { ReloadAck } from '../../redis/reload-channel.ts'
import type { ReloadResult } from './apply.ts'

export const RELOAD_REQUEST_FILE = 'reload-request'
export const RELOAD_RESULT_FILE = 'reload-result.json'

/** What the result file holds: the request's id (null: a SIGHUP sent by hand) and one outcome per process. */
export interface ReloadResultFile {
  id: string | null
  processes: ReloadAck[]
}

/** This process as the CLI names it: `<host> pid <pid> (<role>)`. */
export function processLabel(role: string): string {
  return `${hostname()} pid ${process.pid} (${role})`
}

export function toAck(id: string, process: string, r: ReloadResult): ReloadAck {
  return {
    id,
    process,
    ok: r.ok,
    version: r.version,
    loadedAt: r.loadedAt,
    changes: r.changes,
    ...(r.error ? { error: r.error } : {}),
    ...(r.warnings ? { warnings: r.warnings } : {}),
  }
}

/** The reload's outcome in the process's log: what changed, or the one line why nothing did. */
export function logReload(logger: Logger, r: ReloadResult): void {
  if (r.ok) logger.info({ version: r.version, changes: r.changes }, 'config reloaded')
  else logger.error({ version: r.version, error: r.error }, 'config not reloaded: the old config keeps serving')
}

/** Runs `reloadAll` on every SIGHUP (one at a time) and writes its outcomes for `chaingate reload`. */
export function reloadOnSighup(dataDir: string, reloadAll: (id: string) => Promise<ReloadAck[]>, logger: Logger) {
  let running: Promise<void> = Promise.resolve()
  const once = async () => {
    let id: string | null = null
    try {
      id = readFileSync(join(dataDir, RELOAD_REQUEST_FILE), 'utf8').trim() || null
    } catch {}
    const processes = await reloadAll(id ?? '')
    const file = join(dataDir, RELOAD_RESULT_FILE)
    // Written whole, then renamed: the CLI never reads half a file.
    writeFileSync(`${file}.tmp`, JSON.stringify({ id, processes } satisfies ReloadResultFile), {
      mode: PRIVATE_FILE_MODE,
    })
    renameSync(`${file}.tmp`, file)
  }
  process.on('SIGHUP', () => {
    running = running.then(once).catch((err) => logger.error({ err }, 'SIGHUP reload failed'))
  })
}
