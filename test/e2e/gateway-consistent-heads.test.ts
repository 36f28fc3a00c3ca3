/**
 * Consistent heads over two upstreams (docs/caching.md, "Consistent heads"): eth_blockNumber never goes backwards
 * for a key, also when the node at the tip goes away and a node behind answers; a block above the served tip is
 * null whichever node would have been asked. Fake nodes stand where providers would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeNode, type FakeNode } from '../support/fake-node.ts'
import { waitFor } from './helpers/process.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

let ahead: FakeNode
let behind: FakeNode
let s: TestServer
const remote = { network: 'remote' }

const until = (check: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000) =>
  waitFor(check, timeoutMs, what, 100)
const blockNumber = async (key?: string) =>
  Number.parseInt((await s.rpc(call('eth_blockNumber'), { ...remote, ...(key ? { key } : {}) })).json().result, 16)

beforeAll(async () => {
  ahead = await startFakeNode('0x7a6d')
  behind = await startFakeNode('0x7a6d')
  ahead.setHead(200)
  behind.setHead(190)
  s = await startTestServer({
    networks: [
      {
        name: 'remote',
        chainId: 31341,
        upstreams: [{ url: ahead.url }, { url: behind.url }],
        upstreamPolicy: { headPollMs: 1000, maxLagBlocks: 100, hedge: { enabled: false } },
      },
    ],
  })
  await until(
    async () => (await blockNumber()) === 200 && s.parts.pools.get('remote')!.heads.latest() === 200,
    'the served tip 200',
  )
}, 40_000)
afterAll(async () => {
  await s?.stop()
  await ahead?.close()
  await behind?.close()
})

describe('consistent heads', () => {
  it('eth_blockNumber is the served tip on every call, though one node is 10 blocks behind', async () => {
    const seen = new Set<number>()
    for (let i = 0; i < 20; i++) seen.add(await blockNumber())
    expect([...seen]).toEqual([200])
  })

  it('a block above the served tip is null without asking any node; one at the tip is the block', async () => {
    const before = ahead.requests.length + behind.requests.length
    for (let i = 0; i < 5; i++)
      expect((await s.rpc(call('eth_getBlockByNumber', ['0xc9', false], i), remote)).json()).toEqual({
        jsonrpc: '2.0',
        id: i,
        result: null,
      })
    expect(ahead.requests.length + behind.requests.length).toBe(before)
    expect((await s.rpc(call('eth_getBlockByNumber', ['0xc8', false]), remote)).json().result.hash).toBe(
      ahead.hashOf(200),
    )
  })

  it('when the node at the tip goes away, eth_blockNumber does not go back to the node behind', async () => {
    const { key } = await s.newKey('team')
    expect(await blockNumber(key.key)).toBe(200)
    await ahead.kill()
    try {
      const numbers: number[] = []
      for (let i = 0; i < 10; i++) {
        // A write in between: the gateway's one-head eth_blockNumber answer is dropped, so a node is asked each time.
        await s.rpc(call('eth_sendRawTransaction', ['0x02']), { ...remote, key: key.key })
        numbers.push(await blockNumber(key.key))
      }
      expect(behind.requests.some((r) => r.body?.method === 'eth_blockNumber')).toBe(true)
      expect(Math.min(...numbers)).toBeGreaterThanOrEqual(200)
    } finally {
      await ahead.revive()
    }
  })
})

describe('one embedded devnet: what a client just did is never hidden', () => {
  let dev: TestServer
  beforeAll(async () => {
    dev = await startTestServer({
      networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 }, upstreamPolicy: { headPollMs: 1000 } }],
    })
  }, 40_000)
  afterAll(async () => dev?.stop())
  const num = async () => Number.parseInt((await dev.rpc(call('eth_blockNumber'))).json().result, 16)

  it('mining then asking at once: eth_blockNumber and the new block are there before the head is announced', async () => {
    await dev.rpc(call('anvil_mine', ['0x2']))
    // The one-head answer is warm: the gateway answers eth_blockNumber without the node until something changes.
    await until(async () => (await num()) === dev.parts.pools.get('devnet-a')!.heads.latest(), 'the announced head')
    const before = await num()
    for (let i = 0; i < 3; i++) {
      await dev.rpc(call('anvil_mine', ['0x3']))
      const n = await num()
      expect(n).toBe(before + 3 * (i + 1))
      expect((await dev.rpc(call('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]))).json().result.number).toBe(
        `0x${n.toString(16)}`,
      )
    }
  })

  it('evm_revert takes eth_blockNumber back: a rewound devnet is not held at the old height', async () => {
    const snapshot = (await dev.rpc(call('evm_snapshot'))).json().result
    const at = await num()
    await dev.rpc(call('anvil_mine', ['0x5']))
    expect(await num()).toBe(at + 5)
    const block = (await dev.rpc(call('eth_getBlockByNumber', [`0x${(at + 5).toString(16)}`, false]))).json().result
    expect(block).not.toBeNull()
    expect((await dev.rpc(call('evm_revert', [snapshot]))).json().result).toBe(true)
    expect(await num()).toBe(at)
    // The block mined before the revert is gone, and not served from the cache either.
    expect(
      (await dev.rpc(call('eth_getBlockByNumber', [`0x${(at + 5).toString(16)}`, false]))).json().result,
    ).toBeNull()
  })
})
