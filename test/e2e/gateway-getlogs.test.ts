/**
 * eth_getLogs caps as Infura has them, against real anvil chains: a contract that emits 5 logs per call is called in
 * 5 transactions (one block each), then the gateway is asked for those logs with low caps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { createWalletClient, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { startTestServer, call, type TestServer } from './helpers/server.ts'

const TEST_PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
/** Runtime code: LOG0 (empty data) five times, then STOP. */
const EMITTER_CODE = `0x${'60006000a0'.repeat(5)}00`
const EMITTER = '0x00000000000000000000000000000000000e4177'
const TXS = 5

let s: TestServer
/** Per network: the blocks holding the emitter's transactions, in order. */
const blocks: Record<string, number[]> = {}

async function emitLogs(network: string, chainId: number): Promise<void> {
  expect((await s.rpc(call('anvil_setCode', [EMITTER, EMITTER_CODE]), { network })).json().error).toBeUndefined()
  expect((await s.rpc(call('eth_getCode', [EMITTER, 'latest']), { network })).json().result).toBe(EMITTER_CODE)
  const wallet = createWalletClient({ account: privateKeyToAccount(TEST_PK), transport: http(s.endpoint(network)) })
  const chain = {
    id: chainId,
    name: network,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [] } },
  }
  blocks[network] = []
  for (let i = 0; i < TXS; i++) {
    const hash = await wallet.sendTransaction({ to: EMITTER, chain, gas: 100_000n })
    // anvil mines just after answering the send: the receipt may take a moment.
    let receipt = null
    for (let tries = 0; receipt === null && tries < 100; tries++) {
      if (tries > 0) await new Promise((r) => setTimeout(r, 50))
      receipt = (await s.rpc(call('eth_getTransactionReceipt', [hash]), { network })).json().result
    }
    expect(receipt.logs).toHaveLength(5)
    blocks[network]!.push(Number.parseInt(receipt.blockNumber, 16))
  }
}

const hex = (n: number) => `0x${n.toString(16)}`

beforeAll(async () => {
  s = await startTestServer({
    networks: [
      { name: 'devnet-a', chainId: 31337, embedded: { port: 0 }, getLogs: { maxResults: 12, maxBlockRange: 100 } },
      { name: 'devnet-b', chainId: 31338, embedded: { port: 0 }, getLogs: { upstreamMaxBlockRange: 2, maxSplits: 4 } },
    ],
  })
  await emitLogs('devnet-a', 31337)
  await emitLogs('devnet-b', 31338)
}, 60_000)
afterAll(async () => s?.stop())

describe('eth_getLogs caps', () => {
  it('a block range wider than maxBlockRange answers Infura\'s -32602 "range N exceeds limit", free, without reaching the node', async () => {
    const r = await s.rpc(call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x100' }], 7))
    expect(r.status).toBe(200)
    expect(r.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32602, message: 'range 257 exceeds limit of 100' },
    })
    expect(r.credits).toBe(0)
  })

  it("more logs than maxResults answers Infura's -32005 with the block range that fits in data", async () => {
    const [b1, b2, b3] = blocks['devnet-a']!
    const to = blocks['devnet-a']!.at(-1)!
    const r = await s.rpc(call('eth_getLogs', [{ fromBlock: hex(b1!), toBlock: hex(to), address: EMITTER }], 'q'))
    // 25 logs, 5 per block: the 13th is in the 3rd block, so the range that fits ends at the block before it.
    expect(b3! - 1).toBeGreaterThanOrEqual(b2!)
    expect(r.json()).toEqual({
      jsonrpc: '2.0',
      id: 'q',
      error: {
        code: -32005,
        message: `query returned more than 12 results. Try with this block range [${hex(b1!)}, ${hex(b3! - 1)}].`,
        data: { from: hex(b1!), limit: 12, to: hex(b3! - 1) },
      },
    })
    expect(r.credits).toBe(0)
    // The suggested range is accepted.
    const narrower = await s.rpc(
      call('eth_getLogs', [{ fromBlock: hex(b1!), toBlock: hex(b3! - 1), address: EMITTER }]),
    )
    expect(narrower.json().result).toHaveLength(10)
    expect(narrower.credits).toBeGreaterThan(0)
  })

  it('at or under the caps, logs come back as the node sends them, tags included', async () => {
    const [b1] = blocks['devnet-a']!
    const r = await s.rpc(call('eth_getLogs', [{ fromBlock: hex(b1! + 3), toBlock: 'latest', address: EMITTER }]))
    expect(r.json().result).toHaveLength(10)
  })

  it("a range wider than the nodes' own limit is split into sub-requests and merged in order, equal to the node's own answer", async () => {
    const bs = blocks['devnet-b']!
    const filter = { fromBlock: hex(bs[0]!), toBlock: hex(bs.at(-1)!), address: EMITTER }
    expect(bs.at(-1)! - bs[0]! + 1).toBeGreaterThan(2) // wider than upstreamMaxBlockRange
    const viaGateway = (await s.rpc(call('eth_getLogs', [filter], 3), { network: 'devnet-b' })).json()
    const node = s.app.upstreamUrls.get('devnet-b')!.url
    const direct = (await (
      await request(node, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(call('eth_getLogs', [filter], 3)),
      })
    ).body.json()) as { result: unknown[] }
    expect(direct.result).toHaveLength(25)
    expect(viaGateway).toEqual({ jsonrpc: '2.0', id: 3, result: direct.result })
  })

  it('a range needing more sub-requests than maxSplits answers the range error with the widest range splitting allows', async () => {
    const r = await s.rpc(call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x9' }]), { network: 'devnet-b' })
    expect(r.json().error).toEqual({ code: -32602, message: 'range 10 exceeds limit of 8' })
  })

  it('the caps hold inside a batch: the refused calls get the errors, the others their answers', async () => {
    const [b1, , b3] = blocks['devnet-a']!
    const to = blocks['devnet-a']!.at(-1)!
    const r = await s.rpc([
      call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x100' }], 1),
      call('eth_chainId', [], 2),
      call('eth_getLogs', [{ fromBlock: hex(b1!), toBlock: hex(to), address: EMITTER }], 3),
      call('eth_getLogs', [{ fromBlock: hex(b1!), toBlock: hex(b1!), address: EMITTER }], 4),
    ])
    const byId = new Map((r.json() as { id: number }[]).map((a) => [a.id, a]))
    expect(byId.get(1)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'range 257 exceeds limit of 100' },
    })
    expect(byId.get(2)).toEqual({ jsonrpc: '2.0', id: 2, result: '0x7a69' })
    expect(byId.get(3)).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: -32005,
        message: `query returned more than 12 results. Try with this block range [${hex(b1!)}, ${hex(b3! - 1)}].`,
        data: { from: hex(b1!), limit: 12, to: hex(b3! - 1) },
      },
    })
    expect((byId.get(4) as unknown as { result: unknown[] }).result).toHaveLength(5)
  })

  it('a blockHash filter has no range and is passed on', async () => {
    const bs = blocks['devnet-b']!
    const block = (await s.rpc(call('eth_getBlockByNumber', [hex(bs[0]!), false]), { network: 'devnet-b' })).json()
      .result
    const r = await s.rpc(call('eth_getLogs', [{ blockHash: block.hash }]), { network: 'devnet-b' })
    expect(r.json().result).toHaveLength(5)
  })
})
