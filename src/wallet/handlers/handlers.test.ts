/** The wallet_* handlers and the signing methods against fake hooks: no server, no database, no chain. */
import { describe, expect, test } from 'vitest'
import { mnemonicToAccount } from 'viem/accounts'
import { ANVIL_TEST_MNEMONIC } from '../keystore.ts'
import { personalSign } from '../methods/personal-sign.ts'
import type { StoredSession } from '../scopes.ts'
import { WALLET_HANDLERS, selectHooks, type WalletHooks } from './index.ts'
import { walletCreateSession } from './wallet-create-session.ts'
import { walletGetSession } from './wallet-get-session.ts'
import { walletInvokeMethod } from './wallet-invoke-method.ts'
import { walletRevokeSession } from './wallet-revoke-session.ts'

const ADDR = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const UNAUTHORIZED = { code: 4100, message: 'The requested account and/or method has not been authorized by the user.' }
const session: StoredSession = {
  sessionScopes: { 'eip155:1': { methods: ['eth_chainId'], notifications: [], accounts: [`eip155:1:${ADDR}`] } },
  sessionProperties: {},
}

function fakeHooks(over: Partial<WalletHooks> = {}): WalletHooks & { calls: string[] } {
  const calls: string[] = []
  return {
    calls,
    getSession: async () => undefined,
    grantSession: async () => void calls.push('grant'),
    revokeSession: async (scopes) => void calls.push(`revoke:${scopes?.join(',') ?? 'all'}`),
    getServedChainIds: () => new Set([1]),
    getWalletAddresses: () => [ADDR],
    now: () => 0,
    requestSessionApproval: async () => ({}),
    invokeInScope: async (_s, _sc, method) => (calls.push(`invoke:${method}`), '0x1'),
    ...over,
  }
}
const err = async (p: Promise<unknown>) =>
  p.then(
    () => expect.unreachable(),
    (e) => ({ code: e.code, message: e.message }),
  )

describe('handlers declare their hooks', () => {
  test('each of the four methods has one handler; selectHooks passes only the declared hooks', () => {
    expect(WALLET_HANDLERS.map((h) => h.methodName)).toEqual([
      'wallet_createSession',
      'wallet_getSession',
      'wallet_invokeMethod',
      'wallet_revokeSession',
    ])
    expect(Object.keys(selectHooks(fakeHooks(), walletGetSession.hookNames))).toEqual(['getSession'])
  })
})

describe('wallet_createSession', () => {
  test('asks for approval, grants the preselected accounts, and stores the session', async () => {
    const hooks = fakeHooks()
    const r = await walletCreateSession.implementation(
      {
        optionalScopes: { 'eip155:1': { methods: ['eth_chainId'], notifications: [], accounts: [`eip155:1:${ADDR}`] } },
      },
      selectHooks(hooks, walletCreateSession.hookNames),
    )
    expect(r).toEqual({ sessionScopes: session.sessionScopes, sessionProperties: {} })
    expect(hooks.calls).toEqual(['grant'])
  })
  test('a decision that keeps no chain is a rejection (4001); nothing is stored', async () => {
    const hooks = fakeHooks({ requestSessionApproval: async () => ({ scopes: [] }) })
    const e = await err(
      walletCreateSession.implementation({ optionalScopes: { 'eip155:1': { methods: [], notifications: [] } } }, hooks),
    )
    expect(e).toEqual({ code: 4001, message: 'User rejected the request.' })
    expect(hooks.calls).toEqual([])
  })
})

describe('wallet_invokeMethod', () => {
  const withSession = () => fakeHooks({ getSession: async () => session })
  test('runs a granted method and wraps the result in the envelope', async () => {
    const hooks = withSession()
    expect(
      await walletInvokeMethod.implementation({ scope: 'eip155:1', request: { method: 'eth_chainId' } }, hooks),
    ).toEqual({
      scope: 'eip155:1',
      result: { method: 'eth_chainId', result: '0x1' },
    })
  })
  test('4100 in every unauthorized shape; -32603 for a bare namespace; nothing runs', async () => {
    const hooks = withSession()
    for (const params of [
      { scope: 'eip155:1', request: {} },
      { scope: 'eip155:1', request: { method: 'eth_blockNumber' } },
      { scope: 'eip155:5', request: { method: 'eth_chainId' } },
      { scope: 'wallet', request: { method: 'eth_chainId' } },
    ])
      expect(await err(walletInvokeMethod.implementation(params, hooks))).toEqual(UNAUTHORIZED)
    expect(
      await err(
        walletInvokeMethod.implementation({ scope: 'eip155:1', request: { method: 'eth_chainId' } }, fakeHooks()),
      ),
    ).toEqual(UNAUTHORIZED)
    expect(
      await err(walletInvokeMethod.implementation({ scope: 'eip155', request: { method: 'eth_chainId' } }, hooks)),
    ).toEqual({
      code: -32603,
      message: 'scopeString is not a valid InternalScopeString',
    })
    expect(hooks.calls).toEqual([])
  })
})

describe('wallet_getSession and wallet_revokeSession', () => {
  test('getSession: empty without a session; revokeSession: partial or full, always true', async () => {
    expect(await walletGetSession.implementation({}, fakeHooks())).toEqual({ sessionScopes: {} })
    const hooks = fakeHooks()
    expect(await walletRevokeSession.implementation({ scopes: ['eip155:1'] }, hooks)).toBe(true)
    expect(await walletRevokeSession.implementation(undefined, hooks)).toBe(true)
    expect(await walletRevokeSession.implementation({ scopes: [] }, hooks)).toBe(true)
    expect(hooks.calls).toEqual(['revoke:eip155:1', 'revoke:all', 'revoke:all'])
    expect((await err(walletRevokeSession.implementation({ scopes: 'eip155:1' }, hooks))).code).toBe(-32602)
  })
})

describe('signing re-checks the session after the approval (issue 8 item 7)', () => {
  const signer = mnemonicToAccount(ANVIL_TEST_MNEMONIC)
  const ctx = (stillAuthorized: boolean) => ({
    scope: 'eip155:1',
    sessionScope: { methods: ['personal_sign'], notifications: [], accounts: [`eip155:1:${ADDR}`] },
    signerFor: () => signer,
    approve: async () => ({}),
    assertStillAuthorized: async () => {
      if (!stillAuthorized) throw Object.assign(new Error(UNAUTHORIZED.message), { code: 4100 })
    },
  })
  test('approved and still authorized: signs', async () => {
    expect(await personalSign(ctx(true), ['0x6869', ADDR])).toMatch(/^0x[0-9a-f]{130}$/)
  })
  test('approved, but the session changed meanwhile: 4100, no signature', async () => {
    expect((await err(personalSign(ctx(false), ['0x6869', ADDR]))).code).toBe(4100)
  })
})
