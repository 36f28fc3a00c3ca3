/**
 * The key page's request explorer (docs/requests.md): the key's recent calls, newest first, with filters (method,
 * status, errors only) and paging. Filters are a GET form, so a filtered view is a link that can be shared.
 * Which upstream answered is shown to operators only, as on the usage page: node URLs are not an account's business.
 */
import type { RequestPage } from '../usage/requests/queries.ts'
import type { RequestRow } from '../usage/requests/recorder.ts'
import { html } from '../shared/html.ts'
import { errorDisplayName, methodDisplayName } from './usage-labels.ts'

export const REQUESTS_PER_PAGE = 50

export interface RequestFilters {
  method: string
  status: string
  errors: boolean
  /** 1-based. */
  page: number
}

/** The filters of the key page's query string (unknown or bad values are ignored). */
export function requestFilters(query: Record<string, string | undefined> | undefined): RequestFilters {
  const page = Number(query?.page)
  return {
    method: (query?.method ?? '').trim().slice(0, 100),
    status: (query?.status ?? '').trim().slice(0, 40),
    errors: query?.errors === '1' || query?.errors === 'on',
    page: Number.isInteger(page) && page >= 1 && page <= 10_000 ? page : 1,
  }
}

const time = (ms: number) => new Date(ms).toISOString().slice(0, 23).replace('T', ' ')

function servedBy(r: RequestRow, operator: boolean): string {
  if (r.served === null) return r.status === 'ok' ? 'gateway' : '—'
  if (r.served === 'cache' || r.served === 'dedup') return r.served === 'cache' ? 'cache' : 'shared call (dedup)'
  return operator ? r.served : 'upstream'
}

export function requestsSection(
  keyId: string,
  filters: RequestFilters,
  page: RequestPage,
  opts: { operator: boolean; retentionHours: number },
) {
  const link = (p: number) => {
    const q = new URLSearchParams()
    if (filters.method) q.set('method', filters.method)
    if (filters.status) q.set('status', filters.status)
    if (filters.errors) q.set('errors', '1')
    if (p > 1) q.set('page', String(p))
    const s = q.toString()
    return `/keys/${keyId}${s ? `?${s}` : ''}#requests`
  }
  const rows =
    page.rows.length === 0
      ? html`<tr><td colspan="8" class="muted">No requests${
          filters.method || filters.status || filters.errors ? ' match these filters' : ''
        } in the last ${opts.retentionHours} hours.</td></tr>`
      : page.rows.map(
          (r) =>
            html`<tr><td class="mono" data-label="Time (UTC)">${time(r.time)}</td>
              <td data-label="Network">${r.network}</td>
              <td data-label="Method"><code>${methodDisplayName(r.method)}</code></td>
              <td data-label="Status">${
                r.status === 'ok'
                  ? html`<span class="badge on">ok</span>`
                  : html`<span class="badge off" title="${r.status}">${errorDisplayName(r.status)}</span>`
              }</td>
              <td class="num" data-label="Latency (ms)">${r.latencyMs}</td>
              <td class="num" data-label="Credits">${r.credits}</td>
              <td data-label="Served by">${servedBy(r, opts.operator)}</td>
              <td data-label="Client">${r.client ?? '—'}</td></tr>`,
        )
  const nav =
    filters.page > 1 || page.more
      ? html`<p class="row">${filters.page > 1 ? html`<a href="${link(filters.page - 1)}" rel="prev">← Newer</a>` : ''}
        <span class="muted">Page ${filters.page}</span>${
          page.more ? html`<a href="${link(filters.page + 1)}" rel="next">Older →</a>` : ''
        }</p>`
      : ''
  return html`<section class="card" aria-labelledby="requests-h" id="requests"><h2 id="requests-h">Recent requests</h2>
    <p class="muted">Every call with this key in the last ${opts.retentionHours} hours, newest first: what it cost and
    who answered. Parameters and results are never stored.</p>
    <form method="get" action="/keys/${keyId}#requests" class="row"><div><label for="rq-method">Method</label>
    <input id="rq-method" name="method" type="text" maxlength="100" placeholder="eth_call" value="${
      filters.method
    }"></div>
    <div><label for="rq-status">Status</label>
    <input id="rq-status" name="status" type="text" maxlength="40" placeholder="ok, 429, -32000" value="${
      filters.status
    }"></div>
    <label class="check"><input type="checkbox" name="errors" value="1"${
      filters.errors ? html` checked` : ''
    }> Errors only</label>
    <button type="submit" class="secondary">Filter</button></form>
    <div class="table-wrap"><table class="stack" id="requests-table"><caption class="sr-only">Recent requests</caption>
    <thead><tr>
    <th>Time (UTC)</th><th>Network</th><th>Method</th><th>Status</th><th class="num">Latency (ms)</th>
    <th class="num">Credits</th><th>Served by</th><th>Client</th></tr></thead>
    <tbody>${rows}</tbody></table></div>${nav}</section>`
}
