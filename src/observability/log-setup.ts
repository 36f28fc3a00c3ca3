/**
 * Where `chaingate start` writes its log. `stdout`: every line as JSON on stdout (a supervisor or container
 * collects them). `file`: the JSON lines (one per request, and the info messages) go to a private file in the data
 * dir, and the terminal keeps the start banner visible, showing only warnings and errors, one readable line each
 * on stderr.
 */
import { dirname } from 'node:path'
import pino from 'pino'
import { ensurePrivateDir, ensurePrivateFile } from '../db/private-files.ts'
import { createLogger, type Logger } from './logger.ts'

export interface ServiceLog {
  logger: Logger
  /** The log file, when lines go to one. */
  file?: string
  /** Writes out what is buffered (at exit). */
  flush(): void
}

export function createServiceLog(opts: {
  level: string
  to: 'file' | 'stdout'
  file: string
  terminal?: { write(text: string): unknown }
}): ServiceLog {
  if (opts.to === 'stdout') {
    const logger = createLogger(opts.level)
    return { logger, flush: () => logger.flush() }
  }
  ensurePrivateDir(dirname(opts.file))
  ensurePrivateFile(opts.file)
  const fileStream = pino.destination({ dest: opts.file, sync: false, append: true })
  const terminal = opts.terminal ?? process.stderr
  const streams = pino.multistream([
    { level: 'warn', stream: { write: (line: string) => terminal.write(readableLine(line)) } },
    { level: 'trace', stream: fileStream },
  ])
  const logger = createLogger(opts.level, streams)
  return {
    logger,
    file: opts.file,
    flush: () => {
      try {
        fileStream.flushSync()
      } catch {
        // not open yet, or already closed: nothing buffered to lose
      }
    },
  }
}

const LEVELS: Record<number, string> = { 40: 'warning', 50: 'error', 60: 'fatal' }

/** A pino JSON line as `chaingate warning: <msg> (field=value, …)`; an error's message, not its stack. */
export function readableLine(line: string): string {
  let entry: Record<string, unknown>
  try {
    entry = JSON.parse(line) as Record<string, unknown>
  } catch {
    return line
  }
  const { level, time: _time, msg, err, ...fields } = entry
  const parts = Object.entries(fields).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
  if (err && typeof err === 'object')
    parts.push(`error=${String((err as { message?: unknown }).message ?? JSON.stringify(err))}`)
  return `chaingate ${LEVELS[level as number] ?? 'log'}: ${String(msg ?? '')}${
    parts.length ? ` (${parts.join(', ')})` : ''
  }\n`
}
