/**
 * The request explorer's retention (config `requests`, docs/requests.md): records older than `retentionHours`,
 * and beyond each key's newest `maxRowsPerKey`, are deleted. Every process prunes on its own timer, so each run
 * deletes at most `maxRows` in chunks (src/db/prune.ts, shared with the admin audit's retention); the per-key
 * cap is checked for the keys this process wrote since its last run (a key another replica writes is checked there).
 */
import type { Db } from '../../db/database.ts'
import { deleteOldestBefore, PRUNE_CHUNK as CHUNK, type PruneResult } from '../../db/prune.ts'

/** Keys whose cap one run checks at most (the rest wait for the next run). */
const MAX_KEYS_PER_RUN = 1000

export async function pruneRequests(
  db: Db,
  opts: { nowMs: number; retentionHours: number; maxRowsPerKey: number; maxRows: number; keys: Iterable<string> },
): Promise<PruneResult & { keysLeft: string[] }> {
  const cutoff = opts.nowMs - opts.retentionHours * 3_600_000
  // Old rows first: the oldest by id (no index on time: it cost every insert), a chunk at a time.
  const old = await deleteOldestBefore(db, { table: 'request_log', column: 'time', cutoff, maxRows: opts.maxRows })
  let deleted = old.deleted
  if (old.more) return { deleted, more: true, keysLeft: [...opts.keys] }
  const budget = () => Math.min(CHUNK, opts.maxRows - deleted)
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
