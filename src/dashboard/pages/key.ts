/** One API key's page: endpoints, networks, limits and security settings. */
import type { ApiKey } from '../../keys/repository.ts'
import { MAX_ALLOWLIST_ENTRIES, MAX_JWT_KEYS, type AllowlistType, type KeySecurity } from '../../keys/security/types.ts'
import type { PlanConfig } from '../../config/schema.ts'
import { html, type SafeHtml } from '../../shared/html.ts'

import { csrfField, layout, type PageContext } from './layout.ts'

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
    help:
      'Requests must carry a matching Origin header. Wildcard subdomains (https://*.example.com), an optional scheme ' +
      'that must match when given, host:port, or a scheme alone (https://).',
    placeholder: 'https://*.example.com',
  },
  userAgents: { title: 'User agents', help: 'Partial match against the User-Agent header.', placeholder: 'Android' },
  addresses: {
    title: 'Contract addresses',
    help:
      'Every call that names an address (eth_call, eth_getBalance, eth_getLogs, filters, log subscriptions, ' +
      'traces, …) may only name these; methods that cannot be checked are refused. The full list is in ' +
      'docs/key-security.md.',
    placeholder: '0x…',
  },
  methods: {
    title: 'API request methods',
    help: 'Only these JSON-RPC methods are accepted.',
    placeholder: 'eth_blockNumber',
  },
}

