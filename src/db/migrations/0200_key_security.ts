/**
 * Key security settings (docs/key-security.md) and dashboard logins.
 * - api_key_security: one row per key that has any setting; JSON columns for the lists and JWT public keys.
 * - account_credentials: the dashboard password of an account, as a self-describing scrypt string
 *   (src/dashboard/auth/passwords.ts); never the password itself.
 * - dashboard_sessions: login sessions, stored by sha256 of the cookie value so a database leak yields no
 *   usable session.
 */
import type { Kysely } from 'kysely'
import { intType } from '../dialect.ts'

export async function up(db: Kysely<any>): Promise<void> {
  const int = intType(db)
  await db.schema
    .createTable('api_key_security')
    .addColumn('key_id', 'text', (c) => c.primaryKey().references('api_keys.id'))
    .addColumn('secret_hash', 'text') // sha256 hex of the key secret; null: no secret yet
    .addColumn('require_secret', int, (c) => c.notNull().defaultTo(0))
    .addColumn('secret_overrides_allowlists', int, (c) => c.notNull().defaultTo(0))
    .addColumn('require_jwt', int, (c) => c.notNull().defaultTo(0))
    // {"origins":[],"userAgents":[],"addresses":[],"methods":[]}
    .addColumn('allowlists', 'text', (c) => c.notNull().defaultTo('{}'))
    // [{"id","name","alg","publicKeyPem","fingerprint"}]
    .addColumn('jwt_keys', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('updated_at', int, (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('account_credentials')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('updated_at', int, (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('dashboard_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey()) // sha256 hex of the cookie value
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', int, (c) => c.notNull())
    .addColumn('expires_at', int, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('dashboard_sessions_account').on('dashboard_sessions').column('account_id').execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are append-only')
}
