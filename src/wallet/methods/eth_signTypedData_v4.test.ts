/** eth_signTypedData_v4 against a fake method context: no server, no database, no chain. */
import { recoverTypedDataAddress } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import { ADDR, err } from '../handlers/handlers.test-support.ts'
import { ANVIL_TEST_MNEMONIC } from '../keystore.ts'
import { signTypedDataV4 } from './eth_signTypedData_v4.ts'

const signer = mnemonicToAccount(ANVIL_TEST_MNEMONIC)
const mail = (chainId: number | undefined) => ({
  types: {
    EIP712Domain: [{ name: 'name', type: 'string' }],
    Mail: [
      { name: 'to', type: 'address' },
      { name: 'contents', type: 'string' },
    ],
  },
  primaryType: 'Mail',
  domain: { name: 'Ether Mail', ...(chainId === undefined ? {} : { chainId }) },
  message: { to: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', contents: 'Hello' },
})

function fakeContext(stillAuthorized = true) {
  const approvals: unknown[] = []
  return {
    approvals,
    scope: 'eip155:31337',
    chainId: 31337,
    sessionScope: { methods: ['eth_signTypedData_v4'], notifications: [], accounts: [`eip155:31337:${ADDR}`] },
    signerFor: (a: string) => (a.toLowerCase() === ADDR ? signer : undefined),
    approve: async (_kind: string, request: unknown) => void approvals.push(request),
    assertStillAuthorized: async () => {
      if (!stillAuthorized) throw Object.assign(new Error('unauthorized'), { code: 4100 })
    },
  }
}

describe('eth_signTypedData_v4', () => {
  test('asks the user with the typed data, then signs what the signer recovers to (object or JSON text)', async () => {
    const ctx = fakeContext()
    const data = mail(31337)
    const signature = await signTypedDataV4(ctx, [ADDR, JSON.stringify(data)])
    const { EIP712Domain: _d, ...types } = data.types
    const recovered = await recoverTypedDataAddress({ ...data, types, signature } as never)
    expect(recovered.toLowerCase()).toBe(ADDR)
    expect(ctx.approvals).toEqual([{ scope: 'eip155:31337', address: ADDR, typedData: data }])
    expect(await signTypedDataV4(fakeContext(), [ADDR, data])).toBe(signature)
  })

  test("a domain chainId other than the scope's, or malformed data: -32602 before any approval", async () => {
    const ctx = fakeContext()
    expect((await err(signTypedDataV4(ctx, [ADDR, mail(1)]))).code).toBe(-32602)
    expect((await err(signTypedDataV4(ctx, [ADDR, '{not json']))).code).toBe(-32602)
    expect((await err(signTypedDataV4(ctx, [ADDR, { primaryType: 'Mail' }]))).code).toBe(-32602)
    expect((await err(signTypedDataV4(ctx, [ADDR]))).code).toBe(-32602)
    expect(ctx.approvals).toEqual([])
  })

  test('an account the session does not grant: 4100; a session changed while the user decided: 4100', async () => {
    const other = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
    expect((await err(signTypedDataV4(fakeContext(), [other, mail(31337)]))).code).toBe(4100)
    const changed = fakeContext(false)
    expect((await err(signTypedDataV4(changed, [ADDR, mail(31337)]))).code).toBe(4100)
    expect(changed.approvals.length).toBe(1)
  })
})
