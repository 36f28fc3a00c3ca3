/**
 * Page templates. Pure functions from plain data to HTML; the plugin (plugin.ts) loads the data and checks who may
 * see it. Every form posts with the session's CSRF token; every control is a real link, button or input so the
 * dashboard works by keyboard and without the script.
 */
import type { ApiKey } from '../keys/repository.ts'
import { MAX_ALLOWLIST_ENTRIES, MAX_JWT_KEYS, type AllowlistType, type KeySecurity } from '../keys/security/types.ts'
import type { PlanConfig } from '../config/schema.ts'
import {
  formatNumber,
  horizontalBars,
  lineChart,
  quotaGauge,
  stackedBarChart,
  PALETTE_SIZE,
  type Series,
} from './charts.ts'
import { html, type SafeHtml } from './html.ts'
import { errorDisplayName, methodDisplayName, methodLabelMeaning } from './usage-labels.ts'
import { upstreamUsageSection } from './upstream-usage-section.ts'
import type { UpstreamUsageReport } from '../usage/upstream-usage.ts'
import {
  USAGE_DIMENSIONS,
  USAGE_RANGES,
  type UsageDimension,
  type UsageRange,
  type UsageReport,
} from '../usage/queries.ts'

export interface PageContext {
  /** Logged-in account, if any. */
  account?: { email: string; plan: string; role?: string } | undefined
  csrfToken: string
  /** Path of the current page, for aria-current in the nav. */
  current: string
  flash?: { kind: 'ok' | 'error'; message: string } | undefined
  /**
   * The GET address of what this page shows, when it answers a POST: the script moves the address bar there so a
   * reload does not post the form again (and a secret shown once stays shown once).
   */
  canonical?: string | undefined
}

const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`

export function layout(title: string, ctx: PageContext, body: SafeHtml): string {
  const nav = (href: string, label: string) =>
    html`<a href="${href}"${ctx.current === href || (href !== '/' && ctx.current.startsWith(`${href}/`)) ? html` aria-current="page"` : ''}>${label}</a>`
  const header = ctx.account
    ? html`${nav('/', 'Overview')}${nav('/keys', 'API keys')}${nav('/usage', 'Usage')}${ctx.account.role === 'operator' ? nav('/accounts', 'Accounts') : ''}<a href="/account" class="who" title="Account settings (plan ${ctx.account.plan})"${ctx.current === '/account' ? html` aria-current="page"` : ''}>${ctx.account.email}</a><form method="post" action="/logout">${csrfField(ctx.csrfToken)}<button type="submit" class="small">Log out</button></form>`
    : html`${nav('/login', 'Log in')}${nav('/signup', 'Sign up')}`
  const flash = ctx.flash
    ? html`<p class="flash ${ctx.flash.kind}" role="${ctx.flash.kind === 'error' ? 'alert' : 'status'}">${ctx.flash.message}</p>`
    : ''
  return `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title} · chaingate</title>${ctx.canonical ? html`<meta name="chaingate-url" content="${ctx.canonical}">` : ''}<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="/assets/app.css"><script src="/assets/app.js" defer></script></head><body><a class="skip" href="#main">Skip to content</a><header class="top"><div class="bar"><a class="brand" href="/">chaingate</a>${header}</div></header><main id="main" tabindex="-1"><h1>${title}</h1>${flash}${body}<p id="copy-status" class="sr-only" aria-live="polite"></p></main></body></html>`}`
}

// ---- account pages ---------------------------------------------------------------------------------------------

export function landingPage(ctx: PageContext, signupEnabled: boolean): string {
  return layout(
    'Chain-node gateway',
    ctx,
    html`<div class="card"><p>Keyed, metered JSON-RPC endpoints for every network this gateway serves. Log in to create API keys, choose their networks and security settings, and see their usage.</p><p class="row"><a class="button" href="/login">Log in</a>${signupEnabled ? html`<a class="button" href="/signup">Create an account</a>` : ''}</p></div>`,
  )
}

export function loginPage(ctx: PageContext, opts: { email?: string; next?: string }): string {
  return layout(
    'Log in',
    ctx,
    html`<form class="card" method="post" action="/login">${csrfField(ctx.csrfToken)}${opts.next ? html`<input type="hidden" name="next" value="${opts.next}">` : ''}<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${opts.email ?? ''}"><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required><p><button type="submit">Log in</button></p><p class="muted">No account? <a href="/signup">Sign up</a>.</p></form>`,
  )
}

