// @ts-check
/**
 * The wallet console page's script (served at /console/assets/console.browser.js as an ES module, with the modules it
 * imports; read once at start by src/wallet/listener/console-assets.ts). It only renders what the API describes
 * (src/wallet/describe): every dapp-supplied string goes through textContent, never innerHTML. Updates arrive on
 * the event stream (/console/api/events, read with fetch so the token travels in the Authorization header).
 * Type-checked by tsconfig.browser.json (DOM types) and served as written.
 */
import { renderPending, renderSession } from './console-cards.browser.js'
import { $, clear, el, short, table } from './console-dom.browser.js'

const q = new URLSearchParams(location.search),
  h = new URLSearchParams(location.hash.slice(1))
let token = q.get('token') || h.get('token') || sessionStorage.getItem('cgToken') || ''
function keepToken(t) {
  token = t
  sessionStorage.setItem('cgToken', t)
  history.replaceState(null, '', `${location.pathname}#token=${t}`)
}
if (token) keepToken(token)
let state = null,
  busy = false,
  again = false
function api(method, path, body) {
  const headers = { authorization: `Bearer ${token}` }
  if (method === 'POST') headers['content-type'] = 'application/json'
  return fetch(path, {
    method: method,
    headers: headers,
    body: method === 'POST' ? JSON.stringify(body || {}) : undefined,
  }).then((r) =>
    r
      .json()
      .catch(() => ({}))
      .then((j) => {
        if (r.status === 401) unauthorized()
        if (!r.ok) throw new Error(j.error || `HTTP ${r.status}`)
        return j
      }),
  )
}
function unauthorized() {
  const b = clear($('notice'))
  b.appendChild(
    el('div', {
      class: 'warn',
      text:
        'The console token is missing, wrong or was rotated. Open the newest console URL ' +
        '(printed at start, or: chaingate wallet console-token show).',
    }),
  )
}
function fail(e) {
  const b = clear($('notice'))
  b.appendChild(el('div', { class: 'warn', text: `Error: ${e.message}` }))
}
function renderBalances(b) {
  const chains = state.chains
  const trs = b.accounts.map((a) => {
    const tr = el('tr', {}, [
      el('td', {}, [
        el('div', { text: `#${a.index}${a.label ? ` ${a.label}` : ''}` }),
        el('span', { class: 'mono muted', title: a.address, text: a.address }),
        a.solana.length ? el('div', { class: 'mono muted', title: a.solanaAddress, text: a.solanaAddress }) : null,
      ]),
    ])
    a.balances.forEach((x) => {
      tr.appendChild(el('td', { class: 'num', title: x.wei ? `${x.wei} wei` : x.error, text: x.text || 'unavailable' }))
    })
    a.solana.forEach((x) => {
      tr.appendChild(
        el('td', {
          class: 'num sol',
          title: x.lamports ? `${x.lamports} lamports` : x.error,
          text: x.text || 'unavailable',
        }),
      )
    })
    return tr
  })
  const heads = chains
    .map((c) => `${c.network} (${c.chainId})`)
    .concat((state.solanaChains || []).map((c) => `${c.network} (Solana)`))
  clear($('accounts')).appendChild(table(['Account'].concat(heads), trs))
}
const OUTCOME = { approved: 'ok', signed: 'ok', sent: 'ok', rejected: 'bad', failed: 'bad' }
function renderActivity(a) {
  if (!a.entries.length) {
    clear($('activity')).appendChild(el('p', { class: 'empty', text: 'nothing yet' }))
    return
  }
  const trs = a.entries.map((e) => {
    const what = el('td', {}, [el('div', { text: e.summary })])
    if (e.txHash)
      what.appendChild(
        el('div', {
          class: 'mono muted',
          title: e.txHash,
          text: `tx ${short(e.txHash)} · ${e.receiptStatus ? `receipt: ${e.receiptStatus}` : 'waiting for receipt'}`,
        }),
      )
    return el('tr', { 'data-outcome': e.outcome }, [
      el('td', { text: new Date(e.at).toLocaleString() }),
      el('td', {}, [el('span', { class: 'origin', text: e.origin })]),
      el('td', {}, [
        el('span', { class: `badge ${OUTCOME[e.outcome] || ''}`, text: e.outcome }),
        el('div', { class: 'muted', text: e.kind + (e.network ? ` · ${e.network}` : '') }),
      ]),
      what,
    ])
  })
  const t = table(['When', 'Site', 'What', 'Details'], trs)
  clear($('activity')).appendChild(t)
  // Column widths come from the stylesheet: the CSP refuses inline style attributes.
  const cols = el('colgroup')
  ;[1, 2, 3, 4].forEach((i) => {
    cols.appendChild(el('col', { class: `c${i}` }))
  })
  t.insertBefore(cols, t.firstChild)
}
function render() {
  const banner = clear($('banner'))
  if (state.autoApprove)
    banner.appendChild(
      el('div', { class: 'warn', text: 'wallet.autoApprove is ON: every request is approved without asking.' }),
    )
  $('pending-count').textContent = state.pending.length ? String(state.pending.length) : ''
  // Cards are kept while their request or session is unchanged, so a re-render never drops what the user ticked.
  keyed(
    $('pending'),
    state.pending,
    (p) => p.id,
    (p) => renderPending(p, ctx),
    'Nothing waiting. New requests appear here at once.',
  )
  keyed(
    $('sessions'),
    state.sessions,
    (s) => JSON.stringify(s),
    (s) => renderSession(s, ctx),
    'No site is connected.',
  )
}
function keyed(root, items, keyOf, make, emptyText) {
  const old = {}
  Array.prototype.slice.call(root.children).forEach((c) => {
    if (c.dataset.key) old[c.dataset.key] = c
  })
  const next = items.map((it) => {
    const k = keyOf(it)
    const c = old[k] || make(it)
    c.dataset.key = k
    delete old[k]
    return c
  })
  clear(root)
  next.forEach((c) => {
    root.appendChild(c)
  })
  if (!next.length) root.appendChild(el('p', { class: 'empty', text: emptyText }))
}
function refresh() {
  if (busy) {
    again = true
    return Promise.resolve()
  }
  busy = true
  return Promise.all([
    api('GET', '/console/api/state'),
    api('GET', '/console/api/activity'),
    api('GET', '/console/api/balances'),
  ])
    .then((r) => {
      state = r[0]
      render()
      renderActivity(r[1])
      renderBalances(r[2])
    }, fail)
    .then(() => {
      busy = false
      if (again) {
        again = false
        return refresh()
      }
    })
}
function live(on) {
  const l = $('live')
  l.className = `live ${on ? 'on' : 'off'}`
  l.textContent = on ? 'live' : 'reconnecting…'
}
function listen() {
  let delay = 1000
  ;(function connect() {
    fetch('/console/api/events', { headers: { authorization: `Bearer ${token}` }, cache: 'no-store' })
      .then((res) => {
        if (res.status === 401) {
          unauthorized()
          live(false)
          return
        }
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`)
        live(true)
        delay = 1000
        refresh()
        let reader = res.body.getReader(),
          dec = new TextDecoder(),
          buf = ''
        return (function pump() {
          return reader.read().then((x) => {
            if (x.done) throw new Error('stream ended')
            buf += dec.decode(x.value, { stream: true })
            let i
            while ((i = buf.indexOf('\n\n')) >= 0) {
              const ev = buf.slice(0, i)
              buf = buf.slice(i + 2)
              if (/^event: change$/m.test(ev)) refresh()
            }
            return pump()
          })
        })()
      })
      .catch(() => {
        live(false)
        setTimeout(connect, delay)
        delay = Math.min(delay * 2, 15000)
      })
  })()
}
document.addEventListener('DOMContentLoaded', () => {
  $('refresh-balances').onclick = () => {
    refresh()
  }
  $('rotate').onclick = () => {
    if (!confirm('Rotate the console token? Every open console and bookmark with the old token stops working.')) return
    api('POST', '/console/api/token/rotate').then((r) => {
      keepToken(r.token)
      const b = clear($('notice'))
      b.appendChild(
        el('div', { class: 'dialog' }, [
          'Token rotated. Bookmark this address now: ',
          el('span', { class: 'mono', text: location.href }),
        ]),
      )
    }, fail)
  }
  if (!token) {
    unauthorized()
    return
  }
  listen()
})
const ctx = {
  get state() {
    return state
  },
  post: (path, body) => api('POST', path, body).then(refresh, fail),
}
