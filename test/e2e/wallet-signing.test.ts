/**
 * Issue 3, points 3, 5, 7, 8: approvals (console, CLI, auto-approve, timeout), signing (personal_sign,
 * eth_signTypedData_v4, eth_sendTransaction broadcast to anvil), subscriptions as wallet_notify, account removal,
 * console edits and guards, keys never in logs — real server, real anvil, the real multichain client.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { recoverMessageAddress, recoverTypedDataAddress, type Hex } from 'viem'
import { runWalletCommand } from '../../src/cli/wallet-commands.ts'
import { ANVIL_TEST_MNEMONIC } from '../../src/wallet/keystore.ts'
import {
  ACCOUNT_0,
  ACCOUNT_1,
  CHAIN_A,
  CHAIN_B,
  UNAUTHORIZED,
  approve,
  approvedSession,
  dapp,
  failure,
  invoke,
  reject,
  startWallet,
  useWalletOnDevnets,
  waitForPending,
  type Dapp,
} from './helpers/wallet.ts'

const A = `eip155:${CHAIN_A}`
const B = `eip155:${CHAIN_B}`
const ALL = [
  'personal_sign',
  'eth_signTypedData_v4',
  'eth_sendTransaction',
  'eth_subscribe',
  'eth_unsubscribe',
  'eth_getTransactionReceipt',
  'eth_blockNumber',
]

const logLines: string[] = []

const wallet = useWalletOnDevnets({}, { logLines })

async function receipt(d: Dapp, scope: string, hash: string): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const r = await invoke(d, scope, 'eth_getTransactionReceipt', [hash])
    if (r.result.result) return r.result.result
    await new Promise((res) => setTimeout(res, 50))
  }
  throw new Error('no receipt')
}

describe('signing waits for the user (points 3, 5)', () => {
  const origin = 'https://signer.example'
  let d: Dapp
  beforeAll(async () => {
    d = dapp(wallet.h.url, origin)
    await approvedSession(wallet.h, d, origin, {
      [A]: { methods: ALL, notifications: ['eth_subscription'] },
      [B]: { methods: ALL, notifications: [] },
    })
  })
  afterAll(() => d.close())

  test('personal_sign: approved in the console, signature recovers to the account', async () => {
    const pending = invoke(d, A, 'personal_sign', ['0x68656c6c6f', ACCOUNT_0])
    const p = await waitForPending(wallet.h, (x) => x.origin === origin && x.kind === 'personal_sign')
    expect(p.request).toMatchObject({ scope: A, address: ACCOUNT_0, message: 'hello' })
    await approve(wallet.h, p.id)
    const r = await pending
    expect(r).toMatchObject({ scope: A, result: { method: 'personal_sign' } })
    expect((await recoverMessageAddress({ message: 'hello', signature: r.result.result as Hex })).toLowerCase()).toBe(
      ACCOUNT_0,
    )
  })

  test('eth_signTypedData_v4 signs EIP-712 data', async () => {
    const typed = {
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'chainId', type: 'uint256' },
        ],
        Mail: [{ name: 'contents', type: 'string' }],
      },
      primaryType: 'Mail',
      domain: { name: 'Test', chainId: CHAIN_A },
      message: { contents: 'hi' },
    }
    const pending = invoke(d, A, 'eth_signTypedData_v4', [ACCOUNT_0, JSON.stringify(typed)])
    await approve(wallet.h, (await waitForPending(wallet.h, (x) => x.kind === 'eth_signTypedData_v4')).id)
    const sig = (await pending).result.result as Hex
    const { EIP712Domain: _, ...types } = typed.types
    const signer = await recoverTypedDataAddress({
      domain: typed.domain,
      types,
      primaryType: 'Mail',
      message: typed.message,
      signature: sig,
    })
    expect(signer.toLowerCase()).toBe(ACCOUNT_0)
    // A domain for another chain is refused before asking the user.
    const wrong = await failure(
      invoke(d, A, 'eth_signTypedData_v4', [ACCOUNT_0, { ...typed, domain: { name: 'Test', chainId: 1 } }]),
    )
    expect(wrong.code).toBe(-32602)
  })

  test('an account not in the session is 4100; the user rejecting is 4001', async () => {
    expect(await failure(invoke(d, A, 'personal_sign', ['0x00', ACCOUNT_1]))).toEqual(UNAUTHORIZED)
    expect(
      await failure(invoke(d, A, 'eth_sendTransaction', [{ from: ACCOUNT_1, to: ACCOUNT_0, value: '0x1' }])),
    ).toEqual(UNAUTHORIZED)
    const pending = invoke(d, A, 'personal_sign', ['0x00', ACCOUNT_0])
    await reject(wallet.h, (await waitForPending(wallet.h, (x) => x.kind === 'personal_sign')).id)
    expect(await failure(pending)).toEqual({ code: 4001, message: 'User rejected the request.' })
  })

  test('eth_sendTransaction: fills nonce, gas and fees, approved from the CLI, broadcast; the receipt arrives; wallet_notify newHeads', async () => {
    const sub = await invoke(d, A, 'eth_subscribe', ['newHeads'])
    const subId = sub.result.result as string
    const other = dapp(wallet.h.url, 'https://someone-else.example')
    await approvedSession(
      wallet.h,
      other,
      'https://someone-else.example',
      { [A]: { methods: ALL, notifications: ['eth_subscription'] } },
      [ACCOUNT_1],
    )
    const pending = invoke(d, A, 'eth_sendTransaction', [{ from: ACCOUNT_0, to: ACCOUNT_1, value: '0x2386f26fc10000' }])
    const p = await waitForPending(wallet.h, (x) => x.kind === 'eth_sendTransaction')
    expect(p.request.transaction).toMatchObject({
      from: ACCOUNT_0,
      to: ACCOUNT_1,
      chainId: `0x${CHAIN_A.toString(16)}`,
    })
    expect(p.request.transaction.gas).toMatch(/^0x/)
    expect(p.request.transaction.maxFeePerGas).toMatch(/^0x/)
    const out: string[] = []
    expect(
      await runWalletCommand(['approvals', 'approve', p.id], {
        dataDir: wallet.h.dataDir,
        json: true,
        out: (t) => out.push(t),
      }),
    ).toBe(0)
    const hash = (await pending).result.result as string
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/)
    const rcpt = await receipt(d, A, hash)
    expect(rcpt.status).toBe('0x1')
    const note = await d.next(
      (n) => n.method === 'wallet_notify' && n.params.notification.params.subscription === subId,
    )
    expect(note).toMatchObject({
      jsonrpc: '2.0',
      method: 'wallet_notify',
      params: {
        scope: A,
        notification: {
          method: 'eth_subscription',
          params: { subscription: subId, result: { number: rcpt.blockNumber } },
        },
      },
    })
    expect('id' in note).toBe(false)
    // The other origin never sees this origin's notifications.
    expect(other.notifications.filter((n) => n.method === 'wallet_notify')).toEqual([])
    await other.close()
    // A second transaction gets the next nonce.
    const second = invoke(d, A, 'eth_sendTransaction', [{ from: ACCOUNT_0, to: ACCOUNT_1, value: '0x1' }])
    await approve(wallet.h, (await waitForPending(wallet.h, (x) => x.kind === 'eth_sendTransaction')).id)
    const r2 = await receipt(d, A, (await second).result.result)
    expect(r2.status).toBe('0x1')
    expect(await invoke(d, A, 'eth_unsubscribe', [subId])).toMatchObject({ result: { result: true } })
  })

  test('eth_subscribe needs eth_subscription granted for the scope', async () => {
    expect(await failure(invoke(d, B, 'eth_subscribe', ['newHeads']))).toEqual(UNAUTHORIZED)
  })
})

describe('session changes from the wallet side (point 7)', () => {
  test('console edit, account removal (CLI) and console revoke each send sessionChanged; revoke ends subscriptions', async () => {
    const origin = 'https://edited.example'
    const d = dapp(wallet.h.url, origin)
    await approvedSession(
      wallet.h,
      d,
      origin,
      {
        [A]: { methods: ALL, notifications: ['eth_subscription'] },
        [B]: { methods: ['eth_blockNumber'], notifications: [] },
      },
      [ACCOUNT_0, ACCOUNT_1],
    )
    const sub = (await invoke(d, A, 'eth_subscribe', ['newHeads'])).result.result
    expect(
      (await wallet.h.console('/console/api/sessions/edit', { method: 'POST', body: { origin, scopes: [A] } })).status,
    ).toBe(200)
    const edited = await d.next((n) => n.method === 'wallet_sessionChanged' && !(B in n.params.sessionScopes))
    expect(Object.keys(edited.params.sessionScopes)).toEqual([A])

    // A fresh account is added and removed through the CLI while the server runs.
    const outs: string[] = []
    expect(
      await runWalletCommand(['accounts', 'add', '--label', 'temp'], {
        dataDir: wallet.h.dataDir,
        json: true,
        out: (t) => outs.push(t),
      }),
    ).toBe(0)
    const added = JSON.parse(outs.pop()!).address
    // The server picks the CLI's change up within wallet.pollMs.
    for (
      let i = 0;
      i < 50 && !(await wallet.h.console('/console/api/state')).body.accounts.some((a: any) => a.address === added);
      i++
    )
      await new Promise((r) => setTimeout(r, 50))
    await wallet.h.console('/console/api/sessions/edit', {
      method: 'POST',
      body: { origin, accounts: [ACCOUNT_0, added] },
    })
    await d.next(
      (n) => n.method === 'wallet_sessionChanged' && n.params.sessionScopes[A]?.accounts.includes(`${A}:${added}`),
    )
    expect(
      await runWalletCommand(['accounts', 'remove', added], { dataDir: wallet.h.dataDir, json: true, out: () => {} }),
    ).toBe(0)
    const removed = await d.next(
      (n) =>
        n.method === 'wallet_sessionChanged' &&
        n.params.sessionScopes[A] &&
        !n.params.sessionScopes[A].accounts.includes(`${A}:${added}`) &&
        n.params.sessionScopes[A].accounts.length === 1,
    )
    expect(removed.params.sessionScopes[A].accounts).toEqual([`${A}:${ACCOUNT_0}`])

    expect((await wallet.h.console('/console/api/sessions/revoke', { method: 'POST', body: { origin } })).status).toBe(
      200,
    )
    await d.next((n) => n.method === 'wallet_sessionChanged' && Object.keys(n.params.sessionScopes).length === 0)
    const before = d.notifications.filter((n) => n.method === 'wallet_notify').length
    await fetch(wallet.devnets.anvils[0]!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] }),
    })
    await new Promise((r) => setTimeout(r, 300))
    expect(
      d.notifications.filter((n) => n.method === 'wallet_notify' && n.params.notification.params.subscription === sub)
        .length,
    ).toBe(before)
    await d.close()
  })

  test('a session revoked from the CLI reaches the dapp', async () => {
    const origin = 'https://cli-revoked.example'
    const d = dapp(wallet.h.url, origin)
    await approvedSession(wallet.h, d, origin, { [A]: { methods: ['eth_blockNumber'], notifications: [] } })
    expect(
      await runWalletCommand(['sessions', 'revoke', origin], { dataDir: wallet.h.dataDir, json: false, out: () => {} }),
    ).toBe(0)
    await d.next((n) => n.method === 'wallet_sessionChanged' && Object.keys(n.params.sessionScopes).length === 0)
    await d.close()
  })
})

describe('approvals: CLI session approval, console guards (point 3)', () => {
  test('CLI lists a pending session request and approves it with chosen accounts', async () => {
    const origin = 'https://headless.example'
    const d = dapp(wallet.h.url, origin)
    const created = d.client.createSession({
      optionalScopes: { [A]: { methods: ['eth_blockNumber'], notifications: [] } },
    })
    await waitForPending(wallet.h, (x) => x.origin === origin)
    const out: string[] = []
    expect(
      await runWalletCommand(['approvals', 'list', '--json'], {
        dataDir: wallet.h.dataDir,
        json: false,
        out: (t) => out.push(t),
      }),
    ).toBe(0)
    const listed = JSON.parse(out[0]!).find((p: any) => p.origin === origin)
    expect(listed.kind).toBe('session')
    expect(
      await runWalletCommand(['approvals', 'approve', listed.id, '--accounts', ACCOUNT_1], {
        dataDir: wallet.h.dataDir,
        json: false,
        out: () => {},
      }),
    ).toBe(0)
    expect((await created).sessionScopes[A]!.accounts).toEqual([`${A}:${ACCOUNT_1}`])
    await d.close()
  })

  test('the console needs its token and a loopback Host', async () => {
    expect((await wallet.h.console('/console/api/state', { token: 'wrong' })).status).toBe(401)
    expect((await wallet.h.console('/console/api/state', { host: 'evil.example' })).status).toBe(403)
    const page = await fetch(wallet.h.consoleUrl)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('chaingate wallet console')
    expect((await fetch(wallet.h.consoleUrl.replace(/token=.*/, 'token=nope'))).status).toBe(401)
  })

  test('no mnemonic or private key in logs or responses', async () => {
    const text = logLines.join('\n')
    expect(text.length).toBeGreaterThan(0)
    expect(text).not.toContain(ANVIL_TEST_MNEMONIC)
    expect(text).not.toContain('ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80') // account 0's key
    expect(text).toContain('PUBLIC anvil test mnemonic')
  })
})

