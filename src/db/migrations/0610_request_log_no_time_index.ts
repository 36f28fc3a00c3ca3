/**
 * The request explorer's `request_log` loses its index on `time`: retention now finds the oldest records by `id`
 * (insertion order; src/usage/requests/prune.ts), and the index cost every record a third of its SQLite insert
 * (docs/benchmarks.md, "Outside the counted part"). Per-key reads keep `request_log_key_time`.
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('request_log_time').ifExists().execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('request_log_time').on('request_log').column('time').execute()
}
