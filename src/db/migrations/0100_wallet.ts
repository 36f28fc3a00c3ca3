import { type Kysely, sql } from 'kysely'
import { intType } from '../dialect.ts'

/** Wallet tables: accounts (public addresses only), sessions per origin, approvals, and a change counter. */
export async function up(db: Kysely<any>): Promise<void> {
  const int = intType(db)
  await db.schema
    .createTable('wallet_accounts')
    // Lower-case 0x address; the key itself stays in the encrypted keystore file.
    .addColumn('address', 'text', (c) => c.primaryKey())
    .addColumn('hd_index', int, (c) => c.notNull().unique())
    .addColumn('label', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', int, (c) => c.notNull())
    .addColumn('removed_at', int)
    .execute()

  await db.schema
    .createTable('wallet_sessions')
    // One session per origin (no session ids, as in the CAIP-25 revision MetaMask implements; docs/wallet.md).
    .addColumn('origin', 'text', (c) => c.primaryKey())
    .addColumn('session', 'text', (c) => c.notNull()) // JSON StoredSession
    .addColumn('created_at', int, (c) => c.notNull())
    .addColumn('updated_at', int, (c) => c.notNull())
    .addColumn('expires_at', int) // from sessionProperties.expiry
    .execute()

  await db.schema
    .createTable('wallet_approvals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('origin', 'text', (c) => c.notNull())
    // kind: session | personal_sign | eth_signTypedData_v4 | eth_sendTransaction
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('request', 'text', (c) => c.notNull()) // JSON shown to the user
    .addColumn('status', 'text', (c) => c.notNull()) // pending | approved | rejected | expired
    .addColumn('decision', 'text') // JSON, e.g. picked accounts
    .addColumn('decided_by', 'text') // console | cli | auto
    .addColumn('created_at', int, (c) => c.notNull())
    .addColumn('expires_at', int, (c) => c.notNull())
    .addColumn('decided_at', int)
    .execute()
  await db.schema.createIndex('wallet_approvals_status').on('wallet_approvals').column('status').execute()

  // Bumped by every wallet write (server, console, CLI); the server polls it to pick up CLI changes.
  await db.schema
    .createTable('wallet_changes')
    .addColumn('id', int, (c) => c.primaryKey())
    .addColumn('version', int, (c) => c.notNull())
    .execute()
  await sql`insert into wallet_changes (id, version) values (1, 1)`.execute(db)
}

export async function down(): Promise<void> {
  throw new Error('migrations are append-only')
}
