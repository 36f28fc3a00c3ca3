/**
 * Account roles and deletion (docs/dashboard.md).
 * - accounts.role: 'user' or 'operator' (operators see every account in the dashboard and change plans); set with
 *   `chaingate account set-role`.
 * - accounts.deleted_at: a deleted account keeps its row (its revoked keys and usage rows still point at it, so
 *   the operator's totals stay whole); its email is replaced so the address can sign up again.
 */
import type { Kysely } from 'kysely'
import { intType } from '../dialect.ts'

export async function up(db: Kysely<any>): Promise<void> {
  const int = intType(db)
  await db.schema
    .alterTable('accounts')
    .addColumn('role', 'text', (c) => c.notNull().defaultTo('user'))
    .execute()
  await db.schema.alterTable('accounts').addColumn('deleted_at', int).execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are append-only')
}
