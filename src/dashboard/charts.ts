/**
 * Server-rendered inline SVG charts: no script, no CDN, readable without colour (every chart has a title, an
 * aria-label summary and a data table next to it in the page). Colours come from CSS classes `s0`…`s5`.
 */
import { html, type SafeHtml } from '../shared/html.ts'

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

/**
 * The value axis for data up to `dataMax`: about `count` steps of 1, 2, 2.5 or 5 × 10^k (at least 1: credits and
 * calls are whole numbers), ending at the first step at or above the data. 810 credits get 0–1000 in steps of
 * 250, not the 0–5M of a quota far above them.
 */
export function niceScale(dataMax: number, count = 4): { max: number; ticks: number[] } {
  const top = dataMax > 0 && Number.isFinite(dataMax) ? dataMax : 1
  const raw = top / count
  const exp = 10 ** Math.floor(Math.log10(raw))
  // Whole steps only (2.5 is skipped below 25), so no tick label is rounded.
  const step = Math.max(
    1,
    [1, 2, 2.5, 5, 10].map((f) => f * exp).find((s) => s >= raw && (s >= 10 || Number.isInteger(s)))!,
  )
  const max = Math.ceil(top / step) * step
  const ticks: number[] = []
  for (let i = 0; i * step <= max; i++) ticks.push(i * step)
  return { max, ticks }
}

function axes(scale: { max: number; ticks: number[] }, labels: string[], plotW: number, plotH: number): SafeHtml {
  const every = Math.max(1, Math.ceil(labels.length / 8))
  const step = plotW / Math.max(1, labels.length)
  return html`<g class="axis">${scale.ticks.map((t) => {
    const y = PAD.top + plotH - (t / scale.max) * plotH
    return html`<line x1="${PAD.left}" x2="${PAD.left + plotW}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" class="grid"/>
      <text x="${PAD.left - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end">${formatNumber(t)}</text>`
  })}${labels.map((l, i) =>
    i % every === 0
      ? html`<text x="${PAD.left + step * i + step / 2}" y="${H - 8}" text-anchor="middle">${l}</text>`
      : '',
  )}</g>`
}

/** Dash pattern per series, so lines that overlap stay apart without colour too. */
const DASHES = ['', '7 4', '2 3', '9 3 2 3', '4 4', '12 3 2 3 2 3']

/** A marker per series: circle, square, triangle, diamond, … (centred on x, y). */
function marker(si: number, x: number, y: number, title: SafeHtml): SafeHtml {
  const cls = `dot s${si % PALETTE_SIZE}`
  const r = 3
  const at = (pts: [number, number][]) =>
    pts.map(([dx, dy]) => `${(x + dx).toFixed(1)},${(y + dy).toFixed(1)}`).join(' ')
  switch (si % 4) {
    case 1:
      return html`<rect class="${cls}" x="${(x - r).toFixed(1)}" y="${(y - r).toFixed(1)}" width="${2 * r}" height="${
        2 * r
      }">${title}</rect>`
    case 2:
      return html`<polygon class="${cls}" points="${at([
        [0, -r - 0.5],
        [r + 0.5, r],
        [-r - 0.5, r],
      ])}">${title}</polygon>`
    case 3:
      return html`<polygon class="${cls}" points="${at([
        [0, -r - 0.5],
        [r + 0.5, 0],
        [0, r + 0.5],
        [-r - 0.5, 0],
      ])}">${title}</polygon>`
    default:
      return html`<circle class="${cls}" cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${r}">${title}</circle>`
  }
}

type LegendItem = { label: string; kind: 'bar' | 'line' | 'reference'; index: number }

const dashAttr = (si: number) => {
  const dash = DASHES[si % DASHES.length]
  return dash ? html` stroke-dasharray="${dash}"` : ''
}

function legend(items: LegendItem[]): SafeHtml {
  if (items.length === 0) return html``
  return html`<ul class="legend">${items.map((it) => {
    const swatch =
      it.kind === 'bar'
        ? html`<span class="swatch s${it.index % PALETTE_SIZE}" aria-hidden="true"></span>`
        : it.kind === 'reference'
          ? html`<svg class="key" viewBox="0 0 28 10" aria-hidden="true">
            <line class="reference" x1="1" x2="27" y1="5" y2="5"/></svg>`
          : html`<svg class="key" viewBox="0 0 28 10" aria-hidden="true">
            <line class="line s${it.index % PALETTE_SIZE}" x1="1" x2="27" y1="5" y2="5"${dashAttr(it.index)}/>${marker(
              it.index,
              14,
              5,
              html``,
            )}
            </svg>`
    return html`<li>${swatch}${it.label}</li>`
  })}</ul>`
}

function summary(title: string, series: Series[]): string {
  const total = series.reduce((sum, s) => sum + s.values.reduce((a, b) => a + b, 0), 0)
  const names = series.length > 1 ? `, ${series.map((s) => s.label).join(', ')}` : ''
  return `${title}: total ${formatNumber(total)}${names}`
}