describe('auto-approve and approval timeout', () => {
  test('autoApprove grants sessions and signs without asking; an unanswered request expires with 4001', async () => {
    const auto = await startWallet(wallet.devnets.anvils, { autoApprove: true })
    const timed = await startWallet(wallet.devnets.anvils, { approvalTimeoutMs: 1000 })
    try {
      const d = dapp(auto.url, 'https://auto.example')
      const s = await d.client.createSession({ optionalScopes: { [B]: { methods: ALL, notifications: [] } } })
      expect(s.sessionScopes[B]!.accounts).toEqual([`${B}:${ACCOUNT_0}`])
      const tx = await invoke(d, B, 'eth_sendTransaction', [{ from: ACCOUNT_0, to: ACCOUNT_1, value: '0x1' }])
      expect((await receipt(d, B, tx.result.result)).status).toBe('0x1')
      await d.close()

      const t = dapp(timed.url, 'https://slow.example')
      const e = await failure(t.client.createSession({ optionalScopes: { [A]: { methods: [], notifications: [] } } }))
      expect(e.code).toBe(4001)
      expect(e.data).toEqual({ reason: 'approval_timeout', timeoutMs: 1000 })
      await t.close()
    } finally {
      await auto.stop()
      await timed.stop()
    }
  })
})
