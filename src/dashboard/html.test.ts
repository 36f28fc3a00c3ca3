import { describe, expect, test } from 'vitest'
import { formatNumber, horizontalBars, lineChart, quotaGauge, stackedBarChart } from './charts.ts'
import { html, raw } from './html.ts'
import { bucketsFor } from '../usage/queries.ts'

describe('html', () => {
  test('behavior: interpolations are escaped unless already safe; arrays join', () => {
    const name = `<img src=x onerror="alert('x')">&`
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;">&lt;img src=x ' +
        'onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;</p>',
    )
    expect(html`<ul>${['a', 'b'].map((v) => html`<li>${v}</li>`)}</ul>`.value).toBe('<ul><li>a</li><li>b</li></ul>')
    expect(html`${raw('<b>')}${null}${undefined}${false}${0}`.value).toBe('<b>0')
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
