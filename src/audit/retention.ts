/**
 * The admin audit's retention (config `admin.auditRetentionDays`, docs/admin-api.md "Audit"): rows older than that
 * are deleted hourly, at most `maxRows` a run (then again a second later), by the bounded prune the request
 * explorer uses (src/db/prune.ts).
 */
import type { Db } from '../db/database.ts'
import { deleteOlderThan, startPruneTimer } from '../db/prune.ts'

const DAY_MS = 86_400_000

export function startAuditRetention(
  db: Db,
  opts: {
    retentionDays: number
    clock: () => number
    onError: (err: unknown) => void
    everyMs?: number
    maxRows?: number
  },
): { stop(): Promise<void> } {
  const prune = () =>
    deleteOlderThan(db, {
      table: 'admin_audit',
      column: 'at',
      cutoff: opts.clock() - opts.retentionDays * DAY_MS,
      maxRows: opts.maxRows ?? 20_000,
    })
  return startPruneTimer(prune, { everyMs: opts.everyMs ?? 3_600_000, onError: opts.onError })
}
