/** wallet_createSession against fake hooks: no server, no database, no chain. */
import { describe, expect, test } from 'vitest'
import { selectHooks } from './index.ts'
import { ADDR, err, fakeHooks, session } from './handlers.test-support.ts'
import { walletCreateSession } from './wallet_createSession.ts'

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
