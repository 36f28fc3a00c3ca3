/**
 * Bounded pruning, shared by the tables that keep a retention (the request explorer's `request_log`, the admin
 * audit): each run deletes at most a given number of rows, in short chunks so writers are not held up behind one
 * long DELETE, and the timer runs again a second later when a run stopped at its bound with work left. Every
 * process prunes on its own timer, so several replicas or workers each do a bounded amount of work.
 */
import { sql } from 'kysely'
import type { Db } from './database.ts'

/** Rows one DELETE removes. */
export const PRUNE_CHUNK = 5000
const AGAIN_MS = 1000

export interface PruneResult {
  deleted: number
  /** The run stopped at its bound with work left. */
  more: boolean
}

/** Deletes rows whose `column` is below `cutoff`, oldest first by its index, at most `maxRows` in one run. */
export async function deleteOlderThan(
  db: Db,
  opts: { table: 'admin_audit'; column: 'at'; cutoff: number; maxRows: number },
): Promise<PruneResult> {
  const table = sql.table(opts.table)
  let deleted = 0
  for (;;) {
    const n = Math.min(PRUNE_CHUNK, opts.maxRows - deleted)
    if (n <= 0) return { deleted, more: true }
    const r = await sql`DELETE FROM ${table} WHERE id IN (SELECT id FROM ${table} WHERE ${sql.ref(opts.column)} < ${
      opts.cutoff
    } LIMIT ${n})`.execute(db)
    const gone = Number(r.numAffectedRows ?? 0)
    deleted += gone
    if (gone < n) return { deleted, more: false }
  }
}

/**
 * Deletes rows whose `column` is below `cutoff` among the oldest by `id` (insertion order), at most `maxRows` in one
 * run, for a table that keeps no index on `column`: each DELETE looks at the next PRUNE_CHUNK rows by id only, so a
 * run costs the same whatever the table's size. A row inserted later than newer ones (a batch held back by a slow
 * database) goes once the rows before it have gone.
 */
export async function deleteOldestBefore(
  db: Db,
  opts: { table: 'request_log'; column: 'time'; cutoff: number; maxRows: number },
): Promise<PruneResult> {
  const table = sql.table(opts.table)
  const column = sql.ref(opts.column)
  let deleted = 0
  for (;;) {
    const n = Math.min(PRUNE_CHUNK, opts.maxRows - deleted)
    if (n <= 0) return { deleted, more: true }
    const r = await sql`DELETE FROM ${table} WHERE id IN (SELECT id FROM (SELECT id, ${column} FROM ${table} ORDER BY id
      LIMIT ${n}) AS oldest WHERE ${column} < ${opts.cutoff})`.execute(db)
    const gone = Number(r.numAffectedRows ?? 0)
    deleted += gone
    if (gone < n) return { deleted, more: false }
  }
}

/**
 * Runs `prune` every `everyMs`, or a second after a run that answered `more`. One run at a time; `stop` waits for
 * the one in progress. An error is reported and the next run comes at the usual time.
 */
export function startPruneTimer(
  prune: () => Promise<{ more: boolean }>,
  opts: { everyMs: number; onError: (err: unknown) => void },
): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let stopped = false
  const schedule = (ms: number) => {
    if (stopped) return
    timer = setTimeout(run, ms)
    timer.unref()
  }
  const run = () => {
    running = (async () => {
      let again = false
      try {
        again = (await prune()).more
      } catch (err) {
        opts.onError(err)
      }
      running = undefined
      schedule(again ? AGAIN_MS : opts.everyMs)
    })()
  }
  schedule(opts.everyMs)
  return {
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      await running
    },
  }
}
