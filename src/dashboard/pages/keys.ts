/** The API key list: create a key, see every key of the account. */
import type { ApiKey } from '../../keys/repository.ts'
import type { PlanConfig } from '../../config/schema.ts'
import { html, type SafeHtml } from '../../shared/html.ts'

import { csrfField, layout, type PageContext } from './layout.ts'

export function keysPage(
  ctx: PageContext,
  data: {
    keys: ApiKey[]
    planName: string
    plan: PlanConfig
    networkCount: number
    name?: string
    /** The account must confirm its email before creating keys: this notice replaces the form. */
    unconfirmed?: SafeHtml | undefined
  },
): string {
  const active = data.keys.filter((k) => k.revokedAt === null)
  const limit = data.plan.maxKeys
  const atLimit = limit !== null && active.length >= limit
  const plural = limit === 1 ? '' : 's'
  const advice = 'revoke one or upgrade the plan to create another.'
  const limitText = `The ${data.planName} plan allows ${limit} API key${plural}; ${advice}`
  const disabledAtLimit = atLimit ? html` disabled aria-describedby="key-limit"` : ''
  const rows = data.keys.map(
    (k) =>
      html`<tr><td><a href="/keys/${k.id}">${k.name}</a></td><td class="mono" data-label="Key">${k.key}</td>
        <td>${
          k.revokedAt === null
            ? html`<span class="badge on">active</span>`
            : html`<span class="badge revoked">revoked</span>`
        }</td>
        <td class="num" data-label="Networks">${k.networks.length} / ${data.networkCount}</td>
        <td data-label="Created">${new Date(k.createdAt).toISOString().slice(0, 10)}</td></tr>`,
  )
  return layout(
    'API keys',
    ctx,
    html`${data.unconfirmed ?? ''}<section class="card" aria-labelledby="create-h"><h2 id="create-h">Create a key</h2>
      <p class="muted">${active.length} of ${limit === null ? 'unlimited' : limit} key${plural} on the ${
        data.planName
      } plan.</p>${atLimit ? html`<p id="key-limit" class="flash error">${limitText}</p>` : ''}
      <form method="post" action="/keys" class="row">${csrfField(ctx.csrfToken)}<div><label for="key-name">Name</label>
      <input id="key-name" name="name" type="text" maxlength="100" required value="${data.name ?? ''}"${
        disabledAtLimit
      }>
      </div><button type="submit"${disabledAtLimit}>Create key</button>
      </form><p class="muted">New keys have every network enabled.</p></section>
      <section class="card" aria-labelledby="list-h">
      <h2 id="list-h">Your keys</h2>${
        data.keys.length === 0
          ? html`<p>No keys yet.</p>`
          : html`<div class="table-wrap">
      <table class="stack"><thead><tr><th>Name</th><th>Key</th><th>Status</th><th class="num">Networks</th>
      <th>Created</th></tr></thead><tbody>${rows}</tbody></table></div>`
      }</section>`,
  )
}
