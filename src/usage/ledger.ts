/**
 * The usage ledger: calls, credits and errors per UTC hour, account, key, network and method. The hot path only
 * adds to an in-memory map; a timer writes it to the database in one transaction every `flushMs`, so a SIGKILL
 * loses at most that much usage and a graceful stop (final flush) loses none.
 *
 * The write goes through a `UsageWriter` (./usage-writers.ts), one per engine, both bypassing kysely (one statement per
 * batch matters
 * here): SQLite runs prepared upserts synchronously on the raw handle; PostgreSQL sends one multi-row
 * INSERT … ON CONFLICT DO UPDATE per table in one transaction. When a write fails (database unreachable), the rows
 * stay in memory and go with the next flush; at most `maxBufferedRows` distinct rows are held, usage beyond that
 * is dropped and counted (`health().droppedCalls`, docs/storage.md).
 */
import { capLabel, methodLabel } from '../methods/labels.ts'
import { DEFAULT_SERVED } from '../methods/served.ts'
import { creditsTodayByAccountAndKey } from './queries.ts'

export interface UsageRecord {
  accountId: string
  keyId: string
  network: string
  method: string
  calls: number
  credits: number
  errors: number
  /** e.g. "http:429" or "rpc:-32000"; counted in the error breakdown. */
  errorKind?: string
}

export type UsageRow = Omit<UsageRecord, 'errorKind'> & { hour: number }
type Row = UsageRow
export type ErrorRow = { hour: number; accountId: string; keyId: string; network: string; error: string; count: number }

/** Writes one batch, all or nothing; throws (or rejects) when nothing was written. */
export interface UsageWriter {
  write(usage: readonly UsageRow[], errors: readonly ErrorRow[]): void | Promise<void>
}

export interface LedgerHealth {
  /** False while the last write failed (the rows are held for the next flush). */
  ok: boolean
  /** Distinct rows not yet written: waiting for the next write, or in a write not yet answered. */
  bufferedRows: number
  /** Calls not recorded because the buffer was full while the database could not be written. */
  droppedCalls: number
  /** Since when writes have been failing (ms), when they are. */
  failingSinceMs?: number
  lastError?: string
}

export interface UsageLedger {
  record(entry: UsageRecord, nowMs: number): void
  /**
   * Writes everything recorded so far; SQLite writes before returning, PostgreSQL resolves once written (or the
   * write failed and the rows were kept). `void |` so simple test doubles need not return a promise.
   */
  flush(): void | Promise<void>
  start(): void
  stop(): Promise<void>
  /** Optional so test doubles need not implement it; the real ledger always does. */
  health?(): LedgerHealth
}

const DONE: Promise<void> = Promise.resolve()
/** While writes keep failing, `onError` hears of it at most this often. */
const ERROR_REPORT_MS = 30_000
const hourOf = (nowMs: number) => Math.floor(nowMs / 3_600_000) * 3600

/** Nested Maps (hour → key id → network → method/error → row) so recording builds no string key per call. */
type Tree<V> = Map<number, Map<string, Map<string, Map<string, V>>>>

function leaf<V>(tree: Tree<V>, hour: number, keyId: string, network: string): Map<string, V> {
  let byKey = tree.get(hour)
  if (byKey === undefined) tree.set(hour, (byKey = new Map()))
  let byNetwork = byKey.get(keyId)
  if (byNetwork === undefined) byKey.set(keyId, (byNetwork = new Map()))
  let byName = byNetwork.get(network)
  if (byName === undefined) byNetwork.set(network, (byName = new Map()))
  return byName
}

function* rowsOf<V>(tree: Tree<V>): Generator<V> {
  for (const byKey of tree.values())
    for (const byNetwork of byKey.values()) for (const byName of byNetwork.values()) yield* byName.values()
}

/**
 * `served`: the methods stored by name (every network's served methods); any other name is stored as `other`,
 * and every label is capped (src/methods/labels.ts), so clients cannot fill the disk or /usage with names.
 * `maxBufferedRows`: distinct rows held while writes fail (config database.usageBufferRows).
 */
