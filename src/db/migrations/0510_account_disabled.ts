/**
 * accounts.disabled_at: an operator disables an account (admin API, docs/admin-api.md) and enables it again; while
 * disabled its keys are refused like unknown ones, but nothing is deleted.
 */
import type { Kysely } from 'kysely'
import { intType } from '../dialect.ts'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('disabled_at', intType(db)).execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are append-only')
}