export function signupPage(ctx: PageContext, opts: { email?: string; enabled: boolean }): string {
  if (!opts.enabled)
    return layout(
      'Sign up',
      ctx,
      html`<div class="card"><p>Sign-up is closed on this gateway. Ask its operator for an account.</p></div>`,
    )
  return layout(
    'Sign up',
    ctx,
    html`<form class="card" method="post" action="/signup">${csrfField(ctx.csrfToken)}<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${opts.email ?? ''}"><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required aria-describedby="password-hint"><p id="password-hint" class="muted">At least 8 characters.</p><p><button type="submit">Create account</button></p><p class="muted">Have an account? <a href="/login">Log in</a>.</p></form>`,
  )
}

export function messagePage(title: string, ctx: PageContext, message: string): string {
  return layout(title, ctx, html`<div class="card"><p>${message}</p><p><a href="/">Back to the dashboard</a></p></div>`)
}

// ---- overview --------------------------------------------------------------------------------------------------

export function overviewPage(
  ctx: PageContext,
  data: {
    planName: string
    plan: PlanConfig
    usedToday: number
    activeKeys: number
    daily: { labels: string[]; values: number[] }
  },
): string {
  const { plan } = data
  return layout(
    'Overview',
    ctx,
    html`<section class="card" aria-labelledby="balance-h"><h2 id="balance-h">Daily credit balance</h2>${quotaGauge({ used: data.usedToday, quota: plan.creditsPerDay })}${lineChart({ title: 'Credits per day, last 7 days (UTC), against the daily quota', labels: data.daily.labels, series: [{ label: 'credits per day', values: data.daily.values }], reference: { label: `daily quota ${formatNumber(plan.creditsPerDay)}`, value: plan.creditsPerDay }, id: 'daily-chart' })}</section><div class="grid2"><section class="card"><h2>Plan</h2><p><strong>${data.planName}</strong>: ${plan.creditsPerDay.toLocaleString('en-US')} credits per day, ${plan.creditsPerSecond.toLocaleString('en-US')} credits per second, ${plan.maxKeys === null ? 'unlimited API keys' : `up to ${plan.maxKeys} API key${plan.maxKeys === 1 ? '' : 's'}`}.</p></section><section class="card"><h2>API keys</h2><p>${data.activeKeys} active key${data.activeKeys === 1 ? '' : 's'}. <a href="/keys">Manage keys</a> · <a href="/usage">See usage</a></p></section></div>`,
  )
}

// ---- keys ------------------------------------------------------------------------------------------------------

export function keysPage(
  ctx: PageContext,
  data: { keys: ApiKey[]; planName: string; plan: PlanConfig; networkCount: number; name?: string },
): string {
  const active = data.keys.filter((k) => k.revokedAt === null)
  const limit = data.plan.maxKeys
  const atLimit = limit !== null && active.length >= limit
  const rows = data.keys.map(
    (k) =>
      html`<tr><td><a href="/keys/${k.id}">${k.name}</a></td><td class="mono" data-label="Key">${k.key}</td><td>${k.revokedAt === null ? html`<span class="badge on">active</span>` : html`<span class="badge revoked">revoked</span>`}</td><td class="num" data-label="Networks">${k.networks.length} / ${data.networkCount}</td><td data-label="Created">${new Date(k.createdAt).toISOString().slice(0, 10)}</td></tr>`,
  )
  return layout(
    'API keys',
    ctx,
    html`<section class="card" aria-labelledby="create-h"><h2 id="create-h">Create a key</h2><p class="muted">${active.length} of ${limit === null ? 'unlimited' : limit} key${limit === 1 ? '' : 's'} on the ${data.planName} plan.</p>${atLimit ? html`<p id="key-limit" class="flash error">The ${data.planName} plan allows ${limit} API key${limit === 1 ? '' : 's'}; revoke one or upgrade the plan to create another.</p>` : ''}<form method="post" action="/keys" class="row">${csrfField(ctx.csrfToken)}<div><label for="key-name">Name</label><input id="key-name" name="name" type="text" maxlength="100" required value="${data.name ?? ''}"${atLimit ? html` disabled aria-describedby="key-limit"` : ''}></div><button type="submit"${atLimit ? html` disabled aria-describedby="key-limit"` : ''}>Create key</button></form><p class="muted">New keys have every network enabled.</p></section><section class="card" aria-labelledby="list-h"><h2 id="list-h">Your keys</h2>${data.keys.length === 0 ? html`<p>No keys yet.</p>` : html`<div class="table-wrap"><table class="stack"><thead><tr><th>Name</th><th>Key</th><th>Status</th><th class="num">Networks</th><th>Created</th></tr></thead><tbody>${rows}</tbody></table></div>`}</section>`,
  )
}

