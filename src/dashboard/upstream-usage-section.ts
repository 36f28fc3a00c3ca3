/**
 * The operators' section of the usage page: what each upstream cost over the period and what the gateway saved
 * (src/usage/upstream-usage.ts; docs/upstream-usage.md). Shown only to operator accounts: upstream URLs and the
 * whole gateway's traffic are not an account's business.
 */
import type { UpstreamUsageReport } from '../usage/upstream-usage-report.ts'
import { html } from '../shared/html.ts'

const n = (v: number) => v.toLocaleString('en-US')
const pct = (part: number, whole: number) => (whole === 0 ? '0' : ((100 * part) / whole).toFixed(1))

export function upstreamUsageSection(report: UpstreamUsageReport, periodTitle: string) {
  const t = report.total
  const rows =
    report.rows.length === 0
      ? html`<tr><td colspan="8" class="muted">No forwarded calls in this period.</td></tr>`
      : report.rows.map(
          (r) =>
            html`<tr><td>${r.network}</td><td><code>${r.upstream}</code></td>
              <td class="num" data-label="Calls">${n(r.calls)}</td>
              <td class="num" data-label="Upstream requests">${n(r.attempts)}</td>
              <td class="num" data-label="Cache hits">${n(r.cacheHits)}</td>
              <td class="num" data-label="Shared in flight">${n(r.dedupHits)}</td>
              <td class="num" data-label="Client credits">${n(r.credits)}</td>
              <td class="num" data-label="Unanswered">${n(r.failures)}</td></tr>`,
        )
  return html`<section class="card" aria-labelledby="upstreams-h" id="upstream-usage">
    <h2 id="upstreams-h">Upstreams (all accounts; operators only)</h2><p>
    <strong>${n(t.saved)}</strong> of <strong>${n(t.calls)}</strong> forwarded calls in the last ${periodTitle} (${pct(
      t.saved,
      t.calls,
    )} %) were answered without an upstream request (cache or an identical call in flight); <strong>${n(
      t.attempts,
    )}</strong> upstream requests were made, retries and hedges included.</p>
    <div class="table-wrap"><table class="stack"><caption class="sr-only">Usage per upstream</caption><thead><tr>
    <th>Network</th><th>Upstream</th><th class="num">Calls</th><th class="num">Upstream requests</th>
    <th class="num">Cache hits</th><th class="num">Shared in flight</th><th class="num">Client credits</th>
    <th class="num">Unanswered</th></tr></thead><tbody>${rows}</tbody></table></div></section>`
}
