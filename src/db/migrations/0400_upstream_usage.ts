/**
 * Upstream usage (src/usage/upstream-usage.ts; docs/upstream-usage.md): per UTC hour, network, upstream (its
 * redacted label, or `cache` when the gateway answered itself) and method, how many client calls were served,
 * how many upstream requests they took (retries and hedges included), how many came from the cache or shared an
 * identical call in flight, what clients were charged for them, and how many got no answer.
 */
import type { Kysely } from 'kysely'
import { intType } from '../dialect.ts'

export async function up(db: Kysely<any>): Promise<void> {
  const int = intType(db)
  await db.schema
    .createTable('usage_upstream_hourly')
    .addColumn('hour', int, (c) => c.notNull()) // unix seconds at the start of the UTC hour
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('upstream', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('calls', int, (c) => c.notNull().defaultTo(0))
    .addColumn('attempts', int, (c) => c.notNull().defaultTo(0))
    .addColumn('cache_hits', int, (c) => c.notNull().defaultTo(0))
    .addColumn('dedup_hits', int, (c) => c.notNull().defaultTo(0))
    .addColumn('credits', int, (c) => c.notNull().defaultTo(0))
    .addColumn('failures', int, (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('usage_upstream_hourly_pk', ['hour', 'network', 'upstream', 'method'])
    .execute()
}

export async function down(): Promise<void> {
  throw new Error('migrations are append-only')
}
