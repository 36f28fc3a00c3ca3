import type { Kysely } from 'kysely'
import { intType } from '../dialect.ts'

/**
 * The wallet's activity list (console): what was approved, rejected, signed and sent, with transaction hashes and
 * receipts.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const int = intType(db)
  await db.schema
    .createTable('wallet_activity')
    // SQLite: `integer primary key autoincrement` (as landed); PostgreSQL: an identity column.
    .addColumn('id', int, (c) =>
      int === 'bigint' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement(),
    )
    .addColumn('at', int, (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    // kind: session | personal_sign | eth_signTypedData_v4 | eth_sendTransaction
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull()) // approved | rejected | signed | sent | failed
    .addColumn('chain_id', int)
    .addColumn('address', 'text')
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('tx_hash', 'text')
    .addColumn('receipt_status', 'text') // null until mined: success | reverted
    .execute()
  await db.schema.createIndex('wallet_activity_at').on('wallet_activity').column('at').execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are append-only')
}
