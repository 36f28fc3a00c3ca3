/**
 * The wallet console: one self-contained page (no external assets) where the wallet's user answers pending
 * requests and edits or revokes sessions, and sees which sessions are paired (docs/wallet.md "Pairing"). It reads the token from `?token=`, keeps it in sessionStorage, drops
 * it from the address bar, and sends it as a Bearer header. Everything a dapp supplied is shown through
 * textContent (never innerHTML), so a hostile origin or message cannot script the console.
 */
export function renderConsolePage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>chaingate wallet console</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
 body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:960px;padding:1rem;color:#222}
 h1{font-size:1.3rem} h2{font-size:1.1rem;margin-top:2rem;border-bottom:1px solid #ddd}
 .card{border:1px solid #ccc;border-radius:6px;padding:.75rem;margin:.5rem 0;background:#fafafa}
 .origin{font-weight:bold;font-family:monospace} .muted{color:#777} pre{white-space:pre-wrap;word-break:break-all;background:#fff;border:1px solid #eee;padding:.5rem;max-height:20rem;overflow:auto}
 button{margin-right:.5rem;padding:.3rem .8rem} .approve{background:#2a7;color:#fff;border:0} .reject{background:#c33;color:#fff;border:0}
 label{display:inline-block;margin-right:1rem;font-family:monospace} .warn{background:#fee;border:1px solid #c33;padding:.5rem}
 details{margin:.25rem 0}
</style></head>
<body>
<h1>chaingate wallet console</h1>
<div id="banner"></div>
<h2>Pending requests</h2><div id="pending"><span class="muted">loading…</span></div>
<h2>Active sessions</h2><div id="sessions"></div>
<h2>Accounts</h2><div id="accounts"></div>
<script>
(function(){
  var q = new URLSearchParams(location.search);
  if (q.get('token')) { sessionStorage.setItem('cgToken', q.get('token')); history.replaceState(null, '', location.pathname); }
  var token = sessionStorage.getItem('cgToken') || '';
  var state = null, rendered = '';
  function el(tag, attrs, children){ var e=document.createElement(tag); attrs=attrs||{};
    for (var k in attrs){ if(k==='text') e.textContent=attrs[k]; else if(k==='onclick') e.onclick=attrs[k]; else e.setAttribute(k, attrs[k]); }
    (children||[]).forEach(function(c){ if(c) e.appendChild(c); }); return e; }
  function api(method, path, body){ return fetch(path,{method:method,headers:{'authorization':'Bearer '+token,'content-type':'application/json'},body:body?JSON.stringify(body):undefined})
    .then(function(r){ return r.json().then(function(j){ if(!r.ok) throw new Error(j.error||r.status); return j; }); }); }
  function checkbox(name, value, checked){ var c=el('input',{type:'checkbox','data-name':name,value:value}); c.checked=!!checked; return el('label',{},[c, document.createTextNode(' '+value)]); }
  function checked(root, name){ return Array.prototype.slice.call(root.querySelectorAll('input[data-name="'+name+'"]')).filter(function(c){return c.checked;}).map(function(c){return c.value;}); }
  function renderPending(p){
    var card = el('div',{class:'card'});
    card.appendChild(el('div',{},[el('span',{class:'origin',text:p.origin}), el('span',{class:'muted',text:'  wants '+p.kind+' · expires '+new Date(p.expiresAt).toLocaleTimeString()})]));
    var decision = function(){ return {}; };
    if (p.kind === 'session') {
      var r = p.request;
      if (r.pairing) card.appendChild(el('div',{class: r.pairing.replaces === 'a session of another pairing' ? 'warn' : 'muted',
        text: (r.pairing.resumable ? 'The dapp can resume this session later (paired).' : 'This connection brought no pairing secret: only it can use the session.') +
          (r.pairing.replaces === 'a session of another pairing' ? ' Approving REPLACES the session another connection of this origin holds: if you did not just ask for this in the dapp, reject.' : '')}));
      card.appendChild(el('div',{text:'Accounts to share:'}));
      var accBox = el('div'); (state.accounts||[]).forEach(function(a){ accBox.appendChild(checkbox('acc', a.address, (r.preselectedAccounts.length? r.preselectedAccounts.indexOf(a.address)>=0 : a.index===state.accounts[0].index))); });
      card.appendChild(accBox);
      card.appendChild(el('div',{text:'Chains and methods:'}));
      var scopeBox = el('div');
      Object.keys(r.scopes).forEach(function(k){ var s=r.scopes[k]; var d=el('details');
        d.appendChild(el('summary',{},[checkbox('scope', k, true), el('span',{class:'muted',text:s.methods.length+' methods, notifications: '+(s.notifications.join(', ')||'none')})]));
        var mb=el('div'); s.methods.forEach(function(m){ mb.appendChild(checkbox('m:'+k, m, true)); }); d.appendChild(mb); scopeBox.appendChild(d); });
      card.appendChild(scopeBox);
      if (r.sessionProperties && Object.keys(r.sessionProperties).length) card.appendChild(el('pre',{text:'sessionProperties: '+JSON.stringify(r.sessionProperties,null,2)}));
      decision = function(){ var methods={}; Object.keys(r.scopes).forEach(function(k){ methods[k]=checked(card,'m:'+k); });
        return {accounts: checked(card,'acc'), scopes: checked(card,'scope'), methods: methods}; };
    } else {
      card.appendChild(el('pre',{text: JSON.stringify(p.request, null, 2)}));
    }
    card.appendChild(el('div',{},[
      el('button',{class:'approve',text:'Approve',onclick:function(){ api('POST','/console/api/approvals/'+encodeURIComponent(p.id)+'/approve', decision()).then(refresh, alert); }}),
      el('button',{class:'reject',text:'Reject',onclick:function(){ api('POST','/console/api/approvals/'+encodeURIComponent(p.id)+'/reject').then(refresh, alert); }})]));
    return card;
  }
  function renderSession(s){
    var card = el('div',{class:'card'});
    var scopes = s.session.sessionScopes; var keys = Object.keys(scopes);
    var held = {}; keys.forEach(function(k){ scopes[k].accounts.forEach(function(a){ held[a.split(':')[2]] = true; }); });
    var paired = {resumable:'paired: the dapp keeps its pairing secret and can reconnect', connection:'not resumable: only the connection that created it could use it', none:'unpaired (older session): no connection can use it'}[s.pairing] || s.pairing;
    card.appendChild(el('div',{},[el('span',{class:'origin',text:s.origin}), el('span',{class:'muted',text:'  '+s.connections+' connection(s) · '+paired+(s.session.sessionProperties.expiry?' · expires '+s.session.sessionProperties.expiry:'')})]));
    var accBox = el('div'); (state.accounts||[]).forEach(function(a){ accBox.appendChild(checkbox('acc', a.address, held[a.address])); }); card.appendChild(accBox);
    var scopeBox = el('div'); keys.forEach(function(k){ var d=el('details');
      d.appendChild(el('summary',{},[checkbox('scope', k, true), el('span',{class:'muted',text:scopes[k].methods.length+' methods'})]));
      var mb=el('div'); scopes[k].methods.forEach(function(m){ mb.appendChild(checkbox('m:'+k, m, true)); }); d.appendChild(mb); scopeBox.appendChild(d); });
    card.appendChild(scopeBox);
    card.appendChild(el('div',{},[
      el('button',{text:'Save changes',onclick:function(){ var methods={}; keys.forEach(function(k){ methods[k]=checked(card,'m:'+k); });
        api('POST','/console/api/sessions/edit',{origin:s.origin,accounts:checked(card,'acc'),scopes:checked(card,'scope'),methods:methods}).then(refresh, alert); }}),
      el('button',{class:'reject',text:'Revoke session',onclick:function(){ api('POST','/console/api/sessions/revoke',{origin:s.origin}).then(refresh, alert); }})]));
    return card;
  }
  function render(){
    var key = JSON.stringify(state); if (key === rendered) return; rendered = key;
    var banner = document.getElementById('banner'); banner.textContent='';
    if (state.autoApprove) banner.appendChild(el('div',{class:'warn',text:'wallet.autoApprove is ON: every request is approved without asking.'}));
    var pe = document.getElementById('pending'); pe.textContent='';
    if (!state.pending.length) pe.appendChild(el('span',{class:'muted',text:'nothing waiting'}));
    state.pending.forEach(function(p){ pe.appendChild(renderPending(p)); });
    var se = document.getElementById('sessions'); se.textContent='';
    if (!state.sessions.length) se.appendChild(el('span',{class:'muted',text:'no sessions'}));
    state.sessions.forEach(function(s){ se.appendChild(renderSession(s)); });
    var ae = document.getElementById('accounts'); ae.textContent='';
    state.accounts.forEach(function(a){ ae.appendChild(el('div',{class:'origin',text:'#'+a.index+'  '+a.address+(a.label?'  ('+a.label+')':'')})); });
  }
  function refresh(){ return api('GET','/console/api/state').then(function(s){ state=s; render(); }, function(e){ document.getElementById('pending').textContent = 'error: '+e.message; }); }
  refresh(); setInterval(function(){ if (!document.querySelector('input:focus')) refresh(); }, 1000);
})();
</script>
</body></html>
`
}
