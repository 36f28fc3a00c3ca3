/**
 * The request explorer's recorder (docs/requests.md): one record per call, taken where the pipeline settles it,
 * written to `request_log` off the hot path. A call costs a few array writes: the records live in a ring of
 * preallocated columns (no object per call, nothing serialized), and a timer hands them to the writer every
 * `flushMs`. The ring starts small and doubles while it is full, up to `bufferRows` (a flush interval's records at
 * a busy worker's rate fit the first size: the whole 50,000-row default, ~4 MiB, is only for a slow database). While
 * a write is slow or failing the ring keeps filling; once at `bufferRows` the oldest record is overwritten and
 * counted (`droppedCalls`), so calls never wait for the database.
 */
import { capLabel } from '../../methods/labels.ts'
import { CAPPED, createInterner, NUMBERS, type RequestBatch, STRINGS } from './batch.ts'
import { NUMBER_COLUMNS, REQUEST_COLUMNS, type RequestRow, STRING_COLUMNS } from '../../db/request-log-columns.ts'

/** What a call's record is read from: the pipeline's CallContext has this shape. */
export interface RequestSource {
  entry: { readonly id: string; readonly accountId: string }
  network: { readonly name: string }
  /** The Origin header, when the client sent one. */
  origin?: string | undefined
  /** HTTP: the client's socket (its address). */
  client?: { readonly remoteAddress?: string | undefined } | undefined
}

/** Who answered: a node's answer (its label; the cache or a shared call in flight by `source`). */
export interface ServedBy {
  readonly upstream: string
  readonly source?: 'cache' | 'dedup' | undefined
}

export type { RequestRow } from '../../db/request-log-columns.ts'

/** Writes one batch (./batch.ts); throws (or rejects) when it could not. */
export interface RequestWriter {
  write(batch: RequestBatch): void | Promise<void>
  /** Releases what the writer holds (a thread), after the last write; called by `stop`. */
  close?(): Promise<void>
}

export interface RequestRecorder {
  /**
   * One settled call. `status`: undefined for a success; `startedMs`: when it was admitted (clock ms). Positional:
   * the ring stores a call column by column, with no object per call (docs/benchmarks.md, "Named arguments on the
   * per-request path").
   */
  push(
    ctx: RequestSource,
    method: string,
    status: string | undefined,
    credits: number,
    served: ServedBy | undefined,
    startedMs: number,
  ): void
  /** A call refused before it ran, where only the key is known (key security, bad input). */
  refused(entry: RequestSource['entry'], network: string, method: string, status: string, credits: number): void
  /** Keys with records written since the last call (the per-key cap is checked for these). */
  takeWrittenKeys(): Set<string>
  flush(): Promise<void>
  start(): void
  stop(): Promise<void>
  /** Records waiting in memory, and records lost (buffer full while the database was slow, or a failed write). */
  health(): { bufferedRows: number; droppedCalls: number }
  /** Where batches go: the `--workers` primary writes its workers' batches with it too (src/app/cluster). */
  readonly writer: RequestWriter
}

const DONE: Promise<void> = Promise.resolve()
/** The ring's first size (rows); it doubles while full, up to `bufferRows`. */
const INITIAL_ROWS = 4096
/** While writes keep failing, `onError` hears of it at most this often. */
const ERROR_REPORT_MS = 30_000

/** The ring: one preallocated array per column (src/db/request-log-columns.ts), by record field. */
type Ring = { [F in keyof RequestRow]: RequestRow[F] extends number ? Float64Array : (RequestRow[F] | null)[] }
type AnyColumn = { [i: number]: unknown; readonly length: number }

/** A ring of `size` rows; with `from`, the `count` rows of `from` from index `start` (wrapping) moved to its start. */
function newRing(size: number, from?: { ring: Ring; start: number; count: number }): Ring {
  const ring: Partial<Record<keyof RequestRow, AnyColumn>> = {}
  for (const c of REQUEST_COLUMNS) {
    const fresh: AnyColumn = c.type === 'int' ? new Float64Array(size) : new Array<string | null>(size).fill(null)
    if (from) {
      const old: AnyColumn = from.ring[c.field]
      for (let n = 0, i = from.start; n < from.count; n++) {
        fresh[n] = old[i]
        if (++i === old.length) i = 0
      }
    }
    ring[c.field] = fresh
  }
  return ring as Ring
}

