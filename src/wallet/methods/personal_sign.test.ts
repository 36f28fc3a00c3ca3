/** personal_sign against a fake method context: no server, no database, no chain. */
import { mnemonicToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import { ADDR, UNAUTHORIZED, err } from '../handlers/handlers.test-support.ts'
import { ANVIL_TEST_MNEMONIC } from '../keystore.ts'
import { personalSign } from './personal_sign.ts'

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
