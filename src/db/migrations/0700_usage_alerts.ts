/**
 * Usage alerts (src/alerts; docs/alerts.md).
 * - alert_settings: one row per account that has alerts: its credit thresholds (percentages of the daily balance,
 *   e.g. "80,100"), its refusal-rate threshold (refused calls per minute), its webhook URL and signing secret.
 * - usage_alerts: one row per alert that fired, with its delivery state (the delivery log). The unique index on
 *   (account, kind, threshold, day) is how two processes agree that an alert fires once a UTC day: whoever inserts
 *   first sends it.
 * - alert_attempts: every delivery attempt (status or error, how long it took).
 */
import type { Kysely } from 'kysely'
import { intType } from '../dialect.ts'

export async function up(db: Kysely<any>): Promise<void> {
  const int = intType(db)
  await db.schema
    .createTable('alert_settings')
    .addColumn('account_id', 'text', (c) => c.primaryKey())
    .addColumn('credit_thresholds', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('refusals_per_minute', int)
    .addColumn('webhook_url', 'text')
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('updated_at', int, (c) => c.notNull())
    .execute()
  await db.schema
    .createTable('usage_alerts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull()) // 'credits' | 'refusals'
    .addColumn('threshold', int, (c) => c.notNull())
    .addColumn('day', int, (c) => c.notNull()) // days since 1970-01-01 UTC
    .addColumn('payload', 'text', (c) => c.notNull()) // the exact JSON body sent (and signed) on every attempt
    .addColumn('created_at', int, (c) => c.notNull())
    // 'pending' | 'delivered' | 'failed' | 'none' (no webhook configured)
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', int, (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', int)
    .addColumn('locked_until', int)
    .addColumn('last_status', int)
    .addColumn('last_error', 'text')
    .addColumn('delivered_at', int)
    .execute()
  await db.schema
    .createIndex('usage_alerts_once_a_day')
    .on('usage_alerts')
    .columns(['account_id', 'kind', 'threshold', 'day'])
    .unique()
    .execute()
  await db.schema.createIndex('usage_alerts_due').on('usage_alerts').columns(['status', 'next_attempt_at']).execute()
  await db.schema
    .createIndex('usage_alerts_by_account')
    .on('usage_alerts')
    .columns(['account_id', 'created_at'])
    .execute()
  await db.schema
    .createTable('alert_attempts')
    .addColumn('alert_id', 'text', (c) => c.notNull())
    .addColumn('attempt', int, (c) => c.notNull())
    .addColumn('at', int, (c) => c.notNull())
    .addColumn('status', int) // the HTTP status, null when no answer came
    .addColumn('error', 'text')
    .addColumn('duration_ms', int, (c) => c.notNull())
    .addPrimaryKeyConstraint('alert_attempts_pk', ['alert_id', 'attempt'])
    .execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are append-only')
}
