/**
 * pino logger. Keys are never logged (lines carry the key's id); as a second line of defence, anything that
 * looks like a credential field is redacted.
 */
import { fstatSync, writeSync } from 'node:fs'
import { isatty } from 'node:tty'
import pino from 'pino'
import { createLineEncoder, lineText } from './log-line.ts'

export type Logger = pino.Logger

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: [
          'key',
          'apiKey',
          'secret',
          'password',
          'mnemonic',
          'privateKey',
          'authorization',
          '*.key',
          '*.secret',
          '*.password',
          '*.authorization',
        ],
        censor: '[redacted]',
      },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  )
}

export interface RequestLines {
  /**
   * One request's line: the key's id (never the key), network, method, calls, HTTP status, credits charged,
   * milliseconds (rounded to 0.1), and `source` when the cache or a shared call in flight answered (docs/caching.md).
   * Arguments rather than an object: nothing is allocated per request.
   */
  write(
    keyId: string | undefined,
    network: string,
    method: string,
    calls: number,
    status: number,
    credits: number,
    ms: number,
    source: 'cache' | 'dedup' | undefined,
  ): void
  /** Writes what is buffered (called on a timer and at stop). */
  flush(): void
}

/**
 * The gateway's one line per request, in the same JSON shape pino writes (level 30, time, msg "rpc"), to the
 * logger's destination. Lines are built from ids and numbers only (never a key, header or body), so they skip
 * pino's redaction. Each line is written at once as bytes into a preallocated buffer (log-line.ts: no string per
 * line) that is written out every `flushMs` (or when full): a write per request cost about a fifth of the
 * gateway's CPU per call in bench/, and keeping the lines as JavaScript strings until the flush cost as much again
 * in garbage collection (thousands of small strings surviving young-generation collections). A crash loses at most
 * `flushMs` of request lines.
 */
export function createRequestLines(logger: Logger, flushMs = 100, capacity = 65_536): RequestLines {
  const root = (
    logger as unknown as Record<
      symbol,
      pino.DestinationStream & { streams?: { level: number; stream: pino.DestinationStream }[] }
    >
  )[pino.symbols.streamSym]
  // A multistream (src/observability/log-setup.ts: terminal for warnings, file for the rest): the lines go to the
  // streams that take info lines.
  const targets = root?.streams ? root.streams.filter((s) => s.level <= 30).map((s) => s.stream) : root ? [root] : []
  if (targets.length === 0 || !logger.isLevelEnabled('info')) return { write() {}, flush() {} }
  const stream = targets.length === 1 ? targets[0]! : { write: (text: string) => targets.forEach((t) => t.write(text)) }
  const buffer = Buffer.allocUnsafe(capacity)
  const encode = createLineEncoder()
  let used = 0
  let timer: NodeJS.Timeout | undefined
  const direct = targets.length === 1 ? directFd(targets[0]!) : () => -1
  const flush = () => {
    if (timer) clearTimeout(timer)
    timer = undefined
    if (used === 0) return
    const fd = direct()
    let from = 0
    if (fd >= 0) from = writeBytes(fd, buffer, used)
    // The destination may hold on to what it is given until its write completes: hand it its own string.
    if (from < used) stream.write(buffer.toString('utf8', from, used))
    used = 0
  }
  return {
    write(keyId, network, method, calls, status, credits, ms, source) {
      const time = Date.now()
      let end = encode(buffer, used, time, keyId, network, method, calls, status, credits, ms, source)
      if (end < 0) {
        flush()
        end = encode(buffer, 0, time, keyId, network, method, calls, status, credits, ms, source)
        // Larger than the whole buffer: written on its own.
        if (end < 0)
          return void stream.write(lineText(time, keyId, network, method, calls, status, credits, ms, source))
      }
      used = end
      if (timer === undefined) {
        timer = setTimeout(flush, flushMs)
        timer.unref()
      }
    },
    flush,
  }
}

interface FileDestination {
  fd: number
  _len: number
  _writing: boolean
}

/**
 * The buffer's bytes go straight to the destination's file descriptor (one synchronous write per flush, no string
 * made, copied and converted back by pino's destination: ~1.6 µs per line in bench/) when that is safe: a
 * `pino.destination` (sonic-boom) on a file or a device like /dev/null — never a pipe or terminal, where a
 * synchronous write could wait on the reader — and holding nothing not yet written, so lines keep their order.
 * Returns a function giving the descriptor, or -1 when the lines go through the destination.
 */
function directFd(target: pino.DestinationStream): () => number {
  const dest = target as unknown as Partial<FileDestination>
  if (typeof dest.fd !== 'number' || typeof dest._len !== 'number') return () => -1
  let checked = -1
  let usable = false
  return () => {
    const fd = dest.fd!
    if (fd < 0 || dest._writing || dest._len !== 0) return -1
    if (fd !== checked) {
      checked = fd
      try {
        const st = fstatSync(fd)
        usable = st.isFile() || (st.isCharacterDevice() && !isatty(fd))
      } catch {
        usable = false
      }
    }
    return usable ? fd : -1
  }
}

/** Writes what it can of `buffer[0, used)`; returns how many bytes went out (the rest goes through the stream). */
function writeBytes(fd: number, buffer: Buffer, used: number): number {
  let from = 0
  try {
    while (from < used) {
      const n = writeSync(fd, buffer, from, used - from)
      if (n <= 0) break
      from += n
    }
  } catch {
    // EAGAIN or a closed descriptor: what is left goes through the destination, as before
  }
  return from
}
