import { type Kysely, sql } from 'kysely'
import { intType } from '../dialect.ts'

export async function up(db: Kysely<any>): Promise<void> {
  const int = intType(db)
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('created_at', int, (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // The key itself (32 lowercase hex). Shown to its owner like Infura does; never logged.
    .addColumn('key', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', int, (c) => c.notNull())
    .addColumn('revoked_at', int)
    // Optional per-key limits; null means only the plan's limits apply.
    .addColumn('credits_per_second', int)
    .addColumn('credits_per_day', int)
    .execute()
  await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute()

  await db.schema
    .createTable('api_key_networks')
    .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id'))
    .addColumn('network', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('api_key_networks_pk', ['key_id', 'network'])
    .execute()

  // Usage ledger: one row per UTC hour, account, key, network and method.
  await db.schema
    .createTable('usage_hourly')
    .addColumn('hour', int, (c) => c.notNull()) // unix seconds at the start of the UTC hour
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('calls', int, (c) => c.notNull().defaultTo(0))
    .addColumn('credits', int, (c) => c.notNull().defaultTo(0))
    .addColumn('errors', int, (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('usage_hourly_pk', ['hour', 'account_id', 'key_id', 'network', 'method'])
    .execute()
  await db.schema.createIndex('usage_hourly_account_hour').on('usage_hourly').columns(['account_id', 'hour']).execute()

  // Error breakdown: by JSON-RPC error code or HTTP status, per hour.
  await db.schema
    .createTable('usage_errors')
    .addColumn('hour', int, (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('error', 'text', (c) => c.notNull()) // e.g. "http:429" or "rpc:-32000"
    .addColumn('count', int, (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('usage_errors_pk', ['hour', 'account_id', 'key_id', 'network', 'error'])
    .execute()

  // Bumped by every change to accounts or keys, so a running server reloads within settingsPollMs.
  await db.schema
    .createTable('settings_version')
    .addColumn('id', int, (c) => c.primaryKey())
    .addColumn('version', int, (c) => c.notNull())
    .execute()
  await sql`insert into settings_version (id, version) values (1, 1)`.execute(db)
}

export async function down(): Promise<void> {
  throw new Error('migrations are append-only')
}
