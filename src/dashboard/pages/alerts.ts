/**
 * The account page's "Usage alerts" section (docs/alerts.md): the settings form, the signing secret once when it
 * was just made, and the recent alerts with their delivery status. Pure: plain data in, HTML out.
 */
import type { AlertRecord } from '../../alerts/log.ts'
import type { AlertSettings } from '../../alerts/settings.ts'
import { html, type SafeHtml } from '../../shared/html.ts'
import { csrfField } from './layout.ts'

export interface AlertsSectionData {
  settings: AlertSettings | undefined
  recent: AlertRecord[]
  /** The signing secret, only in the answer to the form that made it. */
  secret?: string | undefined
}

const BADGE: Record<AlertRecord['status'], string> = {
  delivered: 'on',
  pending: 'off',
  failed: 'revoked',
  none: 'off',
}
const STATUS_TEXT: Record<AlertRecord['status'], string> = {
  delivered: 'delivered',
  pending: 'retrying',
  failed: 'failed',
  none: 'no webhook',
}

function row(a: AlertRecord): SafeHtml {
  const what = a.kind === 'credits' ? `${a.threshold} % of the daily balance` : `${a.threshold} refused calls a minute`
  const detail = [
    `${a.attempts} attempt${a.attempts === 1 ? '' : 's'}`,
    a.lastError ? `last error: ${a.lastError}` : '',
    a.status === 'pending' && a.nextAttemptAt
      ? `next ${new Date(a.nextAttemptAt).toISOString().slice(11, 19)} UTC`
      : '',
  ].filter(Boolean)
  const when = new Date(a.createdAt).toISOString().replace('T', ' ').slice(0, 19)
  return html`<tr id="alert-${a.id}"><td data-label="When (UTC)">${when}</td>
    <td data-label="Alert">${what}</td>
    <td data-label="Webhook"><span class="badge ${BADGE[a.status]}">${STATUS_TEXT[a.status]}</span></td>
    <td data-label="Delivery">${a.status === 'none' ? '' : detail.join(' · ')}</td></tr>`
}

export function alertsSection(csrfToken: string, data: AlertsSectionData): SafeHtml {
  const s = data.settings
  const secret = data.secret
    ? html`<div class="flash ok" role="status" id="alert-secret">
<p>Webhook signing secret — shown once, copy it now:</p><p><code>${data.secret}</code></p>
<p>Verify the <code>x-chaingate-signature</code> header of each webhook with it
(HMAC-SHA256 of the <code>x-chaingate-timestamp</code> header, a dot and the raw body).</p></div>`
    : ''
  return html`<section class="card" aria-labelledby="alerts-h"><h2 id="alerts-h">Usage alerts</h2>${secret}
<p class="muted">Get a webhook (and an entry below) when today's usage crosses a share of your daily credit balance, or
when too many calls are refused for the balance or the credits/s limit. Each alert fires at most once a UTC day.</p>
<form method="post" action="/account/alerts">${csrfField(csrfToken)}
<label for="alert-thresholds">Credit thresholds (% of the daily balance, comma-separated)</label>
<input id="alert-thresholds" name="thresholds" value="${s ? s.creditThresholds.join(',') : '80,100'}"
 placeholder="80,100" inputmode="numeric">
<label for="alert-refusals">Refused calls a minute (empty: no refusal alert)</label>
<input id="alert-refusals" name="refusalsPerMinute" value="${s?.refusalsPerMinute ?? ''}" inputmode="numeric">
<label for="alert-webhook">Webhook URL (http or https; empty: dashboard only)</label>
<input id="alert-webhook" name="webhookUrl" type="url" value="${s?.webhookUrl ?? ''}"
 placeholder="https://hooks.example.com/chaingate">
${
  s
    ? html`<label class="check"><input type="checkbox" name="rotateSecret" value="yes"> Make a new signing secret
        (the current one stops working)</label>`
    : ''
}
<p><button type="submit">Save alerts</button></p></form>
<h3 id="recent-alerts-h">Recent alerts</h3>${
    data.recent.length === 0
      ? html`<p class="muted" id="no-alerts">No alert has fired yet.</p>`
      : html`<div class="table-wrap"><table class="stack" aria-labelledby="recent-alerts-h"><thead><tr>
<th>When (UTC)</th><th>Alert</th><th>Webhook</th><th>Delivery</th></tr></thead><tbody>${data.recent.map(row)}</tbody>
</table></div>`
  }</section>`
}