export function createRequestRecorder(
  writer: RequestWriter,
  opts: {
    flushMs: number
    bufferRows: number
    clock: () => number
    onError: (err: unknown) => void
    /** The ring's first size (tests); INITIAL_ROWS by default. */
    initialRows?: number
  },
): RequestRecorder {
  const cap = opts.bufferRows
  const clock = opts.clock
  // Columns of the ring (`size` rows): index `head` is written next; the `count` before it are waiting.
  let size = Math.min(cap, opts.initialRows ?? INITIAL_ROWS)
  let ring = newRing(size)
  // The ring's columns in a batch's order (./batch.ts), for `take`: made with the ring, not per batch.
  let stringColumns = STRING_COLUMNS.map((c) => ring[c.field])
  let numberColumns = NUMBER_COLUMNS.map((c) => ring[c.field])
  let head = 0
  let count = 0
  let dropped = 0
  let written = new Set<string>()
  let inFlight: Promise<void> | undefined
  let timer: NodeJS.Timeout | undefined
  let lastReportMs: number | undefined

  /** Doubles the ring (at most to `cap`), the waiting records moved to its start, oldest first. */
  const grow = () => {
    const next = Math.min(cap, size * 2)
    ring = newRing(next, { ring, start: (head - count + size) % size, count })
    stringColumns = STRING_COLUMNS.map((c) => ring[c.field])
    numberColumns = NUMBER_COLUMNS.map((c) => ring[c.field])
    head = count
    size = next
  }

  /** The row to write the next record to (the oldest waiting one's when the ring is full). */
  const slot = (): number => {
    if (count === size && size < cap) grow()
    const i = head
    if (++head === size) head = 0
    if (count < size) count++
    else dropped++ // the oldest waiting record is overwritten
    return i
  }

  /** The waiting records as one batch (oldest first), without an object per record; the ring is empty after. */
  const take = (): RequestBatch => {
    const interner = createInterner(CAPPED, capLabel)
    const refs = new Uint32Array(count * STRINGS)
    const nums = new Float64Array(count * NUMBERS)
    const start = (head - count + size) % size
    const keyIds = ring.keyId
    let lastKey: string | undefined
    for (let n = 0, i = start; n < count; n++) {
      const keyId = keyIds[i]!
      if (keyId !== lastKey) written.add((lastKey = keyId))
      if (++i === size) i = 0
    }
    // Column by column: each loop reads one array, and the interner's last-row check sees the column's runs.
    for (let c = 0; c < STRINGS; c++) {
      const column = stringColumns[c]!
      for (let n = 0, a = c, i = start; n < count; n++, a += STRINGS) {
        refs[a] = interner.ref(c, column[i] as string | null)
        // The ring holds no string past its batch (a closed socket's address, a request's method).
        column[i] = null
        if (++i === size) i = 0
      }
    }
    for (let c = 0; c < NUMBERS; c++) {
      const column = numberColumns[c]!
      for (let n = 0, x = c, i = start; n < count; n++, x += NUMBERS) {
        nums[x] = column[i]!
        if (++i === size) i = 0
      }
    }
    const batch = { count, strings: interner.strings, refs, nums }
    count = 0
    return batch
  }

  const failed = (lost: number, err: unknown) => {
    // The request explorer is not worth holding a failing database's backlog: counted as lost.
    dropped += lost
    const now = Date.now()
    if (lastReportMs === undefined || now - lastReportMs >= ERROR_REPORT_MS) {
      lastReportMs = now
      opts.onError(err)
    }
  }

  const writeNow = (): Promise<void> => {
    if (count === 0) return DONE
    const batch = take()
    let pending: void | Promise<void>
    try {
      pending = writer.write(batch)
    } catch (err) {
      failed(batch.count, err)
      return DONE
    }
    if (pending === undefined) return DONE
    const p: Promise<void> = pending
      .then(
        () => undefined,
        (err: unknown) => failed(batch.count, err),
      )
      .finally(() => {
        if (inFlight === p) inFlight = undefined
      })
    inFlight = p
    return p
  }
  // One write at a time; records pushed meanwhile go with the next one (or are dropped oldest-first when the ring
  // fills).
  const flush = (): Promise<void> => (inFlight ? inFlight.then(flush) : writeNow())

  return {
    // How each column (src/db/request-log-columns.ts) is taken from a call: a store per column, no object per call.
    push(ctx, method, status, charged, served, startedMs) {
      const now = clock()
      const i = slot()
      const r = ring
      r.time[i] = now
      r.keyId[i] = ctx.entry.id
      r.accountId[i] = ctx.entry.accountId
      r.network[i] = ctx.network.name
      r.method[i] = method
      r.status[i] = status ?? 'ok'
      r.latencyMs[i] = Math.max(0, Math.round(now - startedMs))
      r.credits[i] = charged
      r.served[i] = served === undefined ? null : (served.source ?? served.upstream)
      r.client[i] = ctx.origin ?? ctx.client?.remoteAddress ?? null
    },
    refused(entry, network, method, status, charged) {
      const i = slot()
      const r = ring
      r.time[i] = clock()
      r.keyId[i] = entry.id
      r.accountId[i] = entry.accountId
      r.network[i] = network
      r.method[i] = method
      r.status[i] = status
      r.latencyMs[i] = 0
      r.credits[i] = charged
      r.served[i] = null
      r.client[i] = null
    },
    takeWrittenKeys() {
      const keys = written
      written = new Set()
      return keys
    },
    flush,
    start() {
      timer = setInterval(() => {
        if (!inFlight) void writeNow()
      }, opts.flushMs)
      timer.unref()
    },
    async stop() {
      if (timer) clearInterval(timer)
      timer = undefined
      await flush()
      await writer.close?.()
    },
    health: () => ({ bufferedRows: count, droppedCalls: dropped }),
    writer,
  }
}
