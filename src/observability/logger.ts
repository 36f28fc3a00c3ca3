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
  /** Answered from the cache or by a shared call in flight (docs/caching.md); charged like any call. */
  source?: 'cache' | 'dedup' | undefined
}

export interface RequestLog {
  write(line: RequestLine): void
  /** Writes what is buffered (called on a timer and at stop). */
  flush(): void
}

/** Longest method name written to a request line; a client can send any string as a method. */
const MAX_LOGGED_METHOD = 128

/**
 * The gateway's one line per request, in the same JSON shape pino writes (level 30, time, msg "rpc"), to the
 * logger's destination. Lines are built from ids and numbers only (never a key, header or body), so they skip
 * pino's redaction. Each line is copied at once into a preallocated byte buffer that is written out every
 * `flushMs` (or when full): a write per request cost about a fifth of the gateway's CPU per call in bench/, and
 * keeping the lines as JavaScript strings until the flush cost as much again in garbage collection (thousands of
 * small strings surviving young-generation collections). A crash loses at most `flushMs` of request lines.
 */
export function createRequestLog(logger: Logger, flushMs = 100, capacity = 65_536): RequestLog {
  const root = (logger as unknown as Record<symbol, pino.DestinationStream & { streams?: { level: number; stream: pino.DestinationStream }[] }>)[pino.symbols.streamSym]
  // A multistream (src/observability/log-setup.ts: terminal for warnings, file for the rest): the lines go to the
  // streams that take info lines.
  const targets = root?.streams ? root.streams.filter((s) => s.level <= 30).map((s) => s.stream) : root ? [root] : []
  if (targets.length === 0 || !logger.isLevelEnabled('info')) return { write() {}, flush() {} }
  const stream = targets.length === 1 ? targets[0]! : { write: (text: string) => targets.forEach((t) => t.write(text)) }
  const buffer = Buffer.allocUnsafe(capacity)
  let used = 0
  let timer: NodeJS.Timeout | undefined
  const flush = () => {
    if (timer) clearTimeout(timer)
    timer = undefined
    if (used === 0) return
    // The destination may hold on to what it is given until its write completes: hand it its own string.
    stream.write(buffer.toString('utf8', 0, used))
    used = 0
  }
  return {
    write(l) {
      const method = l.method.length > MAX_LOGGED_METHOD ? `${l.method.slice(0, MAX_LOGGED_METHOD)}…` : l.method
      const line = `{"level":30,"time":${Date.now()},${l.keyId === undefined ? '' : `"keyId":"${l.keyId}",`}"network":"${l.network}","method":${JSON.stringify(method)},"calls":${l.calls},"status":${l.status},"credits":${l.credits},"ms":${l.ms},${l.source === undefined ? '' : `"source":"${l.source}",`}"msg":"rpc"}\n`
      // A UTF-8 character takes at most 3 bytes per UTF-16 unit.
      if (used + line.length * 3 > capacity) {
        flush()
        if (line.length * 3 > capacity) {
          stream.write(line)
          return
        }
      }
      used += buffer.write(line, used, 'utf8')
      if (timer === undefined) {
        timer = setTimeout(flush, flushMs)
        timer.unref()
      }
    },
    flush,
  }
}
