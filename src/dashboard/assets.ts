/**
 * The dashboard's only static files, served from memory under /assets/. Pages work without the script; it only
 * adds copy-to-clipboard buttons.
 */

export const CSS = `
:root { --fg:#1b1f24; --muted:#5b6470; --bg:#f6f7f9; --card:#fff; --line:#d8dde3; --accent:#0b5cad; --danger:#b42318;
  --ok:#067647; --warn:#b54708; --s0:#2563eb; --s1:#d97706; --s2:#059669; --s3:#9333ea; --s4:#db2777; --s5:#64748b; }
* { box-sizing: border-box; }
body { margin:0; font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--fg); background:var(--bg); }
a { color:var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, summary:focus-visible {
  outline:3px solid #f59e0b; outline-offset:2px; }
.skip { position:absolute; left:-9999px; top:0; background:#fff; padding:.5rem 1rem; z-index:10; }
.skip:focus { left:.5rem; }
header.top { background:#0f172a; color:#fff; }
header.top .bar { max-width:1100px; margin:0 auto; padding:.6rem 1rem; display:flex; flex-wrap:wrap; gap:.5rem 1.25rem; align-items:center; }
header.top a { color:#e2e8f0; text-decoration:none; padding:.2rem .1rem; }
header.top a[aria-current="page"] { color:#fff; border-bottom:2px solid #60a5fa; }
header.top .brand { font-weight:700; color:#fff; margin-right:auto; }
header.top form { margin:0; }
header.top button { background:transparent; color:#e2e8f0; border:1px solid #475569; }
main { max-width:1100px; margin:0 auto; padding:1rem; }
h1 { font-size:1.5rem; margin:.5rem 0 1rem; }
h2 { font-size:1.15rem; margin:0 0 .75rem; }
h3 { font-size:1rem; margin:1rem 0 .5rem; }
.card { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:1rem; margin:0 0 1rem; }
.grid2 { display:grid; grid-template-columns:repeat(auto-fit,minmax(min(100%,420px),1fr)); gap:1rem; margin:0 0 1rem; }
.grid2 > .card { margin:0; }
.muted { color:var(--muted); }
.flash { padding:.6rem .9rem; border-radius:6px; margin:0 0 1rem; border:1px solid; }
.flash.ok { background:#ecfdf3; border-color:#abefc6; color:var(--ok); }
.flash.error { background:#fef3f2; border-color:#fecdca; color:var(--danger); }
.secret { font:600 1.05rem ui-monospace,monospace; background:#fffbeb; border:1px dashed var(--warn); padding:.5rem; word-break:break-all; }
form.inline { display:inline; }
label { display:block; font-weight:600; margin:.5rem 0 .2rem; }
label.check { display:flex; gap:.5rem; align-items:center; font-weight:400; }
input[type=text], input[type=email], input[type=password], input[type=number], select, textarea {
  width:100%; max-width:32rem; padding:.45rem .55rem; border:1px solid #9aa4b1; border-radius:6px; font:inherit; background:#fff; }
textarea { font-family:ui-monospace,monospace; font-size:.85rem; min-height:7rem; }
button, .button { display:inline-block; font:inherit; padding:.4rem .9rem; border-radius:6px; border:1px solid var(--accent);
  background:var(--accent); color:#fff; cursor:pointer; text-decoration:none; }
button.secondary { background:#fff; color:var(--accent); }
button.danger { background:var(--danger); border-color:var(--danger); }
button.small { padding:.15rem .5rem; font-size:.85rem; }
.row { display:flex; flex-wrap:wrap; gap:.5rem; align-items:flex-end; margin:.5rem 0; }
.row > * { margin:0; }
table { border-collapse:collapse; width:100%; }
th, td { text-align:left; padding:.4rem .5rem; border-bottom:1px solid var(--line); vertical-align:top; }
th { font-size:.85rem; color:var(--muted); font-weight:600; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; }
.table-wrap { overflow-x:auto; }
code, .mono { font-family:ui-monospace,monospace; font-size:.9em; word-break:break-all; }
.endpoint { display:flex; gap:.4rem; align-items:center; margin:.2rem 0; }
.endpoint .tag { font-size:.75rem; color:var(--muted); width:2.2rem; flex:none; }
header.top .muted { color:#cbd5e1; }
.endpoint input { font-family:ui-monospace,monospace; font-size:.85rem; max-width:none; flex:1; min-width:0; }
.badge { display:inline-block; padding:0 .45rem; border-radius:999px; font-size:.8rem; border:1px solid var(--line); }
.badge.on { color:var(--ok); border-color:#abefc6; background:#ecfdf3; }
.badge.off { color:var(--muted); }
.badge.revoked { color:var(--danger); border-color:#fecdca; background:#fef3f2; }
ul.entries { list-style:none; padding:0; margin:.25rem 0; }
ul.entries li { display:flex; gap:.5rem; align-items:center; padding:.15rem 0; }
nav.tabs { display:flex; flex-wrap:wrap; gap:.25rem; margin:0 0 .75rem; }
nav.tabs a { padding:.25rem .7rem; border:1px solid var(--line); border-radius:999px; text-decoration:none; background:#fff; }
nav.tabs a[aria-current="true"] { background:var(--accent); color:#fff; border-color:var(--accent); }
figure { margin:0 0 1rem; }
figcaption { font-weight:600; margin:0 0 .25rem; }
.chart svg { width:100%; height:auto; display:block; background:#fff; }
.chart text, .gauge text { font-size:11px; fill:#475569; }
.chart .grid { stroke:#e5e7eb; }
.chart .line { fill:none; stroke-width:2; }
.chart .reference { stroke:var(--danger); stroke-dasharray:6 4; }
.chart .reference-label { fill:var(--danger); }
.s0 { fill:var(--s0); stroke:var(--s0); } .s1 { fill:var(--s1); stroke:var(--s1); } .s2 { fill:var(--s2); stroke:var(--s2); }
.s3 { fill:var(--s3); stroke:var(--s3); } .s4 { fill:var(--s4); stroke:var(--s4); } .s5 { fill:var(--s5); stroke:var(--s5); }
polyline.s0, polyline.s1, polyline.s2, polyline.s3, polyline.s4, polyline.s5 { fill:none; }
ul.legend { list-style:none; padding:0; margin:.25rem 0 0; display:flex; flex-wrap:wrap; gap:.25rem 1rem; font-size:.85rem; }
ul.legend svg.key { width:28px; height:10px; margin-right:.3rem; vertical-align:0; overflow:visible; }
ul.legend li { display:flex; align-items:center; min-width:0; overflow-wrap:anywhere; }
.chart rect.bar { stroke:#fff; stroke-width:.75; }
.chart .dot { stroke:#fff; stroke-width:1; }
.chart .line, ul.legend .line { fill:none; stroke-width:2; }
ul.legend .reference { stroke:var(--danger); stroke-width:2; stroke-dasharray:6 4; }
.status-code { font:700 2.5rem/1 ui-monospace,monospace; color:var(--muted); margin:0 0 .5rem; }
header.top .who { overflow-wrap:anywhere; min-width:0; }
pre.snippet { background:#0f172a; color:#e2e8f0; padding:.75rem; border-radius:6px; overflow-x:auto; font-size:.85rem; margin:.25rem 0; max-width:100%; }
.snippets details { margin:.25rem 0; }
.snippets summary { cursor:pointer; font-weight:600; }
dl.labels { display:grid; grid-template-columns:max-content 1fr; gap:.2rem .75rem; font-size:.85rem; margin:.5rem 0 0; }
dl.labels dt { font-family:ui-monospace,monospace; } dl.labels dd { margin:0; color:var(--muted); }
.swatch { display:inline-block; width:.8rem; height:.8rem; border-radius:2px; margin-right:.3rem; vertical-align:-1px; }
.swatch.s0 { background:var(--s0); } .swatch.s1 { background:var(--s1); } .swatch.s2 { background:var(--s2); }
.swatch.s3 { background:var(--s3); } .swatch.s4 { background:var(--s4); } .swatch.s5 { background:var(--s5); }
.gauge svg { width:100%; height:auto; display:block; }
.gauge .track { fill:#e5e7eb; } .gauge .fill.ok { fill:var(--ok); } .gauge .fill.warn { fill:#f59e0b; }
.gauge .fill.high { fill:var(--warn); } .gauge .fill.full { fill:var(--danger); }
.sr-only { position:absolute; width:1px; height:1px; overflow:hidden; clip:rect(0 0 0 0); white-space:nowrap; }
@media (max-width: 600px) {
  body { font-size:16px; }
  main { padding:.6rem; }
  .card { padding:.75rem; }
  th, td { padding:.35rem .3rem; }
  table.stack thead { display:none; }
  table.stack tr { display:block; border-bottom:1px solid var(--line); padding:.4rem 0; }
  table.stack td { display:block; border:0; padding:.1rem 0; }
  table.stack td.num { text-align:left; }
  table.stack td[data-label]::before { content:attr(data-label) ": "; color:var(--muted); font-size:.85rem; }
}
`

