/**
 * The wallet wired into the whole app (src/app/parts/wallet.ts): reads, broadcasts and subscriptions go through the
 * in-process gateway, charged to the wallet's own API key; `info` carries the URLs `chaingate start` prints.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { WALLET_ACCOUNT_EMAIL } from '../../src/app/parts/wallet.ts'
import { startTestServer, type TestServer } from './helpers/server.ts'
import { ACCOUNT_0, ACCOUNT_1, dapp } from './helpers/wallet.ts'

let s: TestServer
beforeAll(async () => {
  s = await startTestServer(
    { wallet: { enabled: true, port: 0, autoApprove: true, pollMs: 100, keystore: { scryptLogN: 10 } } },
    { parts: { wallet: true } },
  )
})
afterAll(async () => s?.stop())

test('a dapp reads, sends and subscribes through the gateway, charged to the wallet key', async () => {
  const url = s.app.info['wallet (CAIP-25 over WebSocket)']!
  expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/$/)
  expect(s.app.info['wallet console']).toMatch(/\/console\?token=[0-9a-f]{32}$/)
  expect(s.app.info['wallet keys']).toMatch(/PUBLIC/)
  const walletAccount = (await s.parts.accounts.findByEmail(WALLET_ACCOUNT_EMAIL))!
  const before = s.parts.limits.usedToday(walletAccount.id, Date.now())

  const d = dapp(url, 'https://app-wired.example')
  const scope = 'eip155:31338'
  await d.client.createSession({
    optionalScopes: {
      [scope]: {
        methods: ['eth_blockNumber', 'eth_sendTransaction', 'eth_getTransactionReceipt', 'eth_subscribe'],
        notifications: ['eth_subscription'],
      },
    },
  })
  const invoke = (method: string, params: unknown) =>
    d.client.invokeMethod({ scope: scope as any, request: { method, params } as any }) as Promise<any>
  expect((await invoke('eth_blockNumber', [])).result.result).toMatch(/^0x/)
  const sub = (await invoke('eth_subscribe', ['newHeads'])).result.result
  const hash = (await invoke('eth_sendTransaction', [{ from: ACCOUNT_0, to: ACCOUNT_1, value: '0x1' }])).result.result
  let receipt: any = null
  for (let i = 0; i < 100 && !receipt; i++) {
    receipt = (await invoke('eth_getTransactionReceipt', [hash])).result.result
    if (!receipt) await new Promise((r) => setTimeout(r, 50))
  }
  expect(receipt.status).toBe('0x1')
  const note = await d.next((n) => n.method === 'wallet_notify' && n.params.notification.params.subscription === sub)
  expect(note.params.scope).toBe(scope)
  expect(s.parts.limits.usedToday(walletAccount.id, Date.now()) - before).toBeGreaterThan(0)
  await d.close()
})

test('npm run example:dapp works against the running wallet (issue point 10)', async () => {
  const url = s.app.info['wallet (CAIP-25 over WebSocket)']!
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/dapp.ts'], {
    env: { ...process.env, CHAINGATE_WALLET_URL: url, DAPP_ORIGIN: 'http://example-dapp.test' },
    timeout: 30_000,
  })
  expect(stdout).toContain('session granted on eip155:31337, eip155:31338')
  expect(stdout).toMatch(/eip155:31338: latest block \d+ 0x[0-9a-f]{64}/)
  expect(stdout).toMatch(/receipt: block \d+, status success/)
  expect(stdout).toMatch(/\[wallet_notify\] eip155:31337 new block \d+/)
  expect(stdout).toContain('session revoked')
})
