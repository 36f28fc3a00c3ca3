/** The console's stylesheet (served at /console/assets/console.css; system fonts, no downloads). */
export const CONSOLE_STYLES = `
:root{--bg:#f4f5f7;--panel:#fff;--ink:#1c2430;--muted:#6b7685;--line:#e3e6ea;--accent:#3b5bdb;--ok:#2b8a3e;--okbg:#ebfbee;
--bad:#c92a2a;--badbg:#fff5f5;--warnbg:#fff9db;--warn:#8a6d00;--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
*{box-sizing:border-box}
html,body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.topbar{display:flex;align-items:center;justify-content:space-between;gap:1rem;
 padding:.6rem 1.25rem;background:#111827;color:#fff}
.brand{font-weight:600;font-size:1.05rem;letter-spacing:.01em}.brand .muted{color:#9aa5b1;font-weight:400}
.logo{color:#7c9cff}.topbar-right{display:flex;gap:.75rem;align-items:center}
.live{font-size:.8rem;padding:.15rem .55rem;border-radius:999px;background:#374151}
.live.on{background:#1f6f3a}.live.on::before{content:"● "}.live.off::before{content:"○ "}
main{max-width:1040px;margin:0 auto;padding:1.25rem}
.panel{background:var(--panel);border:1px solid var(--line);border-radius:10px;padding:1rem 1.25rem;margin-bottom:1.25rem;
 box-shadow:0 1px 2px rgba(16,24,40,.04);overflow:hidden}
h2{font-size:1rem;margin:0 0 .75rem;display:flex;align-items:center;gap:.5rem}
.count{background:var(--accent);color:#fff;border-radius:999px;font-size:.75rem;padding:0 .5rem;min-width:1.4rem;text-align:center}
.count:empty{display:none}
.empty{color:var(--muted);margin:.25rem 0}
.card{border:1px solid var(--line);border-radius:8px;padding:.9rem 1rem;margin:.75rem 0;background:#fcfcfd;min-width:0}
.card-head{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;margin-bottom:.6rem}
.card-title{font-weight:600;font-size:1rem}
.origin{font-family:var(--mono);font-weight:600;background:#eef2ff;color:#27348b;border-radius:6px;padding:.05rem .45rem;
 overflow-wrap:anywhere}
.badge{font-size:.75rem;border-radius:999px;padding:.05rem .55rem;background:#eef1f4;color:#394150;white-space:nowrap}
.badge.net{background:#e7f5ff;color:#1864ab}.badge.ok{background:var(--okbg);color:var(--ok)}.badge.bad{background:var(--badbg);color:var(--bad)}
.badge.wait{background:var(--warnbg);color:var(--warn)}
.muted{color:var(--muted)}
dl.rows{display:grid;grid-template-columns:minmax(7rem,max-content) minmax(0,1fr);gap:.35rem 1rem;margin:.25rem 0 .6rem}
dl.rows dt{color:var(--muted)}dl.rows dd{margin:0;min-width:0;overflow-wrap:anywhere}
.mono{font-family:var(--mono);font-size:.85rem;overflow-wrap:anywhere}
.detail{display:block;color:var(--muted);font-size:.8rem}
.warn{background:var(--badbg);border:1px solid #ffc9c9;color:var(--bad);border-radius:8px;padding:.5rem .75rem;margin:.5rem 0;
 overflow-wrap:anywhere}
.warn strong{display:block}
.note{background:var(--warnbg);border:1px solid #ffec99;color:var(--warn);border-radius:8px;padding:.5rem .75rem;margin:.5rem 0}
.sim{border-radius:8px;padding:.4rem .75rem;margin:.5rem 0;font-weight:500;overflow-wrap:anywhere}
.sim.ok{background:var(--okbg);color:var(--ok)}.sim.bad{background:var(--badbg);color:var(--bad)}
.call{border-left:3px solid var(--accent);padding:.25rem .75rem;margin:.5rem 0;background:#f8f9ff;overflow-wrap:anywhere}
.message{white-space:pre-wrap;overflow-wrap:anywhere;background:#fff;border:1px solid var(--line);border-radius:6px;
 padding:.6rem .75rem;max-height:16rem;overflow:auto;font-family:var(--mono);font-size:.85rem;margin:.5rem 0}
ul.tree{list-style:none;margin:.25rem 0;padding-left:1rem;border-left:1px dashed var(--line);min-width:0}
ul.tree li{margin:.15rem 0;overflow-wrap:anywhere}.tree .k{font-weight:600}.tree .t{color:var(--muted);font-size:.75rem;margin-left:.35rem}
.tree .v{font-family:var(--mono);font-size:.85rem;margin-left:.5rem}
h3{font-size:.85rem;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);margin:.75rem 0 .25rem}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:.75rem}
button{font:inherit;border-radius:6px;padding:.4rem 1rem;border:1px solid var(--line);background:#fff;color:var(--ink);cursor:pointer}
button:hover{filter:brightness(.97)}button.approve{background:var(--ok);border-color:var(--ok);color:#fff}
button.reject{background:#fff;border-color:#ffa8a8;color:var(--bad)}
button.ghost{background:transparent;border-color:#4b5563;color:inherit}button.small{padding:.1rem .6rem;font-size:.8rem;border-color:var(--line)}
.choices{display:flex;flex-wrap:wrap;gap:.35rem .9rem;margin:.25rem 0 .5rem}
.choices label{font-family:var(--mono);font-size:.85rem;overflow-wrap:anywhere;min-width:0}
details{margin:.25rem 0}summary{cursor:pointer}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;table-layout:fixed}
th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:anywhere}
th{font-size:.75rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);font-weight:600}
td.num{font-variant-numeric:tabular-nums}
#activity col.c1{width:18%}#activity col.c2{width:22%}#activity col.c3{width:18%}#activity col.c4{width:42%}
#banner .warn{margin:0 0 1rem}
.dialog{background:#fff;border:1px solid var(--line);border-radius:8px;padding:.75rem 1rem;margin:0 0 1rem;overflow-wrap:anywhere}
@media (max-width:640px){main{padding:.6rem}.panel{padding:.75rem}dl.rows{grid-template-columns:minmax(0,1fr)}dl.rows dt{margin-top:.3rem}}
`
