/** wallet_invokeMethod against fake hooks: no server, no database, no chain. */
import { describe, expect, test } from 'vitest'
import { SOLANA_SCOPE, SOL_ADDR, UNAUTHORIZED, err, fakeHooks, session } from './handlers.test-support.ts'
import { walletInvokeMethod } from './wallet_invokeMethod.ts'

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

  test('a Solana method on an eip155 scope and an EVM method on a Solana scope: 4100, nothing runs', async () => {
    const both = {
      ...session,
      sessionScopes: {
        ...session.sessionScopes,
        [SOLANA_SCOPE]: { methods: ['signMessage'], notifications: [], accounts: [`${SOLANA_SCOPE}:${SOL_ADDR}`] },
      },
    }
    const hooks = fakeHooks({ getSession: async () => both })
    for (const [scope, method] of [
      ['eip155:1', 'signMessage'],
      [SOLANA_SCOPE, 'eth_chainId'],
      ['solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z', 'signMessage'],
    ])
      expect(await err(walletInvokeMethod.implementation({ scope, request: { method, params: {} } }, hooks))).toEqual(
        UNAUTHORIZED,
      )
    expect(hooks.calls).toEqual([])
    await walletInvokeMethod.implementation(
      { scope: SOLANA_SCOPE, request: { method: 'signMessage', params: {} } },
      hooks,
    )
    expect(hooks.calls).toEqual(['invoke:signMessage'])
  })
})