/** Bars per time bucket, stacked by series. */
export function stackedBarChart(opts: { title: string; labels: string[]; series: Series[]; id?: string }): SafeHtml {
  const { labels, series } = opts
  const plotW = W - PAD.left - PAD.right
  const plotH = H - PAD.top - PAD.bottom
  const totals = labels.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0))
  const scale = niceScale(Math.max(0, ...totals))
  const yMax = scale.max
  const step = plotW / Math.max(1, labels.length)
  const barW = Math.max(1, step * 0.7)
  const bw = barW.toFixed(1)
  const bars = labels.map((label, i) => {
    let y = PAD.top + plotH
    return series.map((s, si) => {
      const v = s.values[i] ?? 0
      if (v <= 0) return ''
      const h = (v / yMax) * plotH
      y -= h
      const x = (PAD.left + step * i + (step - barW) / 2).toFixed(1)
      const height = Math.max(0.5, h).toFixed(1)
      return html`<rect class="bar s${si % PALETTE_SIZE}" x="${x}" y="${y.toFixed(1)}" width="${bw}" height="${height}">
        <title>${label} · ${s.label}: ${v.toLocaleString('en-US')}</title></rect>`
    })
  })
  return html`<figure class="chart"${opts.id ? html` id="${opts.id}"` : ''}><figcaption>${opts.title}</figcaption>
    <svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${summary(
      opts.title,
      series,
    )}" preserveAspectRatio="xMidYMid meet">${axes(scale, labels, plotW, plotH)}${bars}
    </svg>${legend(
      series.length > 1 ? series.map((s, index) => ({ label: s.label, kind: 'bar' as const, index })) : [],
    )}
    </figure>`
}

/**
 * Lines per series over time buckets (each with its own colour, dash pattern and marker), with an optional dashed
 * reference line (e.g. the daily quota). The axis is scaled to the data; the reference joins the scale only when
 * the data reaches half of it, otherwise the legend says it lies above.
 */
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
  const dataMax = Math.max(0, ...series.flatMap((s) => s.values))
  const ref = opts.reference && opts.reference.value > 0 ? opts.reference : undefined
  const refOnScale = ref !== undefined && dataMax >= ref.value / 2
  const scale = niceScale(refOnScale ? Math.max(dataMax, ref.value) : dataMax)
  const step = plotW / Math.max(1, labels.length)
  const x = (i: number) => PAD.left + step * i + step / 2
  const y = (v: number) => PAD.top + plotH - (v / scale.max) * plotH
  const lines = series.map((s, si) => {
    const points = s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ')
    return html`<polyline class="line s${si % PALETTE_SIZE}" points="${points}"${dashAttr(si)}/>${s.values.map((v, i) =>
      marker(si, x(i), y(v), html`<title>${labels[i]} · ${s.label}: ${v.toLocaleString('en-US')}</title>`),
    )}`
  })
  const refMark = !ref
    ? ''
    : refOnScale
      ? html`<line class="reference" x1="${PAD.left}" x2="${PAD.left + plotW}" y1="${y(ref.value).toFixed(1)}" y2="${y(
          ref.value,
        ).toFixed(1)}"/>
        <text class="reference-label" x="${PAD.left + plotW - 4}" y="${(y(ref.value) - 4).toFixed(
          1,
        )}" text-anchor="end">${ref.label}</text>`
      : '' // named in the legend only: a label inside the plot would sit on the data at its top
  const items: LegendItem[] =
    series.length > 1 || ref ? series.map((s, index) => ({ label: s.label, kind: 'line' as const, index })) : []
  if (ref)
    items.push({ label: refOnScale ? ref.label : `${ref.label} (above this scale)`, kind: 'reference', index: 0 })
  return html`<figure class="chart"${opts.id ? html` id="${opts.id}"` : ''}><figcaption>${opts.title}</figcaption>
    <svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${summary(
      opts.title,
      series,
    )}" preserveAspectRatio="xMidYMid meet">${axes(scale, labels, plotW, plotH)}${refMark}${lines}
    </svg>${legend(items)}</figure>`
}

/** Horizontal bars, largest first (totals by method, network, key, error). */
export function horizontalBars(opts: {
  title: string
  items: { label: string; value: number }[]
  id?: string
}): SafeHtml {
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
    return html`<text x="${labelW - 8}" y="${y + 16}" text-anchor="end">${label}</text>
      <rect class="s${i % PALETTE_SIZE}" x="${labelW}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowH - 8}">
      <title>${item.label}: ${item.value.toLocaleString('en-US')}</title></rect>
      <text x="${(labelW + w + 6).toFixed(1)}" y="${y + 16}">${formatNumber(item.value)}</text>`
  })
  const body =
    items.length === 0 ? html`<text x="${width / 2}" y="20" text-anchor="middle">no data in this period</text>` : rows
  return html`<figure class="chart"${opts.id ? html` id="${opts.id}"` : ''}><figcaption>${opts.title}</figcaption>
    <svg class="hbars" viewBox="0 0 ${width} ${h}" role="img" aria-label="${summary(
      opts.title,
      items.map((i) => ({ label: i.label, values: [i.value] })),
    )}" preserveAspectRatio="xMinYMin meet">${body}</svg></figure>`
}

/** Today's credits against the daily quota, as a bar with the share used. */
export function quotaGauge(opts: { used: number; quota: number }): SafeHtml {
  const share = opts.quota > 0 ? Math.min(1, opts.used / opts.quota) : 0
  const level = share >= 1 ? 'full' : share >= 0.85 ? 'high' : share >= 0.75 ? 'warn' : 'ok'
  const pct = (share * 100).toFixed(share < 0.1 && share > 0 ? 2 : 1)
  return html`<figure class="gauge">
    <svg viewBox="0 0 ${W} 28" role="img" aria-label="${`${pct}% of the daily quota used`}">
    <rect class="track" x="0" y="4" width="${W}" height="20" rx="4"/>
    <rect class="fill ${level}" x="0" y="4" width="${(share * W).toFixed(1)}" height="20" rx="4"/></svg><figcaption>
    <strong>${opts.used.toLocaleString('en-US')}</strong> of ${opts.quota.toLocaleString(
      'en-US',
    )} credits used today (${pct}%) · ${Math.max(0, opts.quota - opts.used).toLocaleString(
      'en-US',
    )} left · resets 00:00 UTC</figcaption>
    </figure>`
}
