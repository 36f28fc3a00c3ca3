/**
 * One UTC day's usage report, as `chaingate usage --json` prints it and `GET /admin/v1/usage` answers it (one
 * implementation, two faces; the dashboard's period charts read ./queries.ts `usageReport` the same way): totals per
 * method, network or key — for one account or key, or the whole gateway — with the owner's daily balance when
 * the day is today; or, by upstream, the gateway's own cost per network and node (docs/upstream-usage.md).
 */
import type { Db } from '../db/database.ts'
import type { PlanConfig } from '../config/schema.ts'
import { errors } from '../errors/index.ts'
import { creditsUsedToday, queryUsage, type UsageDimension } from './queries.ts'
import { dayRange, queryUpstreamUsage } from './upstream-usage-report.ts'

export type DayDimension = UsageDimension | 'upstream'
export const DAY_DIMENSIONS: readonly DayDimension[] = ['method', 'network', 'key', 'upstream']

/** Today as `YYYY-MM-DD` (UTC). */
export const utcDay = (nowMs: number) => new Date(nowMs).toISOString().slice(0, 10)

/** A real calendar date written `YYYY-MM-DD`. */
export function isUtcDay(day: string): boolean {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00Z`) : Number.NaN
  return !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(day)
}

export interface DayReportQuery {
  day: string
  by: DayDimension
  accountId?: string | undefined
  keyId?: string | undefined
  /** The account whose daily balance is shown: the account asked for, or the key's owner. */
  owner?: { id: string; plan: string } | undefined
  plans: Record<string, PlanConfig>
  nowMs: number
}

export async function dayUsageReport(db: Db, q: DayReportQuery): Promise<Record<string, unknown>> {
  if (!isUtcDay(q.day)) throw errors.validation('day must be a date as YYYY-MM-DD (UTC)', 'day')
  if (q.by === 'upstream') {
    if (q.accountId || q.keyId)
      throw errors.validation('by upstream reports the whole gateway: account and key do not apply', 'by')
    return { day: q.day, ...(await queryUpstreamUsage(db, dayRange(q.day))) }
  }
  const report = await queryUsage(db, {
    day: q.day,
    by: q.by,
    ...(q.accountId ? { accountId: q.accountId } : {}),
    ...(q.keyId ? { keyId: q.keyId } : {}),
  })
  // The account's balance today, as the dashboard shows it (plan credits per day minus today's spend).
  const perDay = q.owner ? q.plans[q.owner.plan]?.creditsPerDay : undefined
  if (!q.owner || q.day !== utcDay(q.nowMs) || typeof perDay !== 'number') return report
  const used = await creditsUsedToday(db, q.owner.id, q.nowMs)
  return { ...report, dailyBalance: { creditsPerDay: perDay, usedToday: used, remaining: Math.max(0, perDay - used) } }
}
