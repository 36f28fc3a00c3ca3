/** The handler table against fake hooks: no server, no database, no chain. */
import { describe, expect, test } from 'vitest'
import { WALLET_HANDLERS, selectHooks } from './index.ts'
import { fakeHooks } from './handlers.test-support.ts'
import { walletGetSession } from './wallet_getSession.ts'

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
