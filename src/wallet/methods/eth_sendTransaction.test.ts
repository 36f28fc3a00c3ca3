/** eth_sendTransaction against a fake method context and a fake chain: no server, no database, no node. */
import { parseTransaction, recoverTransactionAddress, type Hex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import { ADDR, err } from '../handlers/handlers.test-support.ts'
import { ANVIL_TEST_MNEMONIC } from '../keystore.ts'
import { sendTransaction } from './eth_sendTransaction.ts'

const signer = mnemonicToAccount(ANVIL_TEST_MNEMONIC)
const TO = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'

/** A chain with a base fee of 1 gwei and 3 pending transactions of ADDR; records what it was asked. */
function fakeContext(opts: { stillAuthorized?: boolean; sendFails?: boolean } = {}) {
  const calls: string[] = []
  const sent: Hex[] = []
  const approvals: any[] = []
  const answers: Record<string, unknown> = {
    eth_estimateGas: '0x5208',
    eth_getBlockByNumber: { baseFeePerGas: '0x3b9aca00' },
    eth_maxPriorityFeePerGas: '0x3b9aca00',
    eth_getTransactionCount: '0x3',
    eth_call: '0x',
  }
  const ctx = {
    scope: 'eip155:31337',
    chainId: 31337 as number | undefined,
    sessionScope: { methods: ['eth_sendTransaction'], notifications: [], accounts: [`eip155:31337:${ADDR}`] },
    signerFor: (a: string) => (a.toLowerCase() === ADDR ? signer : undefined),
    chainAccess: {
      async request(_chainId: number, method: string, params: unknown[]) {
        calls.push(method)
        if (method === 'eth_sendRawTransaction') {
          if (opts.sendFails) throw Object.assign(new Error('nonce too low'), { code: -32000 })
          sent.push(params[0] as Hex)
          return `0x${'ab'.repeat(32)}`
        }
        return answers[method]
      },
    } as any,
    approve: async (_kind: string, request: unknown) => void approvals.push(request),
    assertStillAuthorized: async () => {
      if (opts.stillAuthorized === false) throw Object.assign(new Error('unauthorized'), { code: 4100 })
    },
    withNonceLock: <T>(_key: string, fn: () => Promise<T>) => fn(),
    nonces: new Map<string, bigint>(),
  }
  return { ctx, calls, sent, approvals }
}

describe('eth_sendTransaction', () => {
  test('fills gas and EIP-1559 fees, shows them for approval, signs with the next nonce and broadcasts', async () => {
    const f = fakeContext()
    const hash = await sendTransaction(f.ctx, [{ from: ADDR, to: TO, value: '0x2386f26fc10000' }])
    expect(hash).toBe(`0x${'ab'.repeat(32)}`)
    expect(f.approvals[0].transaction).toEqual({
      from: ADDR,
      to: TO,
      value: '0x2386f26fc10000',
      gas: '0x5208',
      maxFeePerGas: '0xb2d05e00', // 2 × base fee + tip
      maxPriorityFeePerGas: '0x3b9aca00',
      chainId: '0x7a69',
    })
    expect(f.approvals[0].context).toMatchObject({ baseFeePerGas: '0x3b9aca00', simulation: { ok: true } })
    const tx = parseTransaction(f.sent[0]!)
    expect(tx).toMatchObject({ type: 'eip1559', chainId: 31337, nonce: 3, to: TO, value: 10n ** 16n, gas: 21000n })
    expect((await recoverTransactionAddress({ serializedTransaction: f.sent[0]! as never })).toLowerCase()).toBe(ADDR)
    // The next send from the same account takes the next nonce even before the node counts the first.
    await sendTransaction(f.ctx, [{ from: ADDR, to: TO }])
    expect(parseTransaction(f.sent[1]!).nonce).toBe(4)
  })

  test('bad fields, a chain id of another chain, or an account not granted: refused before any approval', async () => {
    const f = fakeContext()
    expect((await err(sendTransaction(f.ctx, [{ from: ADDR, to: '0x1234' }]))).code).toBe(-32602)
    expect((await err(sendTransaction(f.ctx, [{ from: ADDR, value: '12' }]))).code).toBe(-32602)
    expect((await err(sendTransaction(f.ctx, [{ from: ADDR, chainId: '0x1' }]))).code).toBe(-32602)
    expect((await err(sendTransaction(f.ctx, [{ to: TO }]))).code).toBe(-32602)
    expect((await err(sendTransaction(f.ctx, [{ from: TO, to: TO }]))).code).toBe(4100)
    expect(f.approvals).toEqual([])
    expect(f.sent).toEqual([])
  })

  test('session changed while the user decided: 4100, nothing signed; a refused send resets the nonce', async () => {
    const changed = fakeContext({ stillAuthorized: false })
    expect((await err(sendTransaction(changed.ctx, [{ from: ADDR, to: TO }]))).code).toBe(4100)
    expect(changed.calls).not.toContain('eth_sendRawTransaction')
    const refused = fakeContext({ sendFails: true })
    refused.ctx.nonces.set(`31337:${ADDR}`, 9n)
    expect((await err(sendTransaction(refused.ctx, [{ from: ADDR, to: TO }]))).message).toBe('nonce too low')
    expect(refused.ctx.nonces.has(`31337:${ADDR}`)).toBe(false)
  })
})
