import { describe, expect, test } from 'vitest'
import { lineChart, niceScale } from './charts.ts'

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
