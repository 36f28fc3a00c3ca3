/**
 * The console page's script (served at /console/assets/console.js). It only renders what the API describes
 * (src/wallet/describe): every dapp-supplied string goes through textContent, never innerHTML. Updates arrive on
 * the event stream (/console/api/events, read with fetch so the token travels in the Authorization header).
 */
export const CONSOLE_SCRIPT = String.raw`(function(){
'use strict';
var q = new URLSearchParams(location.search), h = new URLSearchParams(location.hash.slice(1));
var token = q.get('token') || h.get('token') || sessionStorage.getItem('cgToken') || '';
function keepToken(t){ token = t; sessionStorage.setItem('cgToken', t); history.replaceState(null, '', location.pathname + '#token=' + t); }
if (token) keepToken(token);
var state = null, busy = false, again = false;
var $ = function(id){ return document.getElementById(id); };
function el(tag, attrs, children){ var e = document.createElement(tag); attrs = attrs || {};
  Object.keys(attrs).forEach(function(k){ var v = attrs[k]; if (v === undefined || v === null) return;
    if (k === 'text') e.textContent = v; else if (k === 'onclick') e.onclick = v; else e.setAttribute(k, v); });
  (children || []).forEach(function(c){ if (c) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); }); return e; }
function clear(node){ while (node.firstChild) node.removeChild(node.firstChild); return node; }
function api(method, path, body){
  var headers = {'authorization': 'Bearer ' + token};
  if (method === 'POST') headers['content-type'] = 'application/json';
  return fetch(path, {method: method, headers: headers, body: method === 'POST' ? JSON.stringify(body || {}) : undefined})
    .then(function(r){ return r.json().catch(function(){ return {}; }).then(function(j){ if (r.status === 401) unauthorized(); if (!r.ok) throw new Error(j.error || ('HTTP ' + r.status)); return j; }); });
}
function unauthorized(){ var b = clear($('notice')); b.appendChild(el('div', {class: 'warn', text: 'The console token is missing, wrong or was rotated. Open the newest console URL (printed at start, or: chaingate wallet console-token show).'})); }
function fail(e){ var b = clear($('notice')); b.appendChild(el('div', {class: 'warn', text: 'Error: ' + e.message})); }
function short(a){ return a && a.length > 14 ? a.slice(0, 8) + '…' + a.slice(-6) : a; }
function checkbox(name, value, checked){ var c = el('input', {type: 'checkbox', 'data-name': name, value: value}); c.checked = !!checked; return el('label', {}, [c, ' ' + value]); }
function checked(root, name){ return Array.prototype.slice.call(root.querySelectorAll('input[data-name="' + name + '"]')).filter(function(c){ return c.checked; }).map(function(c){ return c.value; }); }
function rows(list){ var dl = el('dl', {class: 'rows'}); list.forEach(function(r){ dl.appendChild(el('dt', {text: r.label}));
  dl.appendChild(el('dd', {}, [el('span', {class: /^0x/.test(r.value) ? 'mono' : '', text: r.value}), r.detail ? el('span', {class: 'detail', text: r.detail}) : null])); }); return dl; }
function tree(nodes){ var ul = el('ul', {class: 'tree'}); nodes.forEach(function(n){ var li = el('li', {}, [el('span', {class: 'k', text: n.name}), el('span', {class: 't', text: n.type})]);
  if (n.children) li.appendChild(tree(n.children)); else li.appendChild(el('span', {class: 'v', text: n.value})); ul.appendChild(li); }); return ul; }
function decide(p, approve, decision){ api('POST', '/console/api/approvals/' + encodeURIComponent(p.id) + '/' + (approve ? 'approve' : 'reject'), approve ? decision() : undefined).then(refresh, fail); }
function renderSessionRequest(card, p){
  var r = p.request;
  if (r.pairing) card.appendChild(el('div', {class: r.pairing.replaces === 'a session of another pairing' ? 'warn' : 'note',
    text: (r.pairing.resumable ? 'The site can resume this session later (paired).' : 'This connection brought no pairing secret: only it can use the session.') +
      (r.pairing.replaces === 'a session of another pairing' ? ' Approving REPLACES the session another connection of this site holds: if you did not just ask for this, reject.' : '')}));
  card.appendChild(el('h3', {text: 'Accounts to share'}));
  var acc = el('div', {class: 'choices'});
  state.accounts.forEach(function(a, i){ acc.appendChild(checkbox('acc', a.address, r.preselectedAccounts.length ? r.preselectedAccounts.indexOf(a.address) >= 0 : i === 0)); });
  card.appendChild(acc);
  card.appendChild(el('h3', {text: 'Chains and methods'}));
  Object.keys(r.scopes).forEach(function(k){ var s = r.scopes[k]; var chain = state.chains.filter(function(c){ return 'eip155:' + c.chainId === k; })[0];
    var d = el('details', {}, [el('summary', {}, [checkbox('scope', k, true), el('span', {class: 'muted', text: ' ' + (chain ? chain.network + ' · ' : '') + s.methods.length + ' methods · notifications: ' + (s.notifications.join(', ') || 'none')})])]);
    var mb = el('div', {class: 'choices'}); s.methods.forEach(function(m){ mb.appendChild(checkbox('m:' + k, m, true)); }); d.appendChild(mb); card.appendChild(d); });
  return function(){ var methods = {}; Object.keys(r.scopes).forEach(function(k){ methods[k] = checked(card, 'm:' + k); });
    return {accounts: checked(card, 'acc'), scopes: checked(card, 'scope'), methods: methods}; };
}
function renderPending(p){
  var v = p.view || {rows: [], warnings: [], title: p.kind};
  var card = el('article', {class: 'card request', 'data-kind': p.kind});
  card.appendChild(el('div', {class: 'card-head'}, [el('span', {class: 'card-title', text: v.title}), el('span', {class: 'origin', text: p.origin}),
    v.network ? el('span', {class: 'badge net', text: v.network}) : null, el('span', {class: 'badge wait', text: 'expires ' + new Date(p.expiresAt).toLocaleTimeString()})]));
  v.warnings.forEach(function(w){ card.appendChild(el('div', {class: 'warn', role: 'alert'}, [el('strong', {text: '⚠ Check before approving'}), w])); });
  var decision = function(){ return {}; };
  if (p.kind === 'session') decision = renderSessionRequest(card, p);
  if (v.rows.length) card.appendChild(rows(v.rows));
  var tx = v.transaction;
  if (tx && tx.call) { var c = el('div', {class: 'call'}, [el('div', {text: tx.call.summary})]);
    if (tx.call.args.length) c.appendChild(rows(tx.call.args.map(function(a){ return {label: a.name, value: a.value}; }))); card.appendChild(c); }
  if (tx && tx.simulation) card.appendChild(el('div', {class: 'sim ' + (tx.simulation.ok ? 'ok' : 'bad'),
    text: tx.simulation.ok ? '✓ Simulation: the transaction succeeds on the current state' : '✗ Simulation: it would revert — ' + tx.simulation.reason}));
  if (v.message) { card.appendChild(el('h3', {text: v.message.text !== undefined ? 'Message (' + v.message.bytes + ' bytes)' : 'Message (binary, shown as hex)'}));
    card.appendChild(el('pre', {class: 'message', text: v.message.text !== undefined ? v.message.text : v.message.hex})); }
  if (v.typedData) { card.appendChild(el('h3', {text: 'Domain'})); card.appendChild(tree(v.typedData.domain));
    card.appendChild(el('h3', {text: v.typedData.primaryType})); card.appendChild(tree(v.typedData.message)); }
  card.appendChild(el('div', {class: 'actions'}, [
    el('button', {class: 'approve', type: 'button', text: p.kind === 'session' ? 'Connect' : p.kind === 'eth_sendTransaction' ? 'Approve and send' : 'Sign', onclick: function(){ decide(p, true, decision); }}),
    el('button', {class: 'reject', type: 'button', text: 'Reject', onclick: function(){ decide(p, false); }})]));
  return card;
}
function renderSession(s){
  var card = el('article', {class: 'card session'});
  var scopes = s.session.sessionScopes, keys = Object.keys(scopes), held = {};
  keys.forEach(function(k){ scopes[k].accounts.forEach(function(a){ held[a.split(':')[2]] = true; }); });
  var paired = {resumable: 'paired: the site can reconnect', connection: 'only the connection that created it', none: 'unpaired (older session)'}[s.pairing] || s.pairing;
  card.appendChild(el('div', {class: 'card-head'}, [el('span', {class: 'origin', text: s.origin}), el('span', {class: 'badge ' + (s.connections ? 'ok' : ''), text: s.connections + ' connected'}),
    el('span', {class: 'badge', text: paired}), s.session.sessionProperties.expiry ? el('span', {class: 'badge wait', text: 'expires ' + s.session.sessionProperties.expiry}) : null]));
  card.appendChild(el('h3', {text: 'Accounts'}));
  var acc = el('div', {class: 'choices'}); state.accounts.forEach(function(a){ acc.appendChild(checkbox('acc', a.address, held[a.address])); }); card.appendChild(acc);
  card.appendChild(el('h3', {text: 'Granted scopes'}));
  keys.forEach(function(k){ var chain = state.chains.filter(function(c){ return 'eip155:' + c.chainId === k; })[0];
    var d = el('details', {}, [el('summary', {}, [checkbox('scope', k, true), el('span', {class: 'muted', text: ' ' + (chain ? chain.network + ' · ' : '') + scopes[k].methods.length + ' methods · ' + scopes[k].accounts.length + ' accounts'})])]);
    var mb = el('div', {class: 'choices'}); scopes[k].methods.forEach(function(m){ mb.appendChild(checkbox('m:' + k, m, true)); }); d.appendChild(mb); card.appendChild(d); });
  card.appendChild(el('div', {class: 'actions'}, [
    el('button', {type: 'button', text: 'Save changes', onclick: function(){ var methods = {}; keys.forEach(function(k){ methods[k] = checked(card, 'm:' + k); });
      api('POST', '/console/api/sessions/edit', {origin: s.origin, accounts: checked(card, 'acc'), scopes: checked(card, 'scope'), methods: methods}).then(refresh, fail); }}),
    el('button', {class: 'reject', type: 'button', text: 'Revoke', onclick: function(){ api('POST', '/console/api/sessions/revoke', {origin: s.origin}).then(refresh, fail); }})]));
  return card;
}
function table(head, body){ var t = el('table'), tr = el('tr'); head.forEach(function(x){ tr.appendChild(el('th', {text: x})); }); t.appendChild(el('thead', {}, [tr]));
  var tb = el('tbody'); body.forEach(function(r){ tb.appendChild(r); }); t.appendChild(tb); return t; }
function renderBalances(b){
  var chains = state.chains;
  var trs = b.accounts.map(function(a){ var tr = el('tr', {}, [el('td', {}, [el('div', {text: '#' + a.index + (a.label ? ' ' + a.label : '')}), el('span', {class: 'mono muted', title: a.address, text: a.address})])]);
    a.balances.forEach(function(x){ tr.appendChild(el('td', {class: 'num', title: x.wei ? x.wei + ' wei' : x.error, text: x.text || 'unavailable'})); }); return tr; });
  clear($('accounts')).appendChild(table(['Account'].concat(chains.map(function(c){ return c.network + ' (' + c.chainId + ')'; })), trs));
}
var OUTCOME = {approved: 'ok', signed: 'ok', sent: 'ok', rejected: 'bad', failed: 'bad'};
function renderActivity(a){
  if (!a.entries.length) { clear($('activity')).appendChild(el('p', {class: 'empty', text: 'nothing yet'})); return; }
  var trs = a.entries.map(function(e){ var what = el('td', {}, [el('div', {text: e.summary})]);
    if (e.txHash) what.appendChild(el('div', {class: 'mono muted', title: e.txHash, text: 'tx ' + short(e.txHash) + ' · ' + (e.receiptStatus ? 'receipt: ' + e.receiptStatus : 'waiting for receipt')}));
    return el('tr', {'data-outcome': e.outcome}, [el('td', {text: new Date(e.at).toLocaleString()}), el('td', {}, [el('span', {class: 'origin', text: e.origin})]),
      el('td', {}, [el('span', {class: 'badge ' + (OUTCOME[e.outcome] || ''), text: e.outcome}), el('div', {class: 'muted', text: e.kind + (e.network ? ' · ' + e.network : '')})]), what]); });
  var t = table(['When', 'Site', 'What', 'Details'], trs); clear($('activity')).appendChild(t);
  // Column widths come from the stylesheet: the CSP refuses inline style attributes.
  var cols = el('colgroup'); [1, 2, 3, 4].forEach(function(i){ cols.appendChild(el('col', {class: 'c' + i})); }); t.insertBefore(cols, t.firstChild);
}
function render(){
  var banner = clear($('banner'));
  if (state.autoApprove) banner.appendChild(el('div', {class: 'warn', text: 'wallet.autoApprove is ON: every request is approved without asking.'}));
  $('pending-count').textContent = state.pending.length ? String(state.pending.length) : '';
  // Cards are kept while their request or session is unchanged, so a re-render never drops what the user ticked.
  keyed($('pending'), state.pending, function(p){ return p.id; }, renderPending, 'Nothing waiting. New requests appear here at once.');
  keyed($('sessions'), state.sessions, function(s){ return JSON.stringify(s); }, renderSession, 'No site is connected.');
}
function keyed(root, items, keyOf, make, emptyText){
  var old = {}; Array.prototype.slice.call(root.children).forEach(function(c){ if (c.dataset.key) old[c.dataset.key] = c; });
  var next = items.map(function(it){ var k = keyOf(it); var c = old[k] || make(it); c.dataset.key = k; delete old[k]; return c; });
  clear(root); next.forEach(function(c){ root.appendChild(c); });
  if (!next.length) root.appendChild(el('p', {class: 'empty', text: emptyText}));
}
function refresh(){
  if (busy) { again = true; return Promise.resolve(); } busy = true;
  return Promise.all([api('GET', '/console/api/state'), api('GET', '/console/api/activity'), api('GET', '/console/api/balances')])
    .then(function(r){ state = r[0]; render(); renderActivity(r[1]); renderBalances(r[2]); }, fail)
    .then(function(){ busy = false; if (again) { again = false; return refresh(); } });
}
function live(on){ var l = $('live'); l.className = 'live ' + (on ? 'on' : 'off'); l.textContent = on ? 'live' : 'reconnecting…'; }
function listen(){
  var delay = 1000;
  (function connect(){
    fetch('/console/api/events', {headers: {'authorization': 'Bearer ' + token}, cache: 'no-store'}).then(function(res){
      if (res.status === 401) { unauthorized(); live(false); return; }
      if (!res.ok || !res.body) throw new Error('HTTP ' + res.status);
      live(true); delay = 1000; refresh();
      var reader = res.body.getReader(), dec = new TextDecoder(), buf = '';
      return (function pump(){ return reader.read().then(function(x){ if (x.done) throw new Error('stream ended');
        buf += dec.decode(x.value, {stream: true}); var i;
        while ((i = buf.indexOf('\n\n')) >= 0) { var ev = buf.slice(0, i); buf = buf.slice(i + 2); if (/^event: change$/m.test(ev)) refresh(); }
        return pump(); }); })();
    }).catch(function(){ live(false); setTimeout(connect, delay); delay = Math.min(delay * 2, 15000); });
  })();
}
document.addEventListener('DOMContentLoaded', function(){
  $('refresh-balances').onclick = function(){ refresh(); };
  $('rotate').onclick = function(){ if (!confirm('Rotate the console token? Every open console and bookmark with the old token stops working.')) return;
    api('POST', '/console/api/token/rotate').then(function(r){ keepToken(r.token); var b = clear($('notice'));
      b.appendChild(el('div', {class: 'dialog'}, ['Token rotated. Bookmark this address now: ', el('span', {class: 'mono', text: location.href})])); }, fail); };
  if (!token) { unauthorized(); return; }
  listen();
});
})();
`
