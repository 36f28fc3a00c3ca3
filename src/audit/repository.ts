/**
 * The admin audit (table `admin_audit`, migration 0500_admin_audit): who changed or read what, when, and how it
 * ended. The admin API records every call (src/admin/audit-hook.ts), the CLI its account and key changes, the
 * dashboard its changes (src/dashboard/middleware/audit.ts); the API and the CLI list it (`GET /admin/v1/audit`,
 * `chaingate audit`). A summary never holds a secret: full keys, key secrets and tokens are left out by the
 * callers, and `withoutSecrets` masks a 32-hex API key that slipped in anyway.
 */
import { randomUUID } from 'node:crypto'
import type { Db } from '../db/database.ts'

export interface AuditEntry {
  id: string
  /** Unix milliseconds. */
  at: number
  /**
   * `admin-token` (the API's bearer token), `cli`, `dashboard:<account id>`, or `anonymous` for a refused call
   * without a valid token.
   */
  actor: string
  /** What was asked: `POST /admin/v1/keys/:id/revoke`, `cli key revoke`. */
  action: string
  /** The account or key id acted on, when there is one. */
  target: string | null
  summary: string
  /** The HTTP status of the answer; for the CLI 200 (done) or the refusal's status. */
  status: number
}

export type NewAuditEntry = Omit<AuditEntry, 'id'>

const API_KEY = /\b[0-9a-f]{32}\b/g
/** Masks anything shaped like an API key (32 hex characters), so a summary cannot carry one. */
export const withoutSecrets = (text: string) => text.replace(API_KEY, (k) => `${k.slice(0, 4)}…${k.slice(-4)}`)

/** Writes one entry; its id (to update a summary later, as the refused-call counts do). */
export async function recordAudit(db: Db, entry: NewAuditEntry): Promise<string> {
  const id = randomUUID()
  await db
    .insertInto('admin_audit')
    .values({
      id,
      at: entry.at,
      actor: entry.actor,
      action: withoutSecrets(entry.action).slice(0, 300),
      target: entry.target === null ? null : withoutSecrets(entry.target).slice(0, 200),
      summary: withoutSecrets(entry.summary).slice(0, 500),
      status: entry.status,
    })
    .execute()
  return id
}

export async function updateAuditSummary(db: Db, id: string, summary: string): Promise<void> {
  await db
    .updateTable('admin_audit')
    .set({ summary: withoutSecrets(summary).slice(0, 500) })
    .where('id', '=', id)
    .execute()
}

/** The newest entries first; `before` (unix ms) pages back from an earlier answer's last `at`. */
export async function listAudit(
  db: Db,
  opts: { limit: number; before?: number; target?: string },
): Promise<AuditEntry[]> {
  let q = db.selectFrom('admin_audit').selectAll()
  if (opts.before !== undefined) q = q.where('at', '<', opts.before)
  if (opts.target !== undefined) q = q.where('target', '=', opts.target)
  const rows = await q.orderBy('at', 'desc').orderBy('id', 'desc').limit(opts.limit).execute()
  return rows.map((r) => ({ ...r, at: Number(r.at), status: Number(r.status) }))
}
