/**
 * The request explorer's retention (config `requests`, docs/requests.md): records older than `retentionHours`,
 * and beyond each key's newest `maxRowsPerKey`, are deleted. Every process prunes on its own timer, so each run
 * deletes at most `maxRows` in chunks (several replicas or workers each do a bounded amount of work); the per-key
 * cap is checked for the keys this process wrote since its last run (a key another replica writes is checked there).
 */
import type { Db } from '../../db/database.ts'

/** Rows one DELETE removes: short statements, so writers are not held up behind one long delete. */
const CHUNK = 5000
/** Keys whose cap one run checks at most (the rest wait for the next run). */
const MAX_KEYS_PER_RUN = 1000

export interface PruneResult {
  deleted: number
  /** The run stopped at `maxRows` (or the key limit) with work left. */
  more: boolean
}

export async function pruneRequests(
  db: Db,
  opts: { nowMs: number; retentionHours: number; maxRowsPerKey: number; maxRows: number; keys: Iterable<string> },
): Promise<PruneResult & { keysLeft: string[] }> {
  let deleted = 0
  const budget = () => Math.min(CHUNK, opts.maxRows - deleted)
  const cutoff = opts.nowMs - opts.retentionHours * 3_600_000
  // Old rows first: oldest by the time index, a chunk at a time.
  for (;;) {
    const n = budget()
    if (n <= 0) return { deleted, more: true, keysLeft: [...opts.keys] }
    const r = await db
      .deleteFrom('request_log')
      .where('id', 'in', (eb) => eb.selectFrom('request_log').select('id').where('time', '<', cutoff).limit(n))
      .executeTakeFirst()
    const gone = Number(r.numDeletedRows)
    deleted += gone
    if (gone < n) break
  }
  const keys = [...opts.keys]
  let checked = 0
  for (; checked < keys.length && checked < MAX_KEYS_PER_RUN; checked++) {
    const keyId = keys[checked]!
    // The key's newest row beyond the cap: it and everything older go.
    const edge = await db
      .selectFrom('request_log')
      .select(['time', 'id'])
      .where('key_id', '=', keyId)
      .orderBy('time', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .offset(opts.maxRowsPerKey)
      .executeTakeFirst()
    if (edge === undefined) continue
    const t = Number(edge.time)
    for (;;) {
      const n = budget()
      if (n <= 0) return { deleted, more: true, keysLeft: keys.slice(checked) }
      const r = await db
        .deleteFrom('request_log')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('request_log')
            .select('id')
            .where('key_id', '=', keyId)
            .where((w) => w.or([w('time', '<', t), w.and([w('time', '=', t), w('id', '<=', Number(edge.id))])]))
            .limit(n),
        )
        .executeTakeFirst()
      const gone = Number(r.numDeletedRows)
      deleted += gone
      if (gone < n) break
    }
  }
  const keysLeft = keys.slice(checked)
  return { deleted, more: keysLeft.length > 0, keysLeft }
}
