/** wallet_getSession against fake hooks: no server, no database, no chain. */
import { describe, expect, test } from 'vitest'
import { fakeHooks, session } from './handlers.test-support.ts'
import { walletGetSession } from './wallet_getSession.ts'

describe('wallet_getSession', () => {
  test('empty without a session; the stored scopes with one', async () => {
    expect(await walletGetSession.implementation({}, fakeHooks())).toEqual({ sessionScopes: {} })
    const withSession = fakeHooks({ getSession: async () => session })
    expect(await walletGetSession.implementation({}, withSession)).toEqual({ sessionScopes: session.sessionScopes })
  })
})