function endpointField(id: string, label: string, url: string, tag?: string): SafeHtml {
  return html`<div class="endpoint">${tag ? html`<span class="tag" aria-hidden="true">${tag}</span>` : ''}
    <label class="sr-only" for="${id}">${label}</label><input id="${id}" type="text" readonly value="${url}">
    <button type="button" class="small secondary" data-copy="${id}" hidden>Copy</button></div>`
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
    /** The request explorer (../requests-section.ts); none when the config turns it off. */
    requests?: SafeHtml | undefined
  },
): string {
  const { key, security } = data
  const revoked = key.revokedAt !== null
  const base = `/keys/${key.id}`
  const form = (action: string, content: SafeHtml, cls = '') =>
    revoked
      ? html``
      : html`<form method="post" action="${base}/${action}"${cls ? html` class="${cls}"` : ''}>${csrfField(
          ctx.csrfToken,
        )}${content}
        </form>`

  const secretBanner = data.newSecret
    ? html`<section class="card" aria-labelledby="secret-h"><h2 id="secret-h">API key secret</h2>
      <p>Copy the secret now: it is stored only as a hash and will not be shown again.</p>${endpointField(
        'new-secret',
        'API key secret',
        data.newSecret,
      )}
      <p class="muted">Send it as HTTP Basic auth with an empty user name: <code>curl --user :SECRET …</code></p>
      </section>`
    : ''

  const endpoints = html`<section class="card" aria-labelledby="endpoints-h"><h2 id="endpoints-h">Endpoints</h2>
    <p class="muted">The host name picks the network; clients that cannot set the Host header use the path form.</p>
    <div class="table-wrap"><table class="stack"><thead><tr><th>Network</th><th>Status</th><th>Endpoint URLs</th>
    <th><span class="sr-only">Action</span></th></tr></thead><tbody>${data.endpoints.map(
      (e) =>
        html`<tr id="network-${e.network}"><td><strong>${e.network}</strong></td>
        <td>${
          e.enabled ? html`<span class="badge on">enabled</span>` : html`<span class="badge off">disabled</span>`
        }</td>
        <td>${inOrder(
          e.pathFirst,
          endpointField(`url-host-${e.network}`, `${e.network} endpoint, host form`, e.hostForm, 'host'),
          endpointField(`url-path-${e.network}`, `${e.network} endpoint, path form`, e.pathForm, 'path'),
        )}
        <details>
        <summary>WebSocket</summary>${inOrder(
          e.pathFirst,
          endpointField(`ws-host-${e.network}`, `${e.network} WebSocket, host form`, e.wsHostForm, 'host'),
          endpointField(`ws-path-${e.network}`, `${e.network} WebSocket, path form`, e.wsPathForm, 'path'),
        )}
        </details></td><td>${form(
          'networks',
          html`<input type="hidden" name="network" value="${e.network}">
        <input type="hidden" name="enabled" value="${e.enabled ? 'false' : 'true'}">
        <button type="submit" class="small ${e.enabled ? 'secondary' : ''}" aria-label="${
          e.enabled ? 'Disable' : 'Enable'
        } ${e.network}">${e.enabled ? 'Disable' : 'Enable'}</button>`,
        )}</td>
        </tr>`,
    )}</tbody></table></div></section>`

  const minute = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ')
  const details = html`<section class="card" aria-labelledby="details-h">
    <h2 id="details-h">Key</h2>${endpointField('api-key', 'API key', key.key)}
    <p class="muted">Created ${minute(key.createdAt)} UTC${
      revoked ? ` · revoked ${minute(key.revokedAt!)} UTC` : ''
    }</p>${form(
      'rename',
      html`<div class="row">
    <div><label for="rename">Name</label>
    <input id="rename" name="name" type="text" maxlength="100" required value="${key.name}"></div>
    <button type="submit" class="secondary">Rename</button></div>`,
    )}</section>`

  const checkbox = (name: string, label: string, checked: boolean, disabled = false) =>
    html`<label class="check">
      <input type="checkbox" name="${name}" value="on"${checked ? html` checked` : ''}${
        disabled ? html` disabled` : ''
      }> ${label}</label>`

  const securitySection = html`<section class="card" aria-labelledby="security-h"><h2 id="security-h">Security</h2>
    <h3>API key secret</h3>
    <p>${
      security.secretHash ? 'A secret is set. Rotating it invalidates the old one at once.' : 'No secret yet.'
    }</p>${form(
      'secret',
      html`<button type="submit" class="secondary">${security.secretHash ? 'Rotate secret' : 'Create secret'}</button>`,
    )}${form(
      'security',
      html`<input type="hidden" name="flags" value="1">
    <h3>Requirements</h3>${[
      checkbox('requireSecret', 'Require the API key secret for all requests', security.requireSecret),
      checkbox(
        'secretOverridesAllowlists',
        'Requests with a valid secret bypass the allowlists',
        security.secretOverridesAllowlists,
      ),
      checkbox('requireJwt', 'Require a JWT for all requests', security.requireJwt),
    ]}
    <p><button type="submit">Save requirements</button></p>`,
    )}</section>`

  const allowlists = html`<section class="card" aria-labelledby="allow-h"><h2 id="allow-h">Allowlists</h2>
    <p class="muted">Every non-empty list must pass; one matching entry per list is enough. At most ${
      MAX_ALLOWLIST_ENTRIES
    } entries per list. Violations answer 403.</p>${(Object.keys(ALLOWLIST_LABELS) as AllowlistType[]).map((type) => {
      const meta = ALLOWLIST_LABELS[type]
      const entries = security.allowlists[type]
      return html`<section aria-labelledby="al-${type}-h">
      <h3 id="al-${type}-h">${meta.title} <span class="muted">(${entries.length})</span></h3>
      <p class="muted">${meta.help}</p>${
        entries.length === 0
          ? html`<p class="muted">No entries: not restricted.</p>`
          : html`<ul class="entries" id="allowlist-${type}">${entries.map(
              (e) => html`<li>
      <code>${e}</code>${form(
        'allowlists/remove',
        html`<input type="hidden" name="type" value="${type}">
      <input type="hidden" name="entry" value="${e}">
      <button type="submit" class="small secondary" aria-label="Remove ${e}">Remove</button>`,
        'inline',
      )}</li>`,
            )}
      </ul>`
      }${form(
        'allowlists',
        html`<input type="hidden" name="type" value="${type}"><div class="row"><div>
      <label for="add-${type}">Add to ${meta.title.toLowerCase()}</label>
      <input id="add-${type}" name="entries" type="text" placeholder="${
        meta.placeholder
      }" aria-describedby="add-${type}-hint">
      </div><button type="submit" class="secondary">Add</button></div>
      <p id="add-${type}-hint" class="muted">Separate several entries with commas or spaces.</p>`,
      )}</section>`
    })}</section>`

  const jwt = html`<section class="card" aria-labelledby="jwt-h"><h2 id="jwt-h">JWT public keys</h2>
    <p class="muted">Up to ${MAX_JWT_KEYS} RS256 or ES256 public keys. Tokens name the key in <code>kid</code>,
    need <code>exp</code>, and an <code>aud</code> of this gateway; <code>methods</code>, <code>addresses</code>,
    <code>origins</code> and <code>user_agents</code> claims replace the key's list of that type.</p>${
      security.jwtKeys.length === 0
        ? html`<p class="muted">No JWT keys.</p>`
        : html`<div class="table-wrap">
    <table class="stack"><thead><tr><th>Name</th><th>ID (kid)</th><th>Alg</th><th>Fingerprint</th><th>
    <span class="sr-only">Action</span></th></tr></thead><tbody>${security.jwtKeys.map(
      (k) => html`<tr>
    <td>${k.name}</td><td class="mono" data-label="kid">${k.id}</td><td data-label="Alg">${k.alg}</td>
    <td class="mono" data-label="Fingerprint">${k.fingerprint}</td>
    <td>${form(
      'jwt/remove',
      html`<input type="hidden" name="jwtKeyId" value="${k.id}">
    <button type="submit" class="small secondary" aria-label="Remove JWT key ${k.name}">Remove</button>`,
    )}</td></tr>`,
    )}
    </tbody></table></div>`
    }${
      security.jwtKeys.length < MAX_JWT_KEYS
        ? form(
            'jwt',
            html`<h3>Add a public key</h3>
    <label for="jwt-name">Name</label><input id="jwt-name" name="name" type="text" maxlength="100" required>
    <label for="jwt-alg">Algorithm</label><select id="jwt-alg" name="alg"><option>RS256</option>
    <option>ES256</option></select><label for="jwt-pem">Public key (PEM)</label>
    <textarea id="jwt-pem" name="publicKeyPem" required placeholder="-----BEGIN PUBLIC KEY-----"></textarea><p>
    <button type="submit" class="secondary">Add JWT key</button></p>`,
          )
        : ''
    }</section>`

  const limits = html`<section class="card" aria-labelledby="limits-h"><h2 id="limits-h">Key credit limits</h2>
    <p class="muted">0 means the plan's limit applies (${data.plan.creditsPerSecond.toLocaleString(
      'en-US',
    )} credits/s, ${data.plan.creditsPerDay.toLocaleString('en-US')} credits/day for the account). Over the limit,
    requests answer 429.</p>${form(
      'limits',
      html`<div class="row">
    <div><label for="cps">Credits per second</label>
    <input id="cps" name="creditsPerSecond" type="number" min="0" step="1" value="${key.creditsPerSecond ?? 0}"></div>
    <div><label for="cpd">Credits per day</label>
    <input id="cpd" name="creditsPerDay" type="number" min="0" step="1" value="${key.creditsPerDay ?? 0}"></div>
    <button type="submit" class="secondary">Save limits</button></div>`,
    )}</section>`

  const danger = revoked
    ? html`<section class="card"><h2>Revoked</h2>
      <p>This key is revoked: the gateway refuses it and it can no longer be changed.</p></section>`
    : html`<section class="card" aria-labelledby="revoke-h"><h2 id="revoke-h">Revoke</h2>
      <p>Revoking stops the key at once on every network. It cannot be undone.</p>${form(
        'revoke',
        html`<label class="check">
      <input type="checkbox" name="confirm" value="yes" required> Yes, revoke ${key.name}</label><p>
      <button type="submit" class="danger">Revoke key</button></p>`,
      )}</section>`

  return layout(
    revoked ? `${key.name} (revoked)` : key.name,
    { ...ctx, canonical: data.canonical ?? base },
    html`<p>
      <a href="/keys">← All keys</a> · <a href="/usage?key=${key.id}">Usage of this key</a></p>${[
        secretBanner,
        details,
        endpoints,
        revoked ? '' : (data.snippets ?? ''),
        data.requests ?? '',
        revoked ? '' : html`${securitySection}${allowlists}${jwt}${limits}`,
        danger,
      ]}`,
  )
}
