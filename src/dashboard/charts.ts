/**
 * Server-rendered inline SVG charts: no script, no CDN, readable without colour (every chart has a title, an
 * aria-label summary and a data table next to it in the page). Colours come from CSS classes `s0`…`s5`.
 */
import { html, type SafeHtml } from './html.ts'

export interface Series {
  label: string
  values: number[]
}

const W = 640
const H = 220
const PAD = { left: 52, right: 12, top: 12, bottom: 28 }
export const PALETTE_SIZE = 6

export function formatNumber(n: number): string {
  const abs = Math.abs(n)
  if (abs >= 1e12) return `${trim(n / 1e12)}T`
  if (abs >= 1e9) return `${trim(n / 1e9)}B`
  if (abs >= 1e6) return `${trim(n / 1e6)}M`
  if (abs >= 1e4) return `${trim(n / 1e3)}k`
  return String(Math.round(n))
}
const trim = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1).replace(/\.0$/, ''))

/** A round axis maximum ≥ max (1, 2, 2.5, 5 × 10^k). */
function niceMax(max: number): number {
  if (max <= 0) return 1
  const exp = 10 ** Math.floor(Math.log10(max))
  for (const m of [1, 2, 2.5, 5, 10]) if (m * exp >= max) return m * exp
  return 10 * exp
}

function axes(yMax: number, labels: string[], plotW: number, plotH: number): SafeHtml {
  const ticks = [0, 0.25, 0.5, 0.75, 1]
  const every = Math.max(1, Math.ceil(labels.length / 8))
  const step = plotW / Math.max(1, labels.length)
  return html`<g class="axis">${ticks.map((t) => {
    const y = PAD.top + plotH - t * plotH
    return html`<line x1="${PAD.left}" x2="${PAD.left + plotW}" y1="${y}" y2="${y}" class="grid"/><text x="${PAD.left - 6}" y="${y + 4}" text-anchor="end">${formatNumber(yMax * t)}</text>`
  })}${labels.map((l, i) =>
    i % every === 0
      ? html`<text x="${PAD.left + step * i + step / 2}" y="${H - 8}" text-anchor="middle">${l}</text>`
      : '',
  )}</g>`
}

function legend(series: Series[]): SafeHtml {
  if (series.length <= 1) return html``
  return html`<ul class="legend">${series.map(
    (s, i) => html`<li><span class="swatch s${i % PALETTE_SIZE}" aria-hidden="true"></span>${s.label}</li>`,
  )}</ul>`
}

function summary(title: string, series: Series[]): string {
  const total = series.reduce((sum, s) => sum + s.values.reduce((a, b) => a + b, 0), 0)
  return `${title}: total ${formatNumber(total)}${series.length > 1 ? `, ${series.map((s) => s.label).join(', ')}` : ''}`
}

/** Bars per time bucket, stacked by series. */
export function stackedBarChart(opts: { title: string; labels: string[]; series: Series[]; id?: string }): SafeHtml {
  const { labels, series } = opts
  const plotW = W - PAD.left - PAD.right
  const plotH = H - PAD.top - PAD.bottom
  const totals = labels.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0))
  const yMax = niceMax(Math.max(0, ...totals))
  const step = plotW / Math.max(1, labels.length)
  const barW = Math.max(1, step * 0.7)
  const bars = labels.map((label, i) => {
    let y = PAD.top + plotH
    return series.map((s, si) => {
      const v = s.values[i] ?? 0
      if (v <= 0) return ''
      const h = (v / yMax) * plotH
      y -= h
      return html`<rect class="s${si % PALETTE_SIZE}" x="${(PAD.left + step * i + (step - barW) / 2).toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${Math.max(0.5, h).toFixed(1)}"><title>${label} · ${s.label}: ${v.toLocaleString('en-US')}</title></rect>`
    })
  })
  return html`<figure class="chart"${opts.id ? html` id="${opts.id}"` : ''}><figcaption>${opts.title}</figcaption><svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${summary(opts.title, series)}" preserveAspectRatio="xMidYMid meet">${axes(yMax, labels, plotW, plotH)}${bars}</svg>${legend(series)}</figure>`
}

