/**
 * `chaingate reload [--config FILE] [--data-dir DIR]`: checks the file, then has every running chaingate re-read
 * its own config file and apply it in place (docs/config.md, "Reloading"), and prints each process's outcome:
 * - with `redis.url`: a request over Redis reaches every process of every replica (src/redis/reload-channel.ts);
 * - otherwise: SIGHUP to the process holding the data dir's lock (a `--workers` primary passes it on), whose
 *   outcome is read back from the data dir (src/app/reload/triggers.ts).
 * Exit 0 when every process reloaded; 1 when the file is invalid (nothing is sent), a process refused or did not
 * answer, or none runs.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { ConfigError } from '../config/load.ts'
import type { Config } from '../config/schema.ts'
import { PRIVATE_FILE_MODE } from '../db/private-files.ts'
import type { ReloadAck } from '../redis/reload-channel.ts'
import { RELOAD_REQUEST_FILE, RELOAD_RESULT_FILE, type ReloadResultFile } from '../app/reload/triggers.ts'
import { LOCK_FILE } from './preflight.ts'
import { printLine } from './printable.ts'

/** Longest wait for the processes' outcomes (a reload checks new nodes' eth_chainId: up to their timeout). */
const ANSWER_MS = 40_000
const POLL_MS = 50

export async function reloadCommand(values: {
  config?: unknown
  'data-dir'?: unknown
  json?: unknown
}): Promise<number> {
  const file = values.config as string | undefined
  const { loadConfig } = await import('../config/load.ts')
  let config: Config
  try {
    config = loadConfig(file, values['data-dir'] ? { dataDir: String(values['data-dir']) } : {})
  } catch (err) {
    if ((err as Error).name !== 'ConfigError') throw err
    printLine(process.stderr, `error: ${(err as ConfigError).line}; nothing was reloaded`)
    return 1
  }
  const id = randomBytes(8).toString('hex')
  let acks: ReloadAck[] | undefined
  let expected = 0
  if (config.redis.url) {
    const { broadcastReload } = await import('../redis/reload-channel.ts')
    try {
      const r = await broadcastReload({
        url: config.redis.url,
        keyPrefix: config.redis.keyPrefix,
        id,
        timeoutMs: ANSWER_MS,
      })
      if (r.receivers > 0) {
        acks = r.acks
        expected = r.receivers
      }
    } catch (err) {
      process.stderr.write(
        `warning: Redis unreachable (${(err as Error).message}); signalling this data dir's process\n`,
      )
    }
  }
  if (acks === undefined) {
    const bySignal = await signalDataDir(resolve(config.dataDir), id)
    if (typeof bySignal === 'string') {
      printLine(process.stderr, `error: ${bySignal}`)
      return 1
    }
    acks = bySignal
    expected = bySignal.length
  }
  return report(acks, expected, Boolean(values.json))
}

async function signalDataDir(dataDir: string, id: string): Promise<ReloadAck[] | string> {
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
      if (result.id === id) return result.processes.map((p) => ({ ...p, afterMs: Date.now() - sent }))
    } catch {}
    await new Promise((r) => setTimeout(r, POLL_MS))
  }
  return `chaingate (pid ${pid}) did not answer within ${ANSWER_MS / 1000} s; see its log`
}

function report(acks: ReloadAck[], expected: number, json: boolean): number {
  const ok = acks.length === expected && acks.length > 0 && acks.every((a) => a.ok)
  if (json) {
    printLine(process.stdout, JSON.stringify({ ok, expected, processes: acks }))
    return ok ? 0 : 1
  }
  for (const a of acks) {
    if (a.ok) {
      const what = a.changes.length > 0 ? a.changes.join('; ') : 'no change'
      printLine(process.stdout, `${a.process}: reloaded in ${a.afterMs} ms, config ${a.version} (${what})`)
      for (const w of a.warnings ?? []) printLine(process.stderr, `warning: ${a.process}: ${w}`)
    } else printLine(process.stderr, `error: ${a.process}: not reloaded, still config ${a.version}: ${a.error}`)
  }
  if (acks.length < expected)
    process.stderr.write(
      `error: ${expected - acks.length} of ${expected} processes did not answer within ${ANSWER_MS / 1000} s\n`,
    )
  return ok ? 0 : 1
}
