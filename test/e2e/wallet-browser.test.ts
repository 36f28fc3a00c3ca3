/**
 * Issue 3, points 1 and 3 in a real browser (Debian chromium via playwright-core): a dapp page served from its
 * own origin connects with the browser's WebSocket (the Origin header is the browser's), and the wallet's user
 * answers in the console page: unticks a chain, approves; then revokes the session from the console.
 */
import { createServer, type Server } from 'node:http'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { ACCOUNT_0, ACCOUNT_1, CHAIN_A, CHAIN_B, useWalletOnDevnets, waitForPending } from './helpers/wallet.ts'
import { describeWithPrograms, programPath } from '../support/programs.ts'

const A = `eip155:${CHAIN_A}`
const B = `eip155:${CHAIN_B}`

const DAPP_PAGE = (walletUrl: string) => `<!doctype html><html><body><script>
  window.messages = [];
  const ws = new WebSocket(${JSON.stringify(walletUrl)});
  let id = 0; const pending = new Map();
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data); window.messages.push(m);
    if (m.id != null && pending.has(m.id)) { pending.get(m.id)(m); pending.delete(m.id); }
  };
  window.ready = new Promise((r) => (ws.onopen = r));
  window.call = (method, params) => new Promise((r) => {
    const i = ++id; pending.set(i, r); ws.send(JSON.stringify({ jsonrpc: '2.0', id: i, method, params }));
  });
</script></body></html>`

let browser: Browser | undefined
let site: Server
let siteOrigin: string

describeWithPrograms(['chromium'], 'browser dapp and wallet console', () => {
  const wallet = useWalletOnDevnets()
  beforeAll(async () => {
    site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(DAPP_PAGE(wallet.h.url)))
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r))
    siteOrigin = `http://127.0.0.1:${(site.address() as { port: number }).port}`
    browser = await chromium.launch({ executablePath: programPath('chromium'), args: ['--no-sandbox'] })
  })
  afterAll(async () => {
    await browser?.close()
    site?.close()
  })

  test('the page origin owns the session; the console shows the request, the user adds an account, drops a chain and approves, then revokes', async () => {
    const dappPage = await browser!.newPage()
    await dappPage.goto(`${siteOrigin}/`)
    await dappPage.evaluate(() => (window as any).ready)
    const created = dappPage.evaluate(() =>
      (window as any).call('wallet_createSession', {
        optionalScopes: { eip155: { references: ['31337', '31338'], methods: ['eth_chainId'], notifications: [] } },
      }),
    )
    const pending = await waitForPending(wallet.h, (p) => p.kind === 'session')
    expect(pending.origin).toBe(siteOrigin)

    const consolePage = await browser!.newPage()
    await consolePage.goto(wallet.h.consoleUrl)
    // the token leaves the query (it stays in the fragment, never sent)
    expect(new URL(consolePage.url()).search).toBe('')
    await consolePage.getByText(siteOrigin).first().waitFor()
    await consolePage.locator(`#pending input[data-name="scope"][value="${B}"]`).uncheck()
    await consolePage.locator(`#pending input[data-name="acc"][value="${ACCOUNT_1}"]`).check()
    await consolePage.locator('#pending button.approve').click()
    const response: any = await created
    expect(response.result.sessionScopes).toEqual({
      [A]: { methods: ['eth_chainId'], notifications: [], accounts: [`${A}:${ACCOUNT_0}`, `${A}:${ACCOUNT_1}`] },
    })

    // The console lists the session; revoking it there reaches the page as wallet_sessionChanged {}.
    await consolePage.locator('#sessions .origin', { hasText: siteOrigin }).waitFor()
    await consolePage.locator('#sessions button.reject').click()
    await dappPage.waitForFunction(() =>
      (window as any).messages.some(
        (m: any) => m.method === 'wallet_sessionChanged' && Object.keys(m.params.sessionScopes).length === 0,
      ),
    )
    const after: any = await dappPage.evaluate(() => (window as any).call('wallet_getSession', {}))
    expect(after.result).toEqual({ sessionScopes: {} })
  })
})
