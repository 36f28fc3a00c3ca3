/**
 * The request explorer (docs/requests.md): one row per call, kept for a bounded time and count per key
 * (config `requests`). Never params, results or the key itself: the key's id, and what the gateway decided.
 */
import type { Kysely } from 'kysely'
import { intType } from '../dialect.ts'

export async function up(db: Kysely<any>): Promise<void> {
  const int = intType(db)
  await db.schema
    .createTable('request_log')
    // SQLite: the rowid (no AUTOINCREMENT table to update per insert); PostgreSQL: an identity column.
    .addColumn('id', int, (c) => (int === 'bigint' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey()))
    .addColumn('time', int, (c) => c.notNull()) // unix milliseconds when the call was settled
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull()) // ok | rpc:<JSON-RPC code> | http:<status> | http:undelivered
    .addColumn('latency_ms', int, (c) => c.notNull())
    .addColumn('credits', int, (c) => c.notNull())
    .addColumn('served', 'text') // cache | dedup | an upstream's label; null: the gateway answered, or no node did
    .addColumn('client', 'text') // the Origin header when sent, else the client's IP address
    .execute()
  // A key's newest calls (the explorer, the per-key cap), and the oldest calls overall (retention).
  await db.schema.createIndex('request_log_key_time').on('request_log').columns(['key_id', 'time']).execute()
  await db.schema.createIndex('request_log_time').on('request_log').column('time').execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are append-only')
}
