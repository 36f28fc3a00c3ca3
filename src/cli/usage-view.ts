/** `chaingate usage` as text, from the report `--json` prints (src/usage/day-report.ts). */
import type { Account } from '../accounts/repository.ts'
import type { ApiKey } from '../keys/repository.ts'
import type { DayUsageRow } from '../usage/queries.ts'
import type { UpstreamUsageReport } from '../usage/upstream-usage-report.ts'
import { upstreamUsageLines } from './upstream-usage-view.ts'

interface DayReport {
  rows: DayUsageRow[]
  total: Omit<DayUsageRow, 'group'>
  dailyBalance?: { creditsPerDay: number; usedToday: number; remaining: number }
}

export function usageLines(
  report: Record<string, unknown>,
  q: { day: string; by: string; account?: Account | undefined; key?: ApiKey | undefined },
): string[] {
  if (q.by === 'upstream') return upstreamUsageLines(q.day, report as unknown as UpstreamUsageReport)
  const r = report as unknown as DayReport
  const row = (label: string, v: Omit<DayUsageRow, 'group'>) =>
    `${label.padEnd(40)} ${String(v.calls).padStart(10)} ${String(v.credits).padStart(12)} ` +
    String(v.errors).padStart(8)
  const lines = [
    `usage on ${q.day} (UTC)${q.account ? ` for ${q.account.email}` : ''}${q.key ? ` key ${q.key.id}` : ''}`,
    `${q.by.padEnd(40)} ${'calls'.padStart(10)} ${'credits'.padStart(12)} ${'errors'.padStart(8)}`,
    ...r.rows.map((x) => row(x.group, x)),
    row('total', r.total),
  ]
  const b = r.dailyBalance
  if (b) lines.push(`daily balance: ${b.remaining} of ${b.creditsPerDay} credits left today (${b.usedToday} used)`)
  return lines
}
