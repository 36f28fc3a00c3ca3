/**
 * The `storage` part of /healthz: is the database answering, and has the usage ledger written what it holds?
 * `degraded` while either is not the case; calls go on meanwhile from the in-memory key snapshot, and the ledger
 * keeps its rows (bounded) until the database is back (docs/storage.md).
 */
import type { Registry } from 'prom-client'
import type { LedgerHealth } from './ledger.ts'
import type { OpenedDatabase } from '../db/database.ts'
import type { DialectName } from '../db/dialect.ts'

export interface StorageHealth {
  status: 'ok' | 'degraded'
  database: DialectName
  /** `select 1` answered within the probe's timeout. */
  reachable: boolean
  ledger?: LedgerHealth
}

/** Probes at most once per `cacheMs`; concurrent askers share one probe. */
export function createStorageHealth(
  database: Pick<OpenedDatabase, 'dialect' | 'ping'>,
  ledgerHealth: (() => LedgerHealth) | undefined,
  opts: { cacheMs: number; timeoutMs?: number; now?: () => number },
): () => Promise<StorageHealth> {
  const now = opts.now ?? Date.now
  let cached: { at: number; reachable: Promise<boolean> } | undefined
  return async () => {
    const t = now()
    if (cached === undefined || t - cached.at >= opts.cacheMs)
      cached = { at: t, reachable: database.ping(opts.timeoutMs ?? 1000) }
    const reachable = await cached.reachable
    const ledger = ledgerHealth?.()
    const ok = reachable && (ledger?.ok ?? true)
    return { status: ok ? 'ok' : 'degraded', database: database.dialect, reachable, ...(ledger ? { ledger } : {}) }
  }
}

/** /metrics: the ledger's held rows, dropped calls and whether writes are failing (docs/storage.md). */
export function registerStorageMetrics(registry: Registry, ledgerHealth: () => LedgerHealth): void {
  const metric = (name: string, help: string, type: 'gauge' | 'counter', value: (h: LedgerHealth) => number) =>
    registry.registerMetric({
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({
        name,
        help,
        type,
        aggregator: 'sum',
        values: [{ labels: {}, value: value(ledgerHealth()) }],
      }),
    } as never)
  metric(
    'chaingate_usage_buffered_rows',
    'Usage rows held in memory, not yet written to the database',
    'gauge',
    (h) => h.bufferedRows,
  )
  metric(
    'chaingate_usage_dropped_calls_total',
    'Calls whose usage was dropped because the buffer was full while the database could not be written',
    'counter',
    (h) => h.droppedCalls,
  )
  metric(
    'chaingate_usage_write_failing',
    '1 while writing usage to the database fails (it is held and retried)',
    'gauge',
    (h) => (h.ok ? 0 : 1),
  )
}
