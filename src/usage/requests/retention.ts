/**
 * The prune timer (./prune.ts does one run): every `everyMs`, or a second after a run that stopped at its bound
 * with work left. One run at a time; `stop` waits for the one in progress.
 */
import type { Db } from '../../db/database.ts'
import { pruneRequests } from './prune.ts'
import type { RequestRecorder } from './recorder.ts'

const AGAIN_MS = 1000

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
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let stopped = false
  /** Keys a bounded run did not get to, checked first next time. */
  let pending = new Set<string>()

  const schedule = (ms: number) => {
    if (stopped) return
    timer = setTimeout(run, ms)
    timer.unref()
  }
  const run = () => {
    running = (async () => {
      for (const k of recorder.takeWrittenKeys()) pending.add(k)
      const keys = pending
      pending = new Set()
      let again = false
      try {
        const r = await pruneRequests(db, {
          nowMs: opts.clock(),
          retentionHours: opts.retentionHours,
          maxRowsPerKey: opts.maxRowsPerKey,
          maxRows: opts.maxRows,
          keys,
        })
        for (const k of r.keysLeft) pending.add(k)
        again = r.more
      } catch (err) {
        for (const k of keys) pending.add(k)
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
