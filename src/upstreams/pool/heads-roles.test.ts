/**
 * The pool against misbehaving nodes, one test per failure mode: real HTTP servers (the scriptable fake node of
 * the e2e tests) and a real anvil, no mocks in between. Timings are asserted loosely (the machine is shared).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWalletClient, http, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { startAnvil, type RunningAnvil } from '../devnet/anvil.ts'
import { startFakeNode, type FakeNode } from '../../../test/support/fake-node.ts'
import { DEFAULT_UPSTREAM_POLICY } from './pool.ts'
import { call, CHAIN, faultHarness, resultOf, servedBy } from './faults.test-support.ts'

const { nodes, fake, pool } = faultHarness()

describe('upstream faults: a lagging node', () => {
  it('lagging head: the node behind the served tip takes no calls and shows lagging, until it catches up', async () => {
    const [a, b] = [await fake(), await fake()]
    a.setHead(1000)
    b.setHead(900)
    const p = await pool([{ url: a.url }, { url: b.url }], { maxLagBlocks: 5 })
    expect(p.heads.latest()).toBe(1000)
    expect(servedBy(p, b)).toMatchObject({ state: 'lagging', head: 900, lagBlocks: 100 })
    const before = b.requests.length
    for (let i = 0; i < 10; i++) await p.send(call('eth_blockNumber'), { method: 'eth_blockNumber' })
    expect(b.requests.length).toBe(before)
    // The node catches up: back in rotation after its next poll.
    b.setHead(1000)
    await expect.poll(() => servedBy(p, b).state, { timeout: 10_000 }).toBe('healthy')
    for (let i = 0; i < 10; i++) await p.send(call('eth_blockNumber'), { method: 'eth_blockNumber' })
    expect(b.requests.length).toBeGreaterThan(before)
    expect(servedBy(p, b).state).toBe('healthy')
  })

  it('minBlock: a call that needs a block goes only to nodes that have reached it; others still serve calls without one', async () => {
    const [a, b] = [await fake(), await fake()]
    a.setHead(1000)
    b.setHead(900)
    const p = await pool([{ url: a.url }, { url: b.url }], { maxLagBlocks: 500 }) // both in rotation
    const label = (n: FakeNode) => n.url.replace(/\/$/, '')
    const withMin = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        p.send(call('eth_getBalance', [`0x${'1'.repeat(40)}`, '0x3e8'], i), {
          method: 'eth_getBalance',
          minBlock: 1000,
        }),
      ),
    )
    expect(new Set(withMin.map((x) => x.upstream))).toEqual(new Set([label(a)]))
    const without: string[] = []
    for (let i = 0; i < 6; i++)
      without.push((await p.send(call('eth_chainId', [], i), { method: 'eth_chainId' })).upstream)
    expect(new Set(without)).toEqual(new Set([label(a), label(b)]))
  })

  it('missing data: a null block from a node behind is asked again on the node ahead', async () => {
    const [a, b] = [await fake(), await fake()]
    a.setHead(100)
    b.setHead(103) // within maxLagBlocks: both in rotation
    const p = await pool([{ url: a.url }, { url: b.url }], {
      hedge: { ...DEFAULT_UPSTREAM_POLICY.hedge, enabled: false },
    })
    for (let i = 0; i < 4; i++) {
      const answer = await p.send(call('eth_getBlockByNumber', ['0x67', false], i), { method: 'eth_getBlockByNumber' })
      expect(resultOf(answer.body)).toMatchObject({ number: '0x67' })
    }
  })

  it('served tip never goes backwards when the node at the tip goes down', async () => {
    const [a, b] = [await fake(), await fake()]
    a.setHead(50)
    b.setHead(48)
    const p = await pool([{ url: a.url }, { url: b.url }])
    expect(p.heads.latest()).toBe(50)
    await a.kill()
    await new Promise((r) => setTimeout(r, 600))
    expect(p.heads.latest()).toBe(50)
  })
})

describe('upstream faults: reorg', () => {
  it('reorg: a new hash at the served height is announced with reorg=true', async () => {
    const a = await fake()
    a.setHead(20)
    const p = await pool([{ url: a.url }, { url: (await fake()).url }])
    nodes[1]!.setHead(20)
    const heads: { number: number; hash: string; reorg: boolean }[] = []
    p.heads.onHead((h) => heads.push(h))
    // Keep calls flowing so heads are polled.
    const busy = setInterval(
      () => void p.send(call('eth_chainId'), { method: 'eth_chainId' }).catch(() => undefined),
      50,
    )
    try {
      a.setHead(21)
      nodes[1]!.setHead(21)
      await expect.poll(() => heads.some((h) => h.number === 21), { timeout: 5000 }).toBe(true)
      a.reorg(21)
      nodes[1]!.reorg(21)
      await expect
        .poll(() => heads.find((h) => h.reorg), { timeout: 5000 })
        .toMatchObject({ number: 21, hash: a.hashOf(21), reorg: true })
      expect(p.heads.latest()).toBe(21)
      // The finalized head is polled on its own schedule: waited for, not assumed with the latest one.
      await expect.poll(() => p.heads.finalized(), { timeout: 5000 }).toBe(11)
    } finally {
      clearInterval(busy)
    }
  })
})

describe('upstream faults: roles, wrong chain, idle', () => {
  it('fallback role: takes calls only while no primary is healthy', async () => {
    const [primary, fallback] = [await fake(), await fake()]
    const p = await pool([{ url: fallback.url, role: 'fallback' }, { url: primary.url }])
    const before = fallback.requests.length
    for (let i = 0; i < 6; i++) await p.send(call('eth_chainId'), { method: 'eth_chainId' })
    expect(fallback.requests.length).toBe(before)
    await primary.kill()
    for (let i = 0; i < 6; i++)
      expect(resultOf((await p.send(call('eth_chainId'), { method: 'eth_chainId' })).body)).toBe(CHAIN)
    expect(fallback.requests.length).toBeGreaterThanOrEqual(before + 6)
  })

  it('weights: healthy nodes of the same role share calls in proportion to their weight', async () => {
    const [heavy, light] = [await fake(), await fake()]
    const p = await pool([{ url: heavy.url, weight: 3 }, { url: light.url }])
    const before = [heavy.requests.length, light.requests.length]
    for (let i = 0; i < 40; i++) await p.send(call('eth_chainId', [], i), { method: 'eth_chainId' })
    expect([heavy.requests.length - before[0]!, light.requests.length - before[1]!]).toEqual([30, 10])
  })

  it('wrong chain id (exclude): the node never serves, and is listed cordoned', async () => {
    const good = await fake()
    const wrong = await startFakeNode('0x3e7')
    nodes.push(wrong)
    const p = await pool([{ url: wrong.url, onChainIdMismatch: 'exclude' }, { url: good.url }])
    for (let i = 0; i < 4; i++) await p.send(call('eth_chainId'), { method: 'eth_chainId' })
    expect(wrong.requests.map((r) => r.body.method)).toEqual(['eth_chainId'])
    expect(servedBy(p, wrong)).toMatchObject({ state: 'cordoned', cause: 'wrong-chain-id' })
  })

  it('idle gateway: no head polls reach the nodes once calls stop', async () => {
    const a = await fake()
    const p = await pool([{ url: a.url }, { url: (await fake()).url }], { headIdleMs: 300 })
    await p.send(call('eth_chainId'), { method: 'eth_chainId' })
    await new Promise((r) => setTimeout(r, 1000)) // idle from here on
    const polls = a.headPolls.length
    await new Promise((r) => setTimeout(r, 1200))
    expect(a.headPolls.length).toBe(polls)
    // The next call wakes polling up.
    await p.send(call('eth_chainId'), { method: 'eth_chainId' })
    await expect.poll(() => a.headPolls.length, { timeout: 3000 }).toBeGreaterThan(polls)
  })
})

describe('upstream faults: the same transaction twice', () => {
  let anvil: RunningAnvil
  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31341, port: 0, blockTimeSeconds: 0 })
  })
  afterAll(async () => {
    await anvil?.stop()
  })

  it('newHeads over WebSocket: a node with a wsUrl announces each new block at once, without waiting for a poll', async () => {
    const p = await pool([{ url: anvil.url, wsUrl: anvil.wsUrl }], { headPollMs: 60_000 })
    const start = p.heads.latest()!
    const seen: number[] = []
    p.heads.onHead((h) => seen.push(h.number))
    await new Promise((r) => setTimeout(r, 300)) // the subscription is made right after start-up
    await p.send(call('evm_mine'), { method: 'evm_mine' })
    await expect.poll(() => p.heads.latest(), { timeout: 5000 }).toBe(start + 1)
    expect(seen).toEqual([start + 1])
  })

  it('eth_sendRawTransaction sent twice by the client: the second answer is the node\'s "nonce too low"', async () => {
    const p = await pool([{ url: anvil.url }])
    // anvil's first funded account (the well-known test mnemonic).
    const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
    const wallet = createWalletClient({ account, transport: http(anvil.url) })
    const raw = await wallet.signTransaction({
      to: `0x${'4'.repeat(40)}` as `0x${string}`,
      value: parseEther('0.001'),
      nonce: 0,
      gas: 21000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
      chain: {
        id: 31341,
        name: 'x',
        nativeCurrency: { name: 'E', symbol: 'E', decimals: 18 },
        rpcUrls: { default: { http: [anvil.url] } },
      },
    })
    const first = await p.send(call('eth_sendRawTransaction', [raw], 7), { method: 'eth_sendRawTransaction' })
    const hash = resultOf(first.body)
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/)
    // anvil mines it at once: the same bytes again are "nonce too low" to the node, and a second send by the
    // client (not a retry of the gateway's within one call) gets just that.
    const second = await p.send(call('eth_sendRawTransaction', [raw], 8), { method: 'eth_sendRawTransaction' })
    expect(JSON.parse(second.body.toString())).toMatchObject({
      id: 8,
      error: { message: expect.stringMatching(/nonce/i) },
    })
  })
})
