/**
 * Reaching every running chaingate process with a reload, shared by `chaingate reload` and `POST /admin/v1/reload`
 * (docs/config.md, "Reloading"), so a reload through the balancer reaches the same processes as the CLI's:
 * - with `redis.url`: a request over Redis reaches every process of every replica (src/redis/reload-channel.ts);
 * - otherwise: SIGHUP to the process holding the data dir's lock (a `--workers` primary passes it on), whose
 *   outcome is read back from the data dir (./triggers.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PRIVATE_FILE_MODE } from '../../db/private-files.ts'
import type { ReloadAck } from '../../redis/reload-channel.ts'
import { RELOAD_REQUEST_FILE, RELOAD_RESULT_FILE, type ReloadResultFile } from './triggers.ts'

/** The data dir's lock file (`chaingate start` writes its pid there). */
export const LOCK_FILE = 'chaingate.lock'
/** Longest wait for the processes' outcomes (a reload checks new nodes' eth_chainId: up to their timeout). */
export const ANSWER_MS = 40_000
const POLL_MS = 50

/** Every process's outcome: `expected` processes got the request, `processes` answered. */
export interface ReloadEverywhere {
  ok: boolean
  expected: number
  processes: ReloadAck[]
}

export function everywhere(processes: ReloadAck[], expected: number): ReloadEverywhere {
  const ok = processes.length === expected && processes.length > 0 && processes.every((a) => a.ok)
  return { ok, expected, processes }
}

/**
 * Publishes the reload on Redis and collects every process's outcome; undefined when no process listens there or
 * Redis cannot be reached (`onUnreachable` says why), so the caller falls back to the data dir.
 */
export async function reloadOverRedis(
  redis: { url: string; keyPrefix: string },
  id: string,
  onUnreachable: (message: string) => void,
): Promise<ReloadEverywhere | undefined> {
  const { broadcastReload } = await import('../../redis/reload-channel.ts')
  try {
    const r = await broadcastReload({ url: redis.url, keyPrefix: redis.keyPrefix, id, timeoutMs: ANSWER_MS })
    return r.receivers > 0 ? everywhere(r.acks, r.receivers) : undefined
  } catch (err) {
    onUnreachable((err as Error).message)
    return undefined
  }
}

/** SIGHUP to the data dir's process and its outcomes read back; a string says why nothing was reloaded. */
export async function reloadThroughDataDir(dataDir: string, id: string): Promise<ReloadEverywhere | string> {
  let pid: number
  try {
    pid = Number.parseInt(readFileSync(join(dataDir, LOCK_FILE), 'utf8'), 10)
  } catch {
    return `no chaingate runs on the data dir ${dataDir} (no ${LOCK_FILE}); nothing was reloaded`
  }
  // A lock left by a crash may name a pid reused since by another program: never signal that one.
  let cmdline = ''
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
  } catch {}
  if (cmdline !== '' && !/chaingate|node/.test(cmdline))
    return `pid ${pid} in ${join(dataDir, LOCK_FILE)} is not chaingate (a stale lock?); nothing was reloaded`
  writeFileSync(join(dataDir, RELOAD_REQUEST_FILE), `${id}\n`, { mode: PRIVATE_FILE_MODE })
  try {
    process.kill(pid, 'SIGHUP')
  } catch {
    return `no chaingate runs on the data dir ${dataDir} (pid ${pid} is gone); nothing was reloaded`
  }
  const sent = Date.now()
  const deadline = sent + ANSWER_MS
  while (Date.now() < deadline) {
    try {
      const result = JSON.parse(readFileSync(join(dataDir, RELOAD_RESULT_FILE), 'utf8')) as ReloadResultFile
      if (result.id === id) {
        const processes = result.processes.map((p) => ({ ...p, afterMs: Date.now() - sent }))
        return everywhere(processes, processes.length)
      }
    } catch {}
    await new Promise((r) => setTimeout(r, POLL_MS))
  }
  return `chaingate (pid ${pid}) did not answer within ${ANSWER_MS / 1000} s; see its log`
}