/** Lines per series over time buckets, with an optional dashed reference line (e.g. the daily quota). */
export function lineChart(opts: {
  title: string
  labels: string[]
  series: Series[]
  reference?: { label: string; value: number }
  id?: string
}): SafeHtml {
  const { labels, series } = opts
  const plotW = W - PAD.left - PAD.right
  const plotH = H - PAD.top - PAD.bottom
  const max = Math.max(0, ...series.flatMap((s) => s.values), opts.reference?.value ?? 0)
  const yMax = niceMax(max)
  const step = plotW / Math.max(1, labels.length)
  const x = (i: number) => PAD.left + step * i + step / 2
  const y = (v: number) => PAD.top + plotH - (v / yMax) * plotH
  const lines = series.map((s, si) => {
    const points = s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ')
    return html`<polyline class="line s${si % PALETTE_SIZE}" points="${points}"/>${s.values.map(
      (v, i) => html`<circle class="dot s${si % PALETTE_SIZE}" cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="2.5"><title>${labels[i]} · ${s.label}: ${v.toLocaleString('en-US')}</title></circle>`,
    )}`
  })
  const ref = opts.reference
    ? html`<line class="reference" x1="${PAD.left}" x2="${PAD.left + plotW}" y1="${y(opts.reference.value).toFixed(1)}" y2="${y(opts.reference.value).toFixed(1)}"/><text class="reference-label" x="${PAD.left + plotW - 4}" y="${(y(opts.reference.value) - 4).toFixed(1)}" text-anchor="end">${opts.reference.label}</text>`
    : ''
  return html`<figure class="chart"${opts.id ? html` id="${opts.id}"` : ''}><figcaption>${opts.title}</figcaption><svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${summary(opts.title, series)}" preserveAspectRatio="xMidYMid meet">${axes(yMax, labels, plotW, plotH)}${ref}${lines}</svg>${legend(series)}</figure>`
}

/** Horizontal bars, largest first (totals by method, network, key, error). */
export function horizontalBars(opts: { title: string; items: { label: string; value: number }[]; id?: string }): SafeHtml {
  const items = opts.items.slice(0, 10)
  // Narrower than the time charts: these sit in half-width cards, and text must stay readable.
  const width = 420
  const rowH = 24
  const labelW = 150
  const h = Math.max(1, items.length) * rowH + 8
  const max = Math.max(1, ...items.map((i) => i.value))
  const barSpace = width - labelW - 50
  const rows = items.map((item, i) => {
    const w = Math.max(1, (item.value / max) * barSpace)
    const y = 4 + i * rowH
    const label = item.label.length > 24 ? `${item.label.slice(0, 23)}…` : item.label
    return html`<text x="${labelW - 8}" y="${y + 16}" text-anchor="end">${label}</text><rect class="s${i % PALETTE_SIZE}" x="${labelW}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowH - 8}"><title>${item.label}: ${item.value.toLocaleString('en-US')}</title></rect><text x="${(labelW + w + 6).toFixed(1)}" y="${y + 16}">${formatNumber(item.value)}</text>`
  })
  const body = items.length === 0 ? html`<text x="${width / 2}" y="20" text-anchor="middle">no data in this period</text>` : rows
  return html`<figure class="chart"${opts.id ? html` id="${opts.id}"` : ''}><figcaption>${opts.title}</figcaption><svg class="hbars" viewBox="0 0 ${width} ${h}" role="img" aria-label="${summary(opts.title, items.map((i) => ({ label: i.label, values: [i.value] })))}" preserveAspectRatio="xMinYMin meet">${body}</svg></figure>`
}

/** Today's credits against the daily quota, as a bar with the share used. */
export function quotaGauge(opts: { used: number; quota: number }): SafeHtml {
  const share = opts.quota > 0 ? Math.min(1, opts.used / opts.quota) : 0
  const level = share >= 1 ? 'full' : share >= 0.85 ? 'high' : share >= 0.75 ? 'warn' : 'ok'
  const pct = (share * 100).toFixed(share < 0.1 && share > 0 ? 2 : 1)
  return html`<figure class="gauge"><svg viewBox="0 0 ${W} 28" role="img" aria-label="${`${pct}% of the daily quota used`}"><rect class="track" x="0" y="4" width="${W}" height="20" rx="4"/><rect class="fill ${level}" x="0" y="4" width="${(share * W).toFixed(1)}" height="20" rx="4"/></svg><figcaption><strong>${opts.used.toLocaleString('en-US')}</strong> of ${opts.quota.toLocaleString('en-US')} credits used today (${pct}%) · ${Math.max(0, opts.quota - opts.used).toLocaleString('en-US')} left · resets 00:00 UTC</figcaption></figure>`
}
