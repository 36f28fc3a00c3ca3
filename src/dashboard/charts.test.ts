import { describe, expect, test } from 'vitest'
import { bucketsFor } from '../usage/queries.ts'
import { formatNumber, horizontalBars, lineChart, niceScale, quotaGauge, stackedBarChart } from './charts.ts'

describe('chart scales', () => {
  test('behavior: the axis follows the data in whole, round steps', () => {
    expect(niceScale(810)).toEqual({ max: 1000, ticks: [0, 250, 500, 750, 1000] })
    expect(niceScale(10)).toEqual({ max: 10, ticks: [0, 5, 10] })
    expect(niceScale(3)).toEqual({ max: 3, ticks: [0, 1, 2, 3] })
    expect(niceScale(19_600)).toEqual({ max: 20_000, ticks: [0, 5000, 10_000, 15_000, 20_000] })
    expect(niceScale(5_000_000).max).toBe(6_000_000)
    for (const empty of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(niceScale(empty)).toEqual({ max: 1, ticks: [0, 1] })
    for (const v of [1, 7, 99, 101, 810, 12_345, 3_000_001]) {
      const s = niceScale(v)
      expect(s.max).toBeGreaterThanOrEqual(v)
      expect(s.ticks.every(Number.isInteger)).toBe(true)
      expect(s.ticks.length).toBeLessThanOrEqual(6)
    }
  })

  test('behavior: the quota line joins the scale only when the data reaches half of it', () => {
    const chart = (values: number[]) =>
      String(
        lineChart({
          title: 't',
          labels: values.map(String),
          series: [{ label: 'credits', values }],
          reference: { label: 'daily quota 3M', value: 3_000_000 },
        }),
      )
    const small = chart([0, 810])
    expect(small).not.toContain('<line class="reference" x1="52"')
    expect(small).toContain('daily quota 3M (above this scale)')
    const near = chart([0, 2_000_000])
    expect(near).toContain('<line class="reference" x1="52"')
    expect(near).not.toContain('above this scale')
  })
})

describe('charts', () => {
  test('behavior: SVG charts carry titles, labels and escaped series names', () => {
    const bars = stackedBarChart({
      title: 'Credits',
      labels: ['a', 'b'],
      series: [
        { label: '<x>', values: [1, 2] },
        { label: 'y', values: [3, 0] },
      ],
    }).value
    expect(bars).toContain('<svg')
    expect(bars).toContain('role="img"')
    expect(bars).toContain('&lt;x&gt;')
    expect(bars.match(/<rect /g)).toHaveLength(3)
    const line = lineChart({
      title: 'Calls',
      labels: ['a'],
      series: [{ label: 's', values: [5] }],
      reference: { label: 'quota', value: 10 },
    }).value
    expect(line).toContain('class="reference"')
    expect(horizontalBars({ title: 'none', items: [] }).value).toContain('no data in this period')
    expect(quotaGauge({ used: 900, quota: 1000 }).value).toContain('fill high')
    expect(quotaGauge({ used: 2000, quota: 1000 }).value).toContain('fill full')
  })

  test('behavior: compact number formatting', () => {
    expect([0, 999, 12_345, 1_500_000, 3_000_000_000].map(formatNumber)).toEqual(['0', '999', '12.3k', '1.5M', '3B'])
  })

  test('behavior: buckets are 24 hours or 7/30 UTC days ending with the current one', () => {
    const now = Date.UTC(2026, 0, 15, 12, 30)
    const h = bucketsFor('24h', now)
    expect(h.starts).toHaveLength(24)
    expect(h.starts.at(-1)).toBe(Date.UTC(2026, 0, 15, 12) / 1000)
    const d = bucketsFor('30d', now)
    expect(d.starts).toHaveLength(30)
    expect(d.starts.at(-1)).toBe(Date.UTC(2026, 0, 15) / 1000)
    expect(d.labels.at(-1)).toBe('01-15')
  })
})
