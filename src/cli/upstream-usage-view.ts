/**
 * `chaingate usage --by upstream` as text: what each upstream cost and what the gateway saved (docs/upstream-usage.md).
 */
import type { UpstreamUsageReport } from '../usage/upstream-usage-report.ts'

const pct = (part: number, whole: number) => (whole === 0 ? '0 %' : `${((100 * part) / whole).toFixed(1)} %`)

export function upstreamUsageLines(day: string, report: UpstreamUsageReport): string[] {
  const cols = (a: string, b: string, ...nums: (string | number)[]) =>
    `${a.padEnd(16)} ${b.padEnd(40)} ${nums.map((n, i) => String(n).padStart(i === 0 ? 10 : 9)).join(' ')}`
  const lines = [
    `upstream usage on ${day} (UTC)`,
    cols('network', 'upstream', 'calls', 'attempts', 'cache', 'dedup', 'credits', 'failures'),
  ]
  for (const r of report.rows)
    lines.push(cols(r.network, r.upstream, r.calls, r.attempts, r.cacheHits, r.dedupHits, r.credits, r.failures))
  const t = report.total
  lines.push(cols('total', '', t.calls, t.attempts, t.cacheHits, t.dedupHits, t.credits, t.failures))
  lines.push(
    `upstream requests saved (cache + in-flight dedup): ${t.saved} of ${t.calls} calls (${pct(t.saved, t.calls)}); ` +
      `upstream requests per call: ${t.calls === 0 ? 0 : (t.attempts / t.calls).toFixed(2)}`,
  )
  return lines
}