export const JS = `
(function () {
  var canonical = document.querySelector('meta[name="chaingate-url"]');
  if (canonical && window.history && canonical.content !== location.pathname + location.search) {
    history.replaceState(null, '', canonical.content);
  }
  var status = document.getElementById('copy-status');
  function announce(text) { if (status) { status.textContent = ''; setTimeout(function () { status.textContent = text; }, 10); } }
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    button.hidden = false;
    button.addEventListener('click', function () {
      var input = document.getElementById(button.getAttribute('data-copy'));
      if (!input) return;
      var text = input.tagName === 'INPUT' ? input.value : input.textContent;
      var done = function () { button.textContent = 'Copied'; announce('Copied to the clipboard'); setTimeout(function () { button.textContent = 'Copy'; }, 1500); };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(done, function () { if (input.select) { input.select(); document.execCommand('copy'); } done(); });
      } else if (input.select) { input.select(); document.execCommand('copy'); done(); }
    });
  });
})();
`

/** A small chain-link icon, so browsers do not ask for /favicon.ico. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0f172a"/><rect x="5" y="11" width="13" height="10" rx="5" fill="none" stroke="#60a5fa" stroke-width="3"/><rect x="14" y="11" width="13" height="10" rx="5" fill="none" stroke="#e2e8f0" stroke-width="3"/></svg>`
