/**
 * The usage ledger: calls, credits and errors per UTC hour, account, key, network and method. The hot path only
 * adds to an in-memory map; a timer writes it to the database in one transaction every `flushMs`, so a SIGKILL
 * loses at most that much usage and a graceful stop (final flush) loses none.
 */
import type { SqliteHandle } from '../db/sqlite-driver.ts'
import { capLabel, methodLabel } from '../rpc-methods/labels.ts'
import { DEFAULT_SERVED } from '../rpc-methods/served.ts'
import { creditsTodayByAccountAndKey } from './usage-queries.ts'

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

type Row = Omit<UsageRecord, 'errorKind'> & { hour: number }

export interface UsageLedger {
  record(entry: UsageRecord, nowMs: number): void
  flush(): void
  start(): void
  stop(): Promise<void>
}

const hourOf = (nowMs: number) => Math.floor(nowMs / 3_600_000) * 3600

/** Nested Maps (hour → key id → network → method/error → row) so recording builds no string key per call. */
type Tree<V> = Map<number, Map<string, Map<string, Map<string, V>>>>
type ErrorRow = { hour: number; accountId: string; keyId: string; network: string; error: string; count: number }

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
  for (const byKey of tree.values()) for (const byNetwork of byKey.values()) for (const byName of byNetwork.values()) yield* byName.values()
}

/**
 * `served`: the methods stored by name (every network's served methods); any other name is stored as `other`,
 * and every label is capped (src/rpc-methods/labels.ts), so clients cannot fill the disk or /usage with names.
 */
export function createUsageLedger(
  sqlite: SqliteHandle,
  flushMs: number,
  onError: (err: unknown) => void,
  served: ReadonlySet<string> = DEFAULT_SERVED,
): UsageLedger {
  let rows: Tree<Row> = new Map()
  let errorRows: Tree<ErrorRow> = new Map()
  let timer: NodeJS.Timeout | undefined

  const upsertUsage = sqlite.prepare(
    `insert into usage_hourly (hour, account_id, key_id, network, method, calls, credits, errors)
     values (?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (hour, account_id, key_id, network, method) do update set
       calls = calls + excluded.calls, credits = credits + excluded.credits, errors = errors + excluded.errors`,
  )
  const upsertError = sqlite.prepare(
    `insert into usage_errors (hour, account_id, key_id, network, error, count) values (?, ?, ?, ?, ?, ?)
     on conflict (hour, account_id, key_id, network, error) do update set count = count + excluded.count`,
  )
  const writeAll = sqlite.transaction((usage: Row[], errs: ErrorRow[]) => {
    for (const r of usage) upsertUsage.run(r.hour, r.accountId, r.keyId, r.network, r.method, r.calls, r.credits, r.errors)
    for (const e of errs) upsertError.run(e.hour, e.accountId, e.keyId, e.network, e.error, e.count)
  })

  const addRow = (r: Row) => {
    const byMethod = leaf(rows, r.hour, r.keyId, r.network)
    const cur = byMethod.get(r.method)
    if (cur === undefined) byMethod.set(r.method, { ...r })
    else {
      cur.calls += r.calls
      cur.credits += r.credits
      cur.errors += r.errors
    }
  }
  const addErrors = (e: ErrorRow) => {
    const byError = leaf(errorRows, e.hour, e.keyId, e.network)
    const cur = byError.get(e.error)
    if (cur === undefined) byError.set(e.error, { ...e })
    else cur.count += e.count
  }

  const flush = () => {
    if (rows.size === 0 && errorRows.size === 0) return
    const usage = [...rowsOf(rows)]
    const errs = [...rowsOf(errorRows)]
    rows = new Map()
    errorRows = new Map()
    try {
      writeAll(usage, errs)
    } catch (err) {
      // Keep the numbers for the next try rather than lose them (e.g. SQLITE_BUSY beyond the busy timeout).
      for (const r of usage) addRow(r)
      for (const e of errs) addErrors(e)
      onError(err)
    }
  }

  return {
    record(e, nowMs) {
      const hour = hourOf(nowMs)
      const network = capLabel(e.network)
      const method = methodLabel(e.method, served)
      const byMethod = leaf(rows, hour, e.keyId, network)
      const row = byMethod.get(method)
      if (row !== undefined) {
        row.calls += e.calls
        row.credits += e.credits
        row.errors += e.errors
      } else {
        byMethod.set(method, { hour, accountId: e.accountId, keyId: e.keyId, network, method, calls: e.calls, credits: e.credits, errors: e.errors })
      }
      if (e.errorKind !== undefined) {
        const kind = capLabel(e.errorKind)
        const byError = leaf(errorRows, hour, e.keyId, network)
        const er = byError.get(kind)
        if (er !== undefined) er.count += 1
        else byError.set(kind, { hour, accountId: e.accountId, keyId: e.keyId, network, error: kind, count: 1 })
      }
    },
    flush,
    start() {
      timer = setInterval(flush, flushMs)
      timer.unref()
    },
    async stop() {
      if (timer) clearInterval(timer)
      timer = undefined
      flush()
    },
  }
}

/** Today's (UTC) credits per account and per key, to seed the limit store at start (read by usage-queries.ts, the one reader of the usage tables). */
export const loadTodayUsage = creditsTodayByAccountAndKey
