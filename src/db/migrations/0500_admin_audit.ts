/**
 * The admin audit (src/audit/repository.ts; docs/admin-api.md, "Audit"): one row per admin API call and per
 * account or key change made with the CLI — who (`admin-token`, `cli`), what (HTTP method and route, the id it
 * targets, a summary without secrets), when, and the answer's status.
 */
import type { Kysely } from 'kysely'
import { intType } from '../dialect.ts'

export async function up(db: Kysely<any>): Promise<void> {
  const int = intType(db)
  await db.schema
    .createTable('admin_audit')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('at', int, (c) => c.notNull()) // unix milliseconds
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull()) // e.g. `POST /admin/v1/keys/:id/revoke`, `cli key revoke`
    .addColumn('target', 'text') // the account or key id acted on, when there is one
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('status', int, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('admin_audit_at').on('admin_audit').columns(['at', 'id']).execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are append-only')
}
