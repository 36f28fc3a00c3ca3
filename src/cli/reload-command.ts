/**
 * `chaingate reload [--config FILE] [--data-dir DIR]`: checks the file, then has every running chaingate re-read
 * its own config file and apply it in place (docs/config.md, "Reloading"), and prints each process's outcome. How
 * the processes are reached (Redis, else the data dir's SIGHUP) is src/app/reload/reach.ts, shared with
 * `POST /admin/v1/reload`.
 * Exit 0 when every process reloaded; 1 when the file is invalid (nothing is sent), a process refused or did not
 * answer, or none runs.
 */
import { randomBytes } from 'node:crypto'
import { resolve } from 'node:path'
import type { ConfigError } from '../config/load.ts'
import type { Config } from '../config/schema.ts'
import { ANSWER_MS, type ReloadEverywhere, reloadOverRedis, reloadThroughDataDir } from '../app/reload/reach.ts'
import { printLine } from './printable.ts'

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
  const { url, keyPrefix } = config.redis
  let result: ReloadEverywhere | string | undefined = url
    ? await reloadOverRedis({ url, keyPrefix }, id, (message) =>
        process.stderr.write(`warning: Redis unreachable (${message}); signalling this data dir's process\n`),
      )
    : undefined
  result ??= await reloadThroughDataDir(resolve(config.dataDir), id)
  if (typeof result === 'string') {
    printLine(process.stderr, `error: ${result}`)
    return 1
  }
  return report(result, Boolean(values.json))
}

function report(result: ReloadEverywhere, json: boolean): number {
  const { ok, expected, processes: acks } = result
  if (json) {
    printLine(process.stdout, JSON.stringify(result))
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
