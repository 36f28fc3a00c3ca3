/**
 * The prune timer of the request explorer (./prune.ts does one run) on the shared bounded-prune timer
 * (src/db/prune.ts): every `everyMs`, or a second after a run that stopped at its bound with work left.
 */
import type { Db } from '../../db/database.ts'
import { startPruneTimer } from '../../db/prune.ts'
import { pruneRequests } from './prune.ts'
import type { RequestRecorder } from './recorder.ts'

export function startRequestRetention(
  db: Db,
  recorder: RequestRecorder,
  opts: {
    retentionHours: number
    maxRowsPerKey: number
    maxRows: number
    everyMs: number
    clock: () => number
    onError: (err: unknown) => void
  },
): { stop(): Promise<void> } {
  /** Keys a bounded run did not get to, checked first next time. */
  let pending = new Set<string>()
  const prune = async () => {
    for (const k of recorder.takeWrittenKeys()) pending.add(k)
    const keys = pending
    pending = new Set()
    try {
      const r = await pruneRequests(db, {
        nowMs: opts.clock(),
        retentionHours: opts.retentionHours,
        maxRowsPerKey: opts.maxRowsPerKey,
        maxRows: opts.maxRows,
        keys,
      })
      for (const k of r.keysLeft) pending.add(k)
      return r
    } catch (err) {
      for (const k of keys) pending.add(k)
      throw err
    }
  }
  return startPruneTimer(prune, { everyMs: opts.everyMs, onError: opts.onError })
}