export function createUsageLedger(
  writer: UsageWriter,
  flushMs: number,
  onError: (err: unknown) => void,
  served: ReadonlySet<string> = DEFAULT_SERVED,
  maxBufferedRows = 100_000,
): UsageLedger {
  let rows: Tree<Row> = new Map()
  let errorRows: Tree<ErrorRow> = new Map()
  let timer: NodeJS.Timeout | undefined
  /** Distinct rows in `rows` and `errorRows`; with `inFlightRows`, bounded by maxBufferedRows. */
  let buffered = 0
  /** Rows of the write under way: held in memory until it answers, and handed back if it fails. */
  let inFlightRows = 0
  let droppedCalls = 0
  let failingSinceMs: number | undefined
  let lastError: string | undefined
  let inFlight: Promise<void> | undefined
  let lastReportMs: number | undefined
  // The last call's row, while it is in `rows`: a client's calls repeat the same hour, key, network and method,
  // whose labels are those strings themselves (a row's labels equal to them are theirs): found without the lookups.
  let lastRows: Tree<Row> | undefined
  let last: Row | undefined

  // Rows handed back after a failed write: they were within the bound when recorded, so always kept.
  const addRow = (r: Row) => {
    const byMethod = leaf(rows, r.hour, r.keyId, r.network)
    const cur = byMethod.get(r.method)
    if (cur === undefined) {
      byMethod.set(r.method, { ...r })
      buffered++
    } else {
      cur.calls += r.calls
      cur.credits += r.credits
      cur.errors += r.errors
    }
  }
  const addErrors = (e: ErrorRow) => {
    const byError = leaf(errorRows, e.hour, e.keyId, e.network)
    const cur = byError.get(e.error)
    if (cur === undefined) {
      byError.set(e.error, { ...e })
      buffered++
    } else cur.count += e.count
  }

  const failed = (usage: readonly Row[], errs: readonly ErrorRow[], err: unknown) => {
    inFlightRows = 0
    // Keep the numbers for the next try rather than lose them (SQLITE_BUSY beyond the busy timeout, PostgreSQL down).
    for (const r of usage) addRow(r)
    for (const e of errs) addErrors(e)
    const now = Date.now()
    failingSinceMs ??= now
    lastError = err instanceof Error ? err.message : String(err)
    // One report when writes start failing, then one per ERROR_REPORT_MS: an outage is not a log line a second.
    if (lastReportMs === undefined || now - lastReportMs >= ERROR_REPORT_MS) {
      lastReportMs = now
      onError(err)
    }
  }
  const succeeded = () => {
    inFlightRows = 0
    failingSinceMs = undefined
    lastError = undefined
    lastReportMs = undefined
  }

  const writeNow = (): Promise<void> => {
    if (rows.size === 0 && errorRows.size === 0) return DONE
    const usage = [...rowsOf(rows)]
    const errs = [...rowsOf(errorRows)]
    rows = new Map()
    errorRows = new Map()
    buffered = 0
    inFlightRows = usage.length + errs.length
    let pending: void | Promise<void>
    try {
      pending = writer.write(usage, errs)
    } catch (err) {
      failed(usage, errs, err)
      return DONE
    }
    if (pending === undefined) {
      succeeded()
      return DONE
    }
    const p: Promise<void> = pending
      .then(succeeded, (err: unknown) => failed(usage, errs, err))
      .finally(() => {
        if (inFlight === p) inFlight = undefined
      })
    inFlight = p
    return p
  }
  // One write at a time (two could both add the same rows); rows recorded meanwhile go with the next one.
  const flush = (): Promise<void> => (inFlight ? inFlight.then(flush) : writeNow())
  const tick = () => {
    if (!inFlight) void writeNow()
  }

  return {
    record(e, nowMs) {
      const hour = hourOf(nowMs)
      let row = last
      if (
        row === undefined ||
        lastRows !== rows ||
        row.hour !== hour ||
        row.keyId !== e.keyId ||
        row.network !== e.network ||
        row.method !== e.method
      ) {
        const network = capLabel(e.network)
        const method = methodLabel(e.method, served)
        const byMethod = leaf(rows, hour, e.keyId, network)
        row = byMethod.get(method)
        if (row === undefined) {
          // Bound the memory held while the database is unwritable: past it, the call's usage is dropped and counted.
          if (buffered + inFlightRows >= maxBufferedRows) {
            droppedCalls += e.calls
            return
          }
          buffered++
          const { accountId, keyId } = e
          byMethod.set(method, (row = { hour, accountId, keyId, network, method, calls: 0, credits: 0, errors: 0 }))
        }
        lastRows = rows
        last = row
      }
      row.calls += e.calls
      row.credits += e.credits
      row.errors += e.errors
      if (e.errorKind !== undefined) {
        const kind = capLabel(e.errorKind)
        const network = row.network
        const byError = leaf(errorRows, hour, e.keyId, network)
        const er = byError.get(kind)
        if (er !== undefined) er.count += 1
        else if (buffered + inFlightRows < maxBufferedRows) {
          buffered++
          byError.set(kind, { hour, accountId: e.accountId, keyId: e.keyId, network, error: kind, count: 1 })
        }
      }
    },
    flush,
    start() {
      timer = setInterval(tick, flushMs)
      timer.unref()
    },
    async stop() {
      if (timer) clearInterval(timer)
      timer = undefined
      await flush()
      // The database is still unreachable: say plainly what is lost (every earlier failure was rate-limited).
      if (buffered > 0)
        onError(
          new Error(`stopping with ${buffered} usage rows not written (the database cannot be written: ${lastError})`),
        )
    },
    health() {
      return {
        ok: failingSinceMs === undefined,
        bufferedRows: buffered + inFlightRows,
        droppedCalls,
        ...(failingSinceMs !== undefined ? { failingSinceMs } : {}),
        ...(lastError !== undefined ? { lastError } : {}),
      }
    },
  }
}

/**
 * Today's (UTC) credits per account and per key, to seed the limit store at start (read by usage-queries.ts, the one
 * reader of the usage tables).
 */
export const loadTodayUsage = creditsTodayByAccountAndKey
