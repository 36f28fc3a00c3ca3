import type { PlanConfig } from '../../config/schema.ts'
import {
  formatNumber,
  horizontalBars,
  lineChart,
  quotaGauge,
  stackedBarChart,
  PALETTE_SIZE,
  type Series,
} from '../charts.ts'
import { html } from '../../shared/html.ts'
import { errorDisplayName, methodDisplayName, methodLabelMeaning } from '../usage-labels.ts'
import { upstreamUsageSection } from '../upstream-usage-section.ts'
import type { UpstreamUsageReport } from '../../usage/upstream-usage-report.ts'
import {
  USAGE_DIMENSIONS,
  USAGE_RANGES,
  type UsageDimension,
  type UsageRange,
  type UsageReport,
} from '../../usage/queries.ts'

import { layout, type PageContext } from './layout.ts'

// ---- usage -----------------------------------------------------------------------------------------------------

const RANGE_LABEL: Record<UsageRange, string> = { '24h': '24 hours', '7d': '7 days', '30d': '30 days' }
const DIMENSION_LABEL: Record<UsageDimension, string> = { method: 'method', network: 'network', key: 'API key' }

export function usagePage(
  ctx: PageContext,
  data: {
    report: UsageReport
    range: UsageRange
    dimension: UsageDimension
    keyId: string | undefined
    keys: { id: string; name: string }[]
    usedToday: number
    plan: PlanConfig
    daily: { labels: string[]; values: number[] }
    /** Operators only: usage per upstream over the same period. */
    upstreams?: UpstreamUsageReport | undefined
  },
): string {
  const { report } = data
  const keyName = new Map(data.keys.map((k) => [k.id, k.name]))
  const groupLabel = (g: string) =>
    data.dimension === 'key' ? (keyName.get(g) ?? g) : data.dimension === 'method' ? methodDisplayName(g) : g
  const query = (patch: Record<string, string | undefined>) => {
    const q = new URLSearchParams()
    const merged = { range: data.range, by: data.dimension, key: data.keyId, ...patch }
    for (const [k, v] of Object.entries(merged)) if (v) q.set(k, v)
    return `/usage?${q.toString()}`
  }

  // Top five groups by credits get their own colour; the rest are summed as "other".
  const totalsByGroup = new Map<string, number>()
  for (const r of report.rows) totalsByGroup.set(r.group, (totalsByGroup.get(r.group) ?? 0) + r.credits + r.calls / 1e9)
  const ranked = [...totalsByGroup.entries()].sort((a, b) => b[1] - a[1]).map(([g]) => g)
  const top = ranked.slice(0, PALETTE_SIZE - 1)
  const hasOther = ranked.length > top.length
  const index = new Map(report.buckets.starts.map((s, i) => [s, i]))
  const mkSeries = (field: 'credits' | 'calls'): Series[] => {
    const series: Series[] = top.map((g) => ({ label: groupLabel(g), values: report.buckets.starts.map(() => 0) }))
    // Not "other": that is the ledger's label for unsupported methods (usage-labels.ts).
    const other: Series = { label: 'all the rest', values: report.buckets.starts.map(() => 0) }
    for (const r of report.rows) {
      const i = index.get(r.bucket)
      if (i === undefined) continue
      const t = top.indexOf(r.group)
      ;(t >= 0 ? series[t]! : other).values[i]! += r[field]
    }
    return hasOther ? [...series, other] : series
  }

  const tabs = (items: readonly string[], current: string, param: string, label: (v: string) => string, name: string) =>
    html`<nav class="tabs" aria-label="${name}">${items.map(
      (v) => html`<a href="${query({ [param]: v })}"${v === current ? html` aria-current="true"` : ''}>${label(v)}</a>`,
    )}
      </nav>`

  const table = (
    title: string,
    items: { label: string; id: string; calls: number; credits: number; errors: number }[],
  ) =>
    html`<div class="table-wrap"><table class="stack"><caption class="sr-only">${title}</caption><thead><tr>
      <th>${title}</th><th class="num">Calls</th><th class="num">Credits</th><th class="num">Errors</th></tr></thead>
      <tbody>${
        items.length === 0
          ? html`<tr><td colspan="4" class="muted">No calls in this period.</td>
      </tr>`
          : items.slice(0, 20).map(
              (t) => html`<tr>
      <td>${t.label === t.id ? t.label : html`<span title="${t.id}">${t.label}</span>`}</td>
      <td class="num" data-label="Calls">${t.calls.toLocaleString('en-US')}</td>
      <td class="num" data-label="Credits">${t.credits.toLocaleString('en-US')}</td>
      <td class="num" data-label="Errors">${t.errors.toLocaleString('en-US')}</td></tr>`,
            )
      }</tbody></table></div>`

  const byKey = report.byKey.map((t) => ({ ...t, label: keyName.get(t.id) ?? t.id }))
  const byMethod = report.byMethod.map((t) => ({ ...t, label: methodDisplayName(t.id) }))
  const meanings = byMethod.flatMap((t) => {
    const m = methodLabelMeaning(t.id)
    return m ? [html`<dt>${m.name}</dt><dd>${m.meaning}</dd>`] : []
  })
  const rangeTitle = RANGE_LABEL[data.range]

  const per = data.range === '24h' ? 'hour' : 'day'
  const dimension = DIMENSION_LABEL[data.dimension]
  const count = (n: number) => n.toLocaleString('en-US')
  const t = report.totals
  const n = { calls: count(t.calls), credits: count(t.credits), errors: count(t.errors) }
  const balance = html`<section class="card" aria-labelledby="balance-h"><h2 id="balance-h">Daily credit balance</h2>${[
    quotaGauge({ used: data.usedToday, quota: data.plan.creditsPerDay }),
    lineChart({
      title: `Credits per day (UTC) against the daily quota`,
      labels: data.daily.labels,
      series: [{ label: 'credits per day', values: data.daily.values }],
      reference: { label: `daily quota ${formatNumber(data.plan.creditsPerDay)}`, value: data.plan.creditsPerDay },
      id: 'daily-chart',
    }),
  ]}</section>`
  const keyOptions = data.keys.map(
    (k) => html`<option value="${k.id}"${k.id === data.keyId ? html` selected` : ''}>${k.name}</option>`,
  )
  const filters = html`<section class="card" aria-labelledby="filters-h">
<h2 id="filters-h" class="sr-only">Filters</h2>${[
    tabs(USAGE_RANGES, data.range, 'range', (r) => `Last ${RANGE_LABEL[r as UsageRange]}`, 'Period'),
    tabs(USAGE_DIMENSIONS, data.dimension, 'by', (d) => `By ${DIMENSION_LABEL[d as UsageDimension]}`, 'Break down by'),
  ]}<form method="get" action="/usage" class="row">
<input type="hidden" name="range" value="${data.range}"><input type="hidden" name="by" value="${data.dimension}">
<div><label for="key-filter">API key</label><select id="key-filter" name="key"><option value="">All keys</option>${
    keyOptions
  }</select></div><button type="submit" class="secondary">Show</button></form>
<p><strong>${n.calls}</strong> calls, <strong>${n.credits}</strong> credits, <strong>${
    n.errors
  }</strong> errors in the last ${rangeTitle}.</p></section>`
  const charts = html`<section class="card" aria-labelledby="charts-h">
<h2 id="charts-h">Over time, by ${dimension}</h2>${[
    stackedBarChart({
      title: `Credits per ${per} by ${dimension}`,
      labels: report.buckets.labels,
      series: mkSeries('credits'),
      id: 'credits-chart',
    }),
    lineChart({
      title: `Calls per ${per} by ${dimension}`,
      labels: report.buckets.labels,
      series: mkSeries('calls'),
      id: 'calls-chart',
    }),
  ]}</section>`
  const bars = (title: string, items: { label: string; value: number }[], id: string) =>
    horizontalBars({ title, items, id })
  const credits = (rows: { label: string; credits: number }[]) =>
    rows.map((t) => ({ label: t.label, value: t.credits }))
  const errorRows =
    report.errors.length === 0
      ? html`<tr><td colspan="2" class="muted">No errors in this period.</td></tr>`
      : report.errors.map(
          (e) =>
            html`<tr><td>${errorDisplayName(e.error)} <code class="muted">${e.error}</code></td><td class="num">${count(
              e.count,
            )}</td></tr>`,
        )
  const errorItems = report.errors.map((e) => ({ label: errorDisplayName(e.error), value: e.count }))
  const totalsBy = html`<div class="grid2"><section class="card">${[
    bars('Credits by method', credits(byMethod), 'method-chart'),
    table('Method', byMethod),
    meanings.length ? html`<dl class="labels" id="label-meanings">${meanings}</dl>` : '',
  ]}</section><section class="card">${[
    bars('Credits by network', credits(report.byNetwork), 'network-chart'),
    table('Network', report.byNetwork),
  ]}</section><section class="card">${[
    bars('Credits by API key', credits(byKey), 'key-chart'),
    table('API key', byKey),
  ]}</section><section class="card" aria-labelledby="errors-h"><h2 id="errors-h">Errors</h2>${bars(
    'Failed requests by status or JSON-RPC code',
    errorItems,
    'errors-chart',
  )}<div class="table-wrap"><table><thead><tr><th>Error</th><th class="num">Count</th></tr></thead><tbody>${
    errorRows
  }</tbody></table></div></section></div>`

  return layout(
    'Usage',
    ctx,
    html`${balance}
${filters}
${charts}
${totalsBy}${data.upstreams ? upstreamUsageSection(data.upstreams, rangeTitle) : ''}`,
  )
}