export interface EndpointUrls {
  network: string
  enabled: boolean
  /** List the path form first: the host name does not resolve on this machine. */
  pathFirst: boolean
  hostForm: string
  pathForm: string
  wsHostForm: string
  wsPathForm: string
}

const ALLOWLIST_LABELS: Record<AllowlistType, { title: string; help: string; placeholder: string }> = {
  origins: {
    title: 'Origins',
    help: 'Requests must carry a matching Origin header. Wildcard subdomains (https://*.example.com), an optional scheme that must match when given, host:port, or a scheme alone (https://).',
    placeholder: 'https://*.example.com',
  },
  userAgents: { title: 'User agents', help: 'Partial match against the User-Agent header.', placeholder: 'Android' },
  addresses: {
    title: 'Contract addresses',
    help: 'Every call that names an address (eth_call, eth_getBalance, eth_getLogs, filters, log subscriptions, traces, …) may only name these; methods that cannot be checked are refused. The full list is in docs/key-security.md.',
    placeholder: '0x…',
  },
  methods: {
    title: 'API request methods',
    help: 'Only these JSON-RPC methods are accepted.',
    placeholder: 'eth_blockNumber',
  },
}

function endpointField(id: string, label: string, url: string, tag?: string): SafeHtml {
  return html`<div class="endpoint">${tag ? html`<span class="tag" aria-hidden="true">${tag}</span>` : ''}<label class="sr-only" for="${id}">${label}</label><input id="${id}" type="text" readonly value="${url}"><button type="button" class="small secondary" data-copy="${id}" hidden>Copy</button></div>`
}

/** Host form then path form, or the path form first where the host name does not resolve. */
const inOrder = (pathFirst: boolean, host: SafeHtml, path: SafeHtml) =>
  pathFirst ? html`${path}${host}` : html`${host}${path}`

