/**
 * Accounts with mail and a second factor (docs/dashboard.md).
 * - link_tokens: the single-use, expiring tokens of mailed links (sign-up confirmation, password reset, team
 *   invitations) and of a log-in waiting for its second factor; only the sha256 of a token is stored, with its
 *   purpose, so a copy of the database cannot be replayed and a reset link cannot confirm
 *   (src/accounts/link-tokens.ts).
 * - accounts.email_confirmed_at: set when the sign-up link was followed; accounts made before this migration (and by
 *   operators) count as confirmed.
 * - account_totp: the account's TOTP secret (RFC 6238), when it was turned on, and the last time step accepted, so
 *   a code cannot be used twice.
 * - account_recovery_codes: the sha256 of each single-use recovery code.
 * - dashboard_sessions.user_agent, ip, last_seen_at: the account page lists active log-ins.
 */
import { sql, type Kysely } from 'kysely'
import { intType } from '../dialect.ts'

export async function up(db: Kysely<any>): Promise<void> {
  const int = intType(db)
  await db.schema
    .createTable('link_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text')
    .addColumn('email', 'text')
    .addColumn('data', 'text')
    .addColumn('created_at', int, (c) => c.notNull())
    .addColumn('expires_at', int, (c) => c.notNull())
    .addColumn('used_at', int)
    .execute()
  await db.schema.createIndex('link_tokens_by_account').on('link_tokens').columns(['account_id', 'purpose']).execute()
  await db.schema.createIndex('link_tokens_expiry').on('link_tokens').column('expires_at').execute()
  await db.schema.alterTable('accounts').addColumn('email_confirmed_at', int).execute()
  await sql`UPDATE accounts SET email_confirmed_at = created_at`.execute(db)
  await db.schema
    .createTable('account_totp')
    .addColumn('account_id', 'text', (c) => c.primaryKey())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('enabled_at', int)
    .addColumn('last_step', int)
    .addColumn('updated_at', int, (c) => c.notNull())
    .execute()
  await db.schema
    .createTable('account_recovery_codes')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', int)
    .addPrimaryKeyConstraint('account_recovery_codes_pk', ['account_id', 'code_hash'])
    .execute()
  await db.schema.alterTable('dashboard_sessions').addColumn('user_agent', 'text').execute()
  await db.schema.alterTable('dashboard_sessions').addColumn('ip', 'text').execute()
  await db.schema.alterTable('dashboard_sessions').addColumn('last_seen_at', int).execute()
  await db.schema.createIndex('dashboard_sessions_by_account').on('dashboard_sessions').column('account_id').execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are append-only')
}
