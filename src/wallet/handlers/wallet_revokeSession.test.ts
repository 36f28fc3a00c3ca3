/** wallet_revokeSession against fake hooks: no server, no database, no chain. */
import { describe, expect, test } from 'vitest'
import { err, fakeHooks } from './handlers.test-support.ts'
import { walletRevokeSession } from './wallet_revokeSession.ts'

describe('wallet_revokeSession', () => {
  test('partial or full, always true; scopes that are not a list: -32602', async () => {
    const hooks = fakeHooks()
    expect(await walletRevokeSession.implementation({ scopes: ['eip155:1'] }, hooks)).toBe(true)
    expect(await walletRevokeSession.implementation(undefined, hooks)).toBe(true)
    expect(await walletRevokeSession.implementation({ scopes: [] }, hooks)).toBe(true)
    expect(hooks.calls).toEqual(['revoke:eip155:1', 'revoke:all', 'revoke:all'])
    expect((await err(walletRevokeSession.implementation({ scopes: 'eip155:1' }, hooks))).code).toBe(-32602)
  })
})
