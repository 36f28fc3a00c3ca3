/**
 * Reading the request explorer's records: one function for every face (the dashboard's key page, the admin API,
 * `chaingate requests`), so they show the same rows in the same order.
 */
import type { Db } from '../../db/database.ts'
import { REQUEST_COLUMN_NAMES, REQUEST_COLUMNS, type RequestRow } from '../../db/request-log-columns.ts'

export interface RequestQuery {
  keyId: string
  /** Exact method name. */
  method?: string | undefined
  /** A status as stored (`ok`, `rpc:-32000`, `http:429`), or a bare code: `-32000` (JSON-RPC), `429` (HTTP). */
  status?: string | undefined
  /** Everything but `ok`. */
  errorsOnly?: boolean | undefined
  /** Rows per page: 1-1000, default 50. */
  limit?: number | undefined
  /** Rows skipped (newest first). */
  offset?: number | undefined
}

export interface RequestPage {
  rows: RequestRow[]
  /** More rows match beyond this page. */
  more: boolean
}

export const MAX_REQUEST_PAGE = 1000

/** A status filter as stored: bare JSON-RPC codes (negative) and HTTP statuses get their prefix. */
export function normalizeStatus(status: string): string {
  const s = status.trim().toLowerCase()
  if (/^-\d+$/.test(s)) return `rpc:${s}`
  if (/^\d{3}$/.test(s)) return `http:${s}`
  return s
}

/** The key's records, newest first, filtered. */
export async function queryRequests(db: Db, q: RequestQuery): Promise<RequestPage> {
  const limit = Math.min(MAX_REQUEST_PAGE, Math.max(1, Math.floor(q.limit ?? 50)))
  const offset = Math.max(0, Math.floor(q.offset ?? 0))
  let sel = db.selectFrom('request_log').select(REQUEST_COLUMN_NAMES).where('key_id', '=', q.keyId)
  if (q.method) sel = sel.where('method', '=', q.method)
  if (q.status) sel = sel.where('status', '=', normalizeStatus(q.status))
  if (q.errorsOnly) sel = sel.where('status', '<>', 'ok')
  const raw = await sel
    .orderBy('time', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .offset(offset)
    .execute()
  const rows = raw.slice(0, limit).map(toRow)
  return { rows, more: raw.length > limit }
}

/** A stored row as its record: PostgreSQL returns bigint columns as strings, so int columns are made numbers. */
function toRow(stored: Record<string, unknown>): RequestRow {
  const row: Record<string, unknown> = {}
  for (const c of REQUEST_COLUMNS) row[c.field] = c.type === 'int' ? Number(stored[c.name]) : stored[c.name]
  return row as RequestRow
}

/** A record as the JSON faces (admin API, `--json`) show it: the time also as ISO 8601. */
export function requestJson(r: RequestRow) {
  return { at: new Date(r.time).toISOString(), ...r }
}
