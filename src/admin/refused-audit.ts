/**
 * Calls refused for a missing or wrong token (401/403 before any route ran) are audited bounded, so a flood of bad
 * tokens cannot grow the audit by a row a call: the first one from a source IP in a minute writes its row; the
 * ones after it in that minute are only counted, and when the minute ends the row's summary gets the count
 * ("… 57 refused calls from 203.0.113.5 in this minute"). At most one row per source IP per minute per process;
 * past `MAX_SOURCES` IPs in a minute, the rest share one row (source `other addresses`): with `gateway.trustProxy`
 * the address comes from X-Forwarded-For, which a client can vary at every call.
 */
import { recordAudit, updateAuditSummary, type NewAuditEntry } from '../audit/repository.ts'
import type { Db } from '../db/database.ts'

export const REFUSAL_WINDOW_MS = 60_000
/** Rows a minute (per process) for refused calls, besides the shared one: a spray of addresses adds no more. */
export const MAX_SOURCES = 20
const OTHERS = 'other addresses'

interface Window {
  start: number
  /** The row of the window's first call; undefined while it is being written. */
  id: Promise<string | undefined>
  count: number
  summary: string
}

export interface RefusedAudit {
  record(source: string, entry: NewAuditEntry): Promise<void>
  /** Writes the counts of the windows that ended (all of them with `all`) and forgets them. */
  flush(all?: boolean): Promise<void>
  stop(): Promise<void>
}

export function createRefusedAudit(
  db: Db,
  opts: { clock: () => number; onError: (err: Error) => void; timer?: boolean },
): RefusedAudit {
  const windows = new Map<string, Window>()
  const counted = (w: Window, source: string) =>
    `${w.summary}; ${w.count} refused call${w.count === 1 ? '' : 's'} from ${source} in this minute`
  const close = async (source: string, w: Window) => {
    windows.delete(source)
    const id = await w.id
    if (id !== undefined && w.count > 1) await updateAuditSummary(db, id, counted(w, source)).catch(opts.onError)
  }
  const flush = async (all = false) => {
    const now = opts.clock()
    const ended = [...windows].filter(([, w]) => all || now - w.start >= REFUSAL_WINDOW_MS)
    await Promise.all(ended.map(([source, w]) => close(source, w)))
  }
  const timer = opts.timer === false ? undefined : setInterval(() => void flush(), REFUSAL_WINDOW_MS)
  timer?.unref()
  return {
    async record(ip, entry) {
      const source = windows.has(ip) || windows.size < MAX_SOURCES ? ip : OTHERS
      const open = windows.get(source)
      if (open && entry.at - open.start < REFUSAL_WINDOW_MS) {
        open.count++
        return
      }
      // Not awaited: the new window is in place before another call of this source can look.
      if (open) void close(source, open)
      const w: Window = { start: entry.at, count: 1, summary: entry.summary, id: Promise.resolve(undefined) }
      w.id = recordAudit(db, { ...entry, summary: counted(w, source) }).catch((err: Error) => {
        opts.onError(err)
        return undefined
      })
      windows.set(source, w)
      await w.id
    },
    flush,
    async stop() {
      if (timer) clearInterval(timer)
      await flush(true)
    },
  }
}
