/** wallet_invokeMethod against fake hooks: no server, no database, no chain. */
import { describe, expect, test } from 'vitest'
import { UNAUTHORIZED, err, fakeHooks, session } from './handlers.test-support.ts'
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
})
