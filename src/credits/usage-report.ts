/** Reads the usage ledger for the CLI (and the dashboard): totals for one UTC day, grouped. */
import type { Db } from '../db/database.ts'

export interface UsageRow {
  group: string
  calls: number
  credits: number
  errors: number
}

export async function queryUsage(
  db: Db,
  q: { day: string; by: 'method' | 'network' | 'key'; accountId?: string; keyId?: string },
): Promise<{ day: string; by: string; rows: UsageRow[]; total: Omit<UsageRow, 'group'> }> {
  const start = Date.parse(`${q.day}T00:00:00Z`) / 1000
  const column = q.by === 'key' ? 'key_id' : q.by
  let query = db
    .selectFrom('usage_hourly')
    .select([
      `${column} as group` as 'method',
      (eb) => eb.fn.sum<number>('calls').as('calls'),
      (eb) => eb.fn.sum<number>('credits').as('credits'),
      (eb) => eb.fn.sum<number>('errors').as('errors'),
    ])
    .where('hour', '>=', start)
    .where('hour', '<', start + 86_400)
  if (q.accountId) query = query.where('account_id', '=', q.accountId)
  if (q.keyId) query = query.where('key_id', '=', q.keyId)
  const raw = (await query.groupBy(column).orderBy('credits', 'desc').execute()) as unknown as Record<string, unknown>[]
  const rows = raw.map((r) => ({ group: String(r.group), calls: Number(r.calls), credits: Number(r.credits), errors: Number(r.errors) }))
  const total = rows.reduce((t, r) => ({ calls: t.calls + r.calls, credits: t.credits + r.credits, errors: t.errors + r.errors }), { calls: 0, credits: 0, errors: 0 })
  return { day: q.day, by: q.by, rows, total }
}
