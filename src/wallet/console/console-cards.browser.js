// @ts-check
/**
 * The console's cards: a pending request (session, transaction, message, typed data) with its approve and reject
 * buttons, and a connected site's session with its edit and revoke buttons. `ctx` gives the last state read from
 * the API and `post`, which sends a decision and refreshes the page.
 */
import { checkbox, checked, el, rows, tree } from './console-dom.browser.js'

function decide(p, approve, decision, ctx) {
  ctx.post(
    `/console/api/approvals/${encodeURIComponent(p.id)}/${approve ? 'approve' : 'reject'}`,
    approve ? decision() : undefined,
  )
}
function renderSessionRequest(card, p, ctx) {
  const r = p.request
  if (r.pairing)
    card.appendChild(
      el('div', {
        class: r.pairing.replaces === 'a session of another pairing' ? 'warn' : 'note',
        text:
          (r.pairing.resumable
            ? 'The site can resume this session later (paired).'
            : 'This connection brought no pairing secret: only it can use the session.') +
          (r.pairing.replaces === 'a session of another pairing'
            ? ' Approving REPLACES the session another connection of this site holds: ' +
              'if you did not just ask for this, reject.'
            : ''),
      }),
    )
  // One list per kind of account the proposed chains need: EVM (0x…) and Solana (base58, same index).
  const keys = Object.keys(r.scopes)
  const kinds = [
    { want: keys.some((k) => k.indexOf('solana:') !== 0), title: 'EVM accounts to share', field: 'address' },
    { want: keys.some((k) => k.indexOf('solana:') === 0), title: 'Solana accounts to share', field: 'solanaAddress' },
  ]
  kinds.forEach((kind) => {
    if (!kind.want) return
    card.appendChild(el('h3', { text: kind.title }))
    const acc = el('div', { class: 'choices', 'data-accounts': kind.field })
    const pre = ctx.state.accounts.filter((a) => r.preselectedAccounts.indexOf(a[kind.field]) >= 0).length > 0
    ctx.state.accounts.forEach((a, i) => {
      const value = a[kind.field]
      acc.appendChild(checkbox('acc', value, pre ? r.preselectedAccounts.indexOf(value) >= 0 : i === 0))
    })
    card.appendChild(acc)
  })
  card.appendChild(el('h3', { text: 'Chains and methods' }))
  Object.keys(r.scopes).forEach((k) => {
    const s = r.scopes[k]
    const chain =
      ctx.state.chains.filter((c) => `eip155:${c.chainId}` === k)[0] ||
      (ctx.state.solanaChains || []).filter((c) => c.chain === k)[0]
    const d = el('details', {}, [
      el('summary', {}, [
        checkbox('scope', k, true),
        el('span', {
          class: 'muted',
          text:
            ` ${chain ? `${chain.network} · ` : ''}${s.methods.length} methods · ` +
            `notifications: ${s.notifications.join(', ') || 'none'}`,
        }),
      ]),
    ])
    const mb = el('div', { class: 'choices' })
    s.methods.forEach((m) => {
      mb.appendChild(checkbox(`m:${k}`, m, true))
    })
    d.appendChild(mb)
    card.appendChild(d)
  })
  return () => {
    const methods = {}
    Object.keys(r.scopes).forEach((k) => {
      methods[k] = checked(card, `m:${k}`)
    })
    return { accounts: checked(card, 'acc'), scopes: checked(card, 'scope'), methods: methods }
  }
}
export function renderPending(p, ctx) {
  const v = p.view || { rows: [], warnings: [], title: p.kind }
  const card = el('article', { class: 'card request', 'data-kind': p.kind })
  card.appendChild(
    el('div', { class: 'card-head' }, [
      el('span', { class: 'card-title', text: v.title }),
      el('span', { class: 'origin', text: p.origin }),
      v.network ? el('span', { class: 'badge net', text: v.network }) : null,
      el('span', { class: 'badge wait', text: `expires ${new Date(p.expiresAt).toLocaleTimeString()}` }),
    ]),
  )
  v.warnings.forEach((w) => {
    card.appendChild(
      el('div', { class: 'warn', role: 'alert' }, [el('strong', { text: '⚠ Check before approving' }), w]),
    )
  })
  let decision = () => ({})
  if (p.kind === 'session') decision = renderSessionRequest(card, p, ctx)
  if (v.rows.length) card.appendChild(rows(v.rows))
  const tx = v.transaction
  if (tx?.call) {
    const c = el('div', { class: 'call' }, [el('div', { text: tx.call.summary })])
    if (tx.call.args.length) c.appendChild(rows(tx.call.args.map((a) => ({ label: a.name, value: a.value }))))
    card.appendChild(c)
  }
  if (tx?.simulation)
    card.appendChild(
      el('div', {
        class: `sim ${tx.simulation.ok ? 'ok' : 'bad'}`,
        text: tx.simulation.ok
          ? '✓ Simulation: the transaction succeeds on the current state'
          : `✗ Simulation: it would revert — ${tx.simulation.reason}`,
      }),
    )
  if (v.message) {
    card.appendChild(
      el('h3', {
        text: v.message.text !== undefined ? `Message (${v.message.bytes} bytes)` : 'Message (binary, shown as hex)',
      }),
    )
    card.appendChild(
      el('pre', { class: 'message', text: v.message.text !== undefined ? v.message.text : v.message.hex }),
    )
  }
  if (v.typedData) {
    card.appendChild(el('h3', { text: 'Domain' }))
    card.appendChild(tree(v.typedData.domain))
    card.appendChild(el('h3', { text: v.typedData.primaryType }))
    card.appendChild(tree(v.typedData.message))
  }
  card.appendChild(
    el('div', { class: 'actions' }, [
      el('button', {
        class: 'approve',
        type: 'button',
        text:
          p.kind === 'session'
            ? 'Connect'
            : p.kind === 'eth_sendTransaction' || p.kind === 'signAndSendTransaction'
              ? 'Approve and send'
              : 'Sign',
        onclick: () => {
          decide(p, true, decision, ctx)
        },
      }),
      el('button', {
        class: 'reject',
        type: 'button',
        text: 'Reject',
        onclick: () => {
          decide(p, false, undefined, ctx)
        },
      }),
    ]),
  )
  return card
}
export function renderSession(s, ctx) {
  const card = el('article', { class: 'card session' })
  const scopes = s.session.sessionScopes,
    keys = Object.keys(scopes),
    held = {}
  keys.forEach((k) => {
    scopes[k].accounts.forEach((a) => {
      held[a.split(':')[2]] = true
    })
  })
  const paired =
    {
      resumable: 'paired: the site can reconnect',
      connection: 'only the connection that created it',
      none: 'unpaired (older session)',
    }[s.pairing] || s.pairing
  card.appendChild(
    el('div', { class: 'card-head' }, [
      el('span', { class: 'origin', text: s.origin }),
      el('span', { class: `badge ${s.connections ? 'ok' : ''}`, text: `${s.connections} connected` }),
      el('span', { class: 'badge', text: paired }),
      s.session.sessionProperties.expiry
        ? el('span', { class: 'badge wait', text: `expires ${s.session.sessionProperties.expiry}` })
        : null,
    ]),
  )
  card.appendChild(el('h3', { text: 'Accounts' }))
  const acc = el('div', { class: 'choices' })
  const solana = keys.some((k) => k.indexOf('solana:') === 0)
  ctx.state.accounts.forEach((a) => {
    acc.appendChild(checkbox('acc', a.address, held[a.address]))
    if (solana) acc.appendChild(checkbox('acc', a.solanaAddress, held[a.solanaAddress]))
  })
  card.appendChild(acc)
  card.appendChild(el('h3', { text: 'Granted scopes' }))
  keys.forEach((k) => {
    const chain =
      ctx.state.chains.filter((c) => `eip155:${c.chainId}` === k)[0] ||
      (ctx.state.solanaChains || []).filter((c) => c.chain === k)[0]
    const d = el('details', {}, [
      el('summary', {}, [
        checkbox('scope', k, true),
        el('span', {
          class: 'muted',
          text:
            ` ${chain ? `${chain.network} · ` : ''}${scopes[k].methods.length} methods · ` +
            `${scopes[k].accounts.length} accounts`,
        }),
      ]),
    ])
    const mb = el('div', { class: 'choices' })
    scopes[k].methods.forEach((m) => {
      mb.appendChild(checkbox(`m:${k}`, m, true))
    })
    d.appendChild(mb)
    card.appendChild(d)
  })
  card.appendChild(
    el('div', { class: 'actions' }, [
      el('button', {
        type: 'button',
        text: 'Save changes',
        onclick: () => {
          const methods = {}
          keys.forEach((k) => {
            methods[k] = checked(card, `m:${k}`)
          })
          ctx.post('/console/api/sessions/edit', {
            origin: s.origin,
            accounts: checked(card, 'acc'),
            scopes: checked(card, 'scope'),
            methods: methods,
          })
        },
      }),
      el('button', {
        class: 'reject',
        type: 'button',
        text: 'Revoke',
        onclick: () => {
          ctx.post('/console/api/sessions/revoke', { origin: s.origin })
        },
      }),
    ]),
  )
  return card
}
