/**
 * pino logger. Keys are never logged (lines carry the key's id); as a second line of defence, anything that
 * looks like a credential field is redacted.
 */
import pino from 'pino'

export type Logger = pino.Logger

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: ['key', 'apiKey', 'secret', 'password', 'mnemonic', 'privateKey', 'authorization', '*.key', '*.secret', '*.password', '*.authorization'],
        censor: '[redacted]',
      },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  )
}

export interface RequestLine {
  keyId: string | undefined
  network: string
  method: string
  calls: number
  status: number
  credits: number
  ms: number
}

export interface RequestLog {
  write(line: RequestLine): void
  /** Writes what is buffered (called on a timer and at stop). */
  flush(): void
}

/**
 * The gateway's one line per request, in the same JSON shape pino writes (level 30, time, msg "rpc"), to the
 * logger's destination. Lines are built from ids and numbers only (never a key, header or body), so they skip
 * pino's redaction, and they are written in batches every `flushMs` (or 64 KiB): a write per request cost about a
 * fifth of the gateway's CPU per call in bench/. A crash loses at most `flushMs` of request lines.
 */
export function createRequestLog(logger: Logger, flushMs = 100): RequestLog {
  const stream = (logger as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym]
  if (!stream || !logger.isLevelEnabled('info')) return { write() {}, flush() {} }
  let buffer = ''
  let timer: NodeJS.Timeout | undefined
  const flush = () => {
    if (timer) clearTimeout(timer)
    timer = undefined
    if (buffer.length === 0) return
    const out = buffer
    buffer = ''
    stream.write(out)
  }
  return {
    write(l) {
      buffer += `{"level":30,"time":${Date.now()},${l.keyId === undefined ? '' : `"keyId":${JSON.stringify(l.keyId)},`}"network":${JSON.stringify(l.network)},"method":${JSON.stringify(l.method)},"calls":${l.calls},"status":${l.status},"credits":${l.credits},"ms":${l.ms},"msg":"rpc"}\n`
      if (buffer.length >= 65_536) flush()
      else if (timer === undefined) {
        timer = setTimeout(flush, flushMs)
        timer.unref()
      }
    },
    flush,
  }
}
