/**
 * The same signed transaction sent twice by a client: the first send answers its hash, the second what the node
 * says ("nonce too low" / "already known"), as anvil and geth answer it directly (docs/upstreams.md). Only the
 * gateway's own retries and hedges within one call read such an answer as the hash.
 */
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

const TEST_PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
let s: TestServer

beforeAll(async () => {
  s = await startTestServer({ networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }] })
})
afterAll(async () => s?.stop())

describe('eth_sendRawTransaction sent twice', () => {
  it("the second send gets the node's answer, not the hash again", async () => {
    const account = privateKeyToAccount(TEST_PK)
    const raw = await account.signTransaction({
      chainId: 31337,
      type: 'eip1559',
      to: '0x0000000000000000000000000000000000000001',
      value: 1n,
      nonce: 0,
      gas: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    })
    const first = (await s.rpc(call('eth_sendRawTransaction', [raw], 1))).json()
    expect(first.result).toMatch(/^0x[0-9a-f]{64}$/)
    const second = (await s.rpc(call('eth_sendRawTransaction', [raw], 2))).json()
    expect(second.result).toBeUndefined()
    expect(second.error.message).toMatch(/nonce too low|already known|already imported/i)
  })
})