export function keyPage(
  ctx: PageContext,
  data: {
    key: ApiKey
    security: KeySecurity
    endpoints: EndpointUrls[]
    newSecret?: string | undefined
    plan: PlanConfig
    snippets?: SafeHtml | undefined
    canonical?: string | undefined
  },
): string {
  const { key, security } = data
  const revoked = key.revokedAt !== null
  const base = `/keys/${key.id}`
  const form = (action: string, content: SafeHtml, cls = '') =>
    revoked
      ? html``
      : html`<form method="post" action="${base}/${action}"${cls ? html` class="${cls}"` : ''}>${csrfField(ctx.csrfToken)}${content}</form>`

  const secretBanner = data.newSecret
    ? html`<section class="card" aria-labelledby="secret-h"><h2 id="secret-h">API key secret</h2><p>Copy the secret now: it is stored only as a hash and will not be shown again.</p>${endpointField('new-secret', 'API key secret', data.newSecret)}<p class="muted">Send it as HTTP Basic auth with an empty user name: <code>curl --user :SECRET …</code></p></section>`
    : ''

  const endpoints = html`<section class="card" aria-labelledby="endpoints-h"><h2 id="endpoints-h">Endpoints</h2><p class="muted">The host name picks the network; clients that cannot set the Host header use the path form.</p><div class="table-wrap"><table class="stack"><thead><tr><th>Network</th><th>Status</th><th>Endpoint URLs</th><th><span class="sr-only">Action</span></th></tr></thead><tbody>${data.endpoints.map(
    (e) =>
      html`<tr id="network-${e.network}"><td><strong>${e.network}</strong></td><td>${e.enabled ? html`<span class="badge on">enabled</span>` : html`<span class="badge off">disabled</span>`}</td><td>${inOrder(e.pathFirst, endpointField(`url-host-${e.network}`, `${e.network} endpoint, host form`, e.hostForm, 'host'), endpointField(`url-path-${e.network}`, `${e.network} endpoint, path form`, e.pathForm, 'path'))}<details><summary>WebSocket</summary>${inOrder(e.pathFirst, endpointField(`ws-host-${e.network}`, `${e.network} WebSocket, host form`, e.wsHostForm, 'host'), endpointField(`ws-path-${e.network}`, `${e.network} WebSocket, path form`, e.wsPathForm, 'path'))}</details></td><td>${form('networks', html`<input type="hidden" name="network" value="${e.network}"><input type="hidden" name="enabled" value="${e.enabled ? 'false' : 'true'}"><button type="submit" class="small ${e.enabled ? 'secondary' : ''}" aria-label="${e.enabled ? 'Disable' : 'Enable'} ${e.network}">${e.enabled ? 'Disable' : 'Enable'}</button>`)}</td></tr>`,
  )}</tbody></table></div></section>`

  const details = html`<section class="card" aria-labelledby="details-h"><h2 id="details-h">Key</h2>${endpointField('api-key', 'API key', key.key)}<p class="muted">Created ${new Date(key.createdAt).toISOString().slice(0, 16).replace('T', ' ')} UTC${revoked ? ` · revoked ${new Date(key.revokedAt!).toISOString().slice(0, 16).replace('T', ' ')} UTC` : ''}</p>${form('rename', html`<div class="row"><div><label for="rename">Name</label><input id="rename" name="name" type="text" maxlength="100" required value="${key.name}"></div><button type="submit" class="secondary">Rename</button></div>`)}</section>`

  const checkbox = (name: string, label: string, checked: boolean, disabled = false) =>
    html`<label class="check"><input type="checkbox" name="${name}" value="on"${checked ? html` checked` : ''}${disabled ? html` disabled` : ''}> ${label}</label>`

  const securitySection = html`<section class="card" aria-labelledby="security-h"><h2 id="security-h">Security</h2><h3>API key secret</h3><p>${security.secretHash ? 'A secret is set. Rotating it invalidates the old one at once.' : 'No secret yet.'}</p>${form('secret', html`<button type="submit" class="secondary">${security.secretHash ? 'Rotate secret' : 'Create secret'}</button>`)}${form('security', html`<input type="hidden" name="flags" value="1"><h3>Requirements</h3>${checkbox('requireSecret', 'Require the API key secret for all requests', security.requireSecret)}${checkbox('secretOverridesAllowlists', 'Requests with a valid secret bypass the allowlists', security.secretOverridesAllowlists)}${checkbox('requireJwt', 'Require a JWT for all requests', security.requireJwt)}<p><button type="submit">Save requirements</button></p>`)}</section>`

  const allowlists = html`<section class="card" aria-labelledby="allow-h"><h2 id="allow-h">Allowlists</h2><p class="muted">Every non-empty list must pass; one matching entry per list is enough. At most ${MAX_ALLOWLIST_ENTRIES} entries per list. Violations answer 403.</p>${(
    Object.keys(ALLOWLIST_LABELS) as AllowlistType[]
  ).map((type) => {
    const meta = ALLOWLIST_LABELS[type]
    const entries = security.allowlists[type]
    return html`<section aria-labelledby="al-${type}-h"><h3 id="al-${type}-h">${meta.title} <span class="muted">(${entries.length})</span></h3><p class="muted">${meta.help}</p>${entries.length === 0 ? html`<p class="muted">No entries: not restricted.</p>` : html`<ul class="entries" id="allowlist-${type}">${entries.map((e) => html`<li><code>${e}</code>${form('allowlists/remove', html`<input type="hidden" name="type" value="${type}"><input type="hidden" name="entry" value="${e}"><button type="submit" class="small secondary" aria-label="Remove ${e}">Remove</button>`, 'inline')}</li>`)}</ul>`}${form('allowlists', html`<input type="hidden" name="type" value="${type}"><div class="row"><div><label for="add-${type}">Add to ${meta.title.toLowerCase()}</label><input id="add-${type}" name="entries" type="text" placeholder="${meta.placeholder}" aria-describedby="add-${type}-hint"></div><button type="submit" class="secondary">Add</button></div><p id="add-${type}-hint" class="muted">Separate several entries with commas or spaces.</p>`)}</section>`
  })}</section>`

  const jwt = html`<section class="card" aria-labelledby="jwt-h"><h2 id="jwt-h">JWT public keys</h2><p class="muted">Up to ${MAX_JWT_KEYS} RS256 or ES256 public keys. Tokens name the key in <code>kid</code>, need <code>exp</code>, and an <code>aud</code> of this gateway; <code>methods</code>, <code>addresses</code>, <code>origins</code> and <code>user_agents</code> claims replace the key's list of that type.</p>${security.jwtKeys.length === 0 ? html`<p class="muted">No JWT keys.</p>` : html`<div class="table-wrap"><table class="stack"><thead><tr><th>Name</th><th>ID (kid)</th><th>Alg</th><th>Fingerprint</th><th><span class="sr-only">Action</span></th></tr></thead><tbody>${security.jwtKeys.map((k) => html`<tr><td>${k.name}</td><td class="mono" data-label="kid">${k.id}</td><td data-label="Alg">${k.alg}</td><td class="mono" data-label="Fingerprint">${k.fingerprint}</td><td>${form('jwt/remove', html`<input type="hidden" name="jwtKeyId" value="${k.id}"><button type="submit" class="small secondary" aria-label="Remove JWT key ${k.name}">Remove</button>`)}</td></tr>`)}</tbody></table></div>`}${security.jwtKeys.length < MAX_JWT_KEYS ? form('jwt', html`<h3>Add a public key</h3><label for="jwt-name">Name</label><input id="jwt-name" name="name" type="text" maxlength="100" required><label for="jwt-alg">Algorithm</label><select id="jwt-alg" name="alg"><option>RS256</option><option>ES256</option></select><label for="jwt-pem">Public key (PEM)</label><textarea id="jwt-pem" name="publicKeyPem" required placeholder="-----BEGIN PUBLIC KEY-----"></textarea><p><button type="submit" class="secondary">Add JWT key</button></p>`) : ''}</section>`

  const limits = html`<section class="card" aria-labelledby="limits-h"><h2 id="limits-h">Key credit limits</h2><p class="muted">0 means the plan's limit applies (${data.plan.creditsPerSecond.toLocaleString('en-US')} credits/s, ${data.plan.creditsPerDay.toLocaleString('en-US')} credits/day for the account). Over the limit, requests answer 429.</p>${form('limits', html`<div class="row"><div><label for="cps">Credits per second</label><input id="cps" name="creditsPerSecond" type="number" min="0" step="1" value="${key.creditsPerSecond ?? 0}"></div><div><label for="cpd">Credits per day</label><input id="cpd" name="creditsPerDay" type="number" min="0" step="1" value="${key.creditsPerDay ?? 0}"></div><button type="submit" class="secondary">Save limits</button></div>`)}</section>`

  const danger = revoked
    ? html`<section class="card"><h2>Revoked</h2><p>This key is revoked: the gateway refuses it and it can no longer be changed.</p></section>`
    : html`<section class="card" aria-labelledby="revoke-h"><h2 id="revoke-h">Revoke</h2><p>Revoking stops the key at once on every network. It cannot be undone.</p>${form('revoke', html`<label class="check"><input type="checkbox" name="confirm" value="yes" required> Yes, revoke ${key.name}</label><p><button type="submit" class="danger">Revoke key</button></p>`)}</section>`

  return layout(
    revoked ? `${key.name} (revoked)` : key.name,
    { ...ctx, canonical: data.canonical ?? base },
    html`<p><a href="/keys">← All keys</a> · <a href="/usage?key=${key.id}">Usage of this key</a></p>${secretBanner}${details}${endpoints}${revoked ? '' : (data.snippets ?? '')}${revoked ? '' : html`${securitySection}${allowlists}${jwt}${limits}`}${danger}`,
  )
}

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
    html`<nav class="tabs" aria-label="${name}">${items.map((v) => html`<a href="${query({ [param]: v })}"${v === current ? html` aria-current="true"` : ''}>${label(v)}</a>`)}</nav>`

  const table = (
    title: string,
    items: { label: string; id: string; calls: number; credits: number; errors: number }[],
  ) =>
    html`<div class="table-wrap"><table class="stack"><caption class="sr-only">${title}</caption><thead><tr><th>${title}</th><th class="num">Calls</th><th class="num">Credits</th><th class="num">Errors</th></tr></thead><tbody>${items.length === 0 ? html`<tr><td colspan="4" class="muted">No calls in this period.</td></tr>` : items.slice(0, 20).map((t) => html`<tr><td>${t.label === t.id ? t.label : html`<span title="${t.id}">${t.label}</span>`}</td><td class="num" data-label="Calls">${t.calls.toLocaleString('en-US')}</td><td class="num" data-label="Credits">${t.credits.toLocaleString('en-US')}</td><td class="num" data-label="Errors">${t.errors.toLocaleString('en-US')}</td></tr>`)}</tbody></table></div>`

  const byKey = report.byKey.map((t) => ({ ...t, label: keyName.get(t.id) ?? t.id }))
  const byMethod = report.byMethod.map((t) => ({ ...t, label: methodDisplayName(t.id) }))
  const meanings = byMethod.flatMap((t) => {
    const m = methodLabelMeaning(t.id)
    return m ? [html`<dt>${m.name}</dt><dd>${m.meaning}</dd>`] : []
  })
  const rangeTitle = RANGE_LABEL[data.range]

  return layout(
    'Usage',
    ctx,
    html`<section class="card" aria-labelledby="balance-h"><h2 id="balance-h">Daily credit balance</h2>${quotaGauge({ used: data.usedToday, quota: data.plan.creditsPerDay })}${lineChart({ title: `Credits per day (UTC) against the daily quota`, labels: data.daily.labels, series: [{ label: 'credits per day', values: data.daily.values }], reference: { label: `daily quota ${formatNumber(data.plan.creditsPerDay)}`, value: data.plan.creditsPerDay }, id: 'daily-chart' })}</section>
<section class="card" aria-labelledby="filters-h"><h2 id="filters-h" class="sr-only">Filters</h2>${tabs(USAGE_RANGES, data.range, 'range', (r) => `Last ${RANGE_LABEL[r as UsageRange]}`, 'Period')}${tabs(USAGE_DIMENSIONS, data.dimension, 'by', (d) => `By ${DIMENSION_LABEL[d as UsageDimension]}`, 'Break down by')}<form method="get" action="/usage" class="row"><input type="hidden" name="range" value="${data.range}"><input type="hidden" name="by" value="${data.dimension}"><div><label for="key-filter">API key</label><select id="key-filter" name="key"><option value="">All keys</option>${data.keys.map((k) => html`<option value="${k.id}"${k.id === data.keyId ? html` selected` : ''}>${k.name}</option>`)}</select></div><button type="submit" class="secondary">Show</button></form><p><strong>${report.totals.calls.toLocaleString('en-US')}</strong> calls, <strong>${report.totals.credits.toLocaleString('en-US')}</strong> credits, <strong>${report.totals.errors.toLocaleString('en-US')}</strong> errors in the last ${rangeTitle}.</p></section>
<section class="card" aria-labelledby="charts-h"><h2 id="charts-h">Over time, by ${DIMENSION_LABEL[data.dimension]}</h2>${stackedBarChart({ title: `Credits per ${data.range === '24h' ? 'hour' : 'day'} by ${DIMENSION_LABEL[data.dimension]}`, labels: report.buckets.labels, series: mkSeries('credits'), id: 'credits-chart' })}${lineChart({ title: `Calls per ${data.range === '24h' ? 'hour' : 'day'} by ${DIMENSION_LABEL[data.dimension]}`, labels: report.buckets.labels, series: mkSeries('calls'), id: 'calls-chart' })}</section>
<div class="grid2"><section class="card">${horizontalBars({ title: 'Credits by method', items: byMethod.map((t) => ({ label: t.label, value: t.credits })), id: 'method-chart' })}${table('Method', byMethod)}${meanings.length ? html`<dl class="labels" id="label-meanings">${meanings}</dl>` : ''}</section><section class="card">${horizontalBars({ title: 'Credits by network', items: report.byNetwork.map((t) => ({ label: t.label, value: t.credits })), id: 'network-chart' })}${table('Network', report.byNetwork)}</section><section class="card">${horizontalBars({ title: 'Credits by API key', items: byKey.map((t) => ({ label: t.label, value: t.credits })), id: 'key-chart' })}${table('API key', byKey)}</section><section class="card" aria-labelledby="errors-h"><h2 id="errors-h">Errors</h2>${horizontalBars({ title: 'Failed requests by status or JSON-RPC code', items: report.errors.map((e) => ({ label: errorDisplayName(e.error), value: e.count })), id: 'errors-chart' })}<div class="table-wrap"><table><thead><tr><th>Error</th><th class="num">Count</th></tr></thead><tbody>${report.errors.length === 0 ? html`<tr><td colspan="2" class="muted">No errors in this period.</td></tr>` : report.errors.map((e) => html`<tr><td>${errorDisplayName(e.error)} <code class="muted">${e.error}</code></td><td class="num">${e.count.toLocaleString('en-US')}</td></tr>`)}</tbody></table></div></section></div>${data.upstreams ? upstreamUsageSection(data.upstreams, rangeTitle) : ''}`,
  )
}
