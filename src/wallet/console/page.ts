/**
 * The wallet console: one page (no external assets; stylesheet and script from the same listener) where the
 * wallet's user answers pending requests, sees balances and activity, and edits or revokes connected sites. The
 * token arrives as `?token=` (the URL printed at start) or `#token=`; the page keeps it in the fragment, which
 * browsers never send to a server, so a bookmark keeps working while the token is not rotated.
 */
export function renderConsolePage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>chaingate wallet console</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/console.css">
<script type="module" src="/console/assets/console.browser.js"></script>
</head>
<body>
<header class="topbar">
  <div class="brand"><span class="logo" aria-hidden="true">◆</span> chaingate <span class="muted">wallet</span></div>
  <div class="topbar-right">
    <span id="live" class="live off" title="live updates">connecting…</span>
    <button id="rotate" class="ghost" type="button">Rotate token</button>
  </div>
</header>
<main>
  <div id="banner"></div>
  <div id="notice" aria-live="polite"></div>
  <section class="panel" id="requests-panel">
    <h2>Requests <span id="pending-count" class="count"></span></h2>
    <div id="pending"><p class="empty">loading…</p></div>
  </section>
  <section class="panel" id="accounts-panel">
    <h2>Accounts and balances <button id="refresh-balances" class="ghost small" type="button">Refresh</button></h2>
    <div id="accounts" class="table-wrap"></div>
  </section>
  <section class="panel" id="sessions-panel">
    <h2>Connected sites</h2>
    <div id="sessions"></div>
  </section>
  <section class="panel" id="activity-panel">
    <h2>Activity</h2>
    <div id="activity" class="table-wrap"></div>
  </section>
</main>
</body></html>
`
}
