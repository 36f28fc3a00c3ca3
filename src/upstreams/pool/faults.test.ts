/**
 * The pool against misbehaving nodes, one test per failure mode: real HTTP servers (the scriptable fake node of
 * the e2e tests) and a real anvil, no mocks in between. Timings are asserted loosely (the machine is shared).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createWalletClient, http, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { startAnvil, type RunningAnvil } from '../devnet/anvil.ts'
import { startFakeNode, type FakeNode } from '../../../test/e2e/helpers/fake-node.ts'
import {
  createUpstreamPool,
  DEFAULT_UPSTREAM_POLICY,
  type UpstreamEndpoint,
  type UpstreamPolicy,
  type UpstreamPool,
} from './pool.ts'

const CHAIN = '0x7a6d'
const call = (method: string, params: unknown[] = [], id = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params })
const resultOf = (body: Buffer) => JSON.parse(body.toString()).result

let nodes: FakeNode[] = []
let pools: UpstreamPool[] = []
const fake = async () => {
  const n = await startFakeNode(CHAIN)
  nodes.push(n)
  return n
}
const pool = async (endpoints: UpstreamEndpoint[], policy: Partial<UpstreamPolicy> = {}, timeoutMs = 5000) => {
  const p = createUpstreamPool('net', endpoints, {
    timeoutMs,
    chainId: 31341,
    policy: { ...DEFAULT_UPSTREAM_POLICY, headPollMs: 200, ...policy },
  })
  pools.push(p)
  await p.verifyChainId()
  return p
}
const servedBy = (p: UpstreamPool, n: FakeNode) => p.status().find((s) => s.upstream === n.url.replace(/\/$/, ''))!
afterEach(async () => {
  await Promise.all(pools.map((p) => p.close()))
  await Promise.all(nodes.map((n) => n.close()))
  pools = []
  nodes = []
})

describe('upstream faults: a node that refuses connections', () => {
  it('refused connection: reads fail over to the other node, none fails, and the dead node goes down', async () => {
    const [a, b] = [await fake(), await fake()]
    const p = await pool([{ url: a.url }, { url: b.url }])
    await a.kill()
    for (let i = 0; i < 20; i++)
      expect(resultOf((await p.send(call('eth_blockNumber'), { method: 'eth_blockNumber' })).body)).toBe('0x1')
    expect(servedBy(p, a).state).toBe('down')
    expect(servedBy(p, b).state).toBe('healthy')
  })

  it('refused connection, node back: it takes calls again once its cooldown is over', async () => {
    const [a, b] = [await fake(), await fake()]
    const p = await pool([{ url: a.url }, { url: b.url }], {
      breaker: { failureThreshold: 100, openMs: 100, maxOpenMs: 100 },
    })
    await a.kill()
    await p.send(call('eth_chainId'), { method: 'eth_chainId' })
    await p.send(call('eth_chainId'), { method: 'eth_chainId' })
    await a.revive()
    const before = a.requests.length
    const revivedAt = Date.now()
    // Calls keep coming; the node gets one again once its 2 s cooldown is over (and its score lets it back).
    while (a.requests.length === before && Date.now() - revivedAt < 10_000) {
      await p.send(call('eth_chainId'), { method: 'eth_chainId' })
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(a.requests.length - before).toBeGreaterThan(0)
  })
})

describe('upstream faults: a node that resets connections', () => {
  it('connection reset: the read is answered by the other node, with 2 attempts', async () => {
    const [a, b] = [await fake(), await fake()]
    const p = await pool([{ url: a.url }, { url: b.url }])
    a.fault({ kind: 'reset' })
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => p.send(call('eth_blockNumber', [], i), { method: 'eth_blockNumber' })),
    )
    expect(answers.every((x) => resultOf(x.body) === '0x1')).toBe(true)
    expect(Math.max(...answers.map((x) => x.attempts))).toBe(2)
    expect(answers.every((x) => x.upstream === b.url.replace(/\/$/, ''))).toBe(true)
  })
})

describe('upstream faults: a node that hangs', () => {
  it('hanging node: reads are hedged to the other node well before the timeout, and its breaker opens', async () => {
    const [a, b] = [await fake(), await fake()]
    const p = await pool(
      [{ url: a.url }, { url: b.url }],
      { hedge: { enabled: true, delayMs: 50, quantile: 0.9, minDelayMs: 0, maxDelayMs: 1000 } },
      30_000,
    )
    a.fault({ kind: 'hang' })
    const started = performance.now()
    for (let i = 0; i < 20; i++)
      expect(
        resultOf(
          (await p.send(call('eth_getBalance', [`0x${'1'.repeat(40)}`, 'latest'], i), { method: 'eth_getBalance' }))
            .body,
        ),
      ).toBe('0x1')
    // 20 calls against a 30 s timeout: without hedging, half of them would wait 30 s.
    expect(performance.now() - started).toBeLessThan(10_000)
    expect(servedBy(p, a)).toMatchObject({ state: 'down', cause: 'breaker-open' })
    // Once open, the hanging node is not asked again until the probe time.
    const asked = a.requests.length
    for (let i = 0; i < 10; i++) await p.send(call('eth_chainId'), { method: 'eth_chainId' })
    expect(a.requests.length).toBe(asked)
  })

  it('hanging node, non-hedged write (eth_sendRawTransaction): its per-node timeout ends the attempt and the other node answers', async () => {
    const [a, b] = [await fake(), await fake()]
    const p = await pool([{ url: a.url, timeoutMs: 300 }, { url: b.url }])
    a.fault({ kind: 'hang' })
    b.answer((req) =>
      req.body?.method === 'eth_sendRawTransaction'
        ? { body: { jsonrpc: '2.0', id: req.body.id, result: '0xabc' } }
        : undefined,
    )
    const answer = await p.send(call('eth_sendRawTransaction', ['0x02f8']), { method: 'eth_sendRawTransaction' })
    expect(resultOf(answer.body)).toBe('0xabc')
    expect(answer.attempts).toBe(2)
  })

  it('hanging node alone: the call ends at the total deadline with the timeout error', async () => {
    const a = await fake()
    const p = await pool(
      [{ url: a.url }, { url: (await fake()).url }],
      { totalTimeoutMs: 400, hedge: { ...DEFAULT_UPSTREAM_POLICY.hedge, enabled: false } },
      30_000,
    )
    nodes[1]!.fault({ kind: 'hang' })
    a.fault({ kind: 'hang' })
    const started = performance.now()
    const err = await p.send(call('eth_blockNumber'), { method: 'eth_blockNumber' }).catch((e: unknown) => e)
    expect(err).toMatchObject({ code: 'UPSTREAM_TIMEOUT' })
    expect(performance.now() - started).toBeLessThan(3000)
  })
})

describe('upstream faults: a slow node', () => {
  it('slow node: the hedge to the fast node wins, and the slow request is cancelled', async () => {
    const [a, b] = [await fake(), await fake()]
    const p = await pool([{ url: a.url }, { url: b.url }], {
      hedge: { enabled: true, delayMs: 30, quantile: 0.9, minDelayMs: 0, maxDelayMs: 1000 },
    })
    a.fault({ kind: 'slow', ms: 4000 })
    const started = performance.now()
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        p.send(call('eth_getCode', [`0x${'2'.repeat(40)}`, 'latest'], i), { method: 'eth_getCode' }),
      ),
    )
    expect(performance.now() - started).toBeLessThan(3500)
    expect(answers.every((x) => x.upstream === b.url.replace(/\/$/, ''))).toBe(true)
    // at least one went to the slow node first, then was hedged
    expect(answers.some((x) => x.attempts === 2)).toBe(true)
  })

  it('slow node, hedging off: the client waits for the slow answer', async () => {
    const a = await fake()
    const p = await pool([{ url: a.url }, { url: (await fake()).url }], {
      hedge: { ...DEFAULT_UPSTREAM_POLICY.hedge, enabled: false },
    })
    a.fault({ kind: 'slow', ms: 600 })
    const times: number[] = []
    for (let i = 0; i < 2; i++) {
      const t = performance.now()
      await p.send(call('eth_getCode', [`0x${'2'.repeat(40)}`, 'latest'], i), { method: 'eth_getCode' })
      times.push(performance.now() - t)
    }
    expect(Math.max(...times)).toBeGreaterThan(500) // rotation: one of the two calls went to the slow node
  })

  it('null answers do not win a hedge: a node without the block loses to one that has it', async () => {
    const [a, b] = [await fake(), await fake()]
    a.setHead(100)
    b.setHead(100)
    const p = await pool([{ url: a.url }, { url: b.url }], {
      hedge: { enabled: true, delayMs: 30, quantile: 0.9, minDelayMs: 0, maxDelayMs: 1000 },
    })
    // a answers null at once (block unknown to it), b has the block but is slow.
    a.answer((req) =>
      req.body?.method === 'eth_getTransactionByHash'
        ? { body: { jsonrpc: '2.0', id: req.body.id, result: null } }
        : undefined,
    )
    b.answer((req) =>
      req.body?.method === 'eth_getTransactionByHash'
        ? { body: { jsonrpc: '2.0', id: req.body.id, result: { hash: '0x01' } } }
        : undefined,
    )
    for (let i = 0; i < 4; i++) {
      const answer = await p.send(call('eth_getTransactionByHash', ['0x01'], i), { method: 'eth_getTransactionByHash' })
      expect(resultOf(answer.body)).toEqual({ hash: '0x01' })
    }
  })
})

describe('upstream faults: HTTP 5xx and rate limits', () => {
  it('HTTP 503: the read is retried on the other node, and the failing node cools down', async () => {
    const [a, b] = [await fake(), await fake()]
    const p = await pool([{ url: a.url }, { url: b.url }])
    a.fault({ kind: 'status', status: 503, body: 'busy' })
    for (let i = 0; i < 4; i++)
      expect(resultOf((await p.send(call('eth_blockNumber'), { method: 'eth_blockNumber' })).body)).toBe('0x1')
    expect(servedBy(p, a)).toMatchObject({ state: 'down' })
  })

  it('HTTP 429: the read is retried on the other node; the limited node is cordoned (rate-limited)', async () => {
    const [a, b] = [await fake(), await fake()]
    const p = await pool([{ url: a.url }, { url: b.url }])
    a.fault({
      kind: 'status',
      status: 429,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32005, message: 'Too Many Requests' } },
    })
    for (let i = 0; i < 4; i++)
      expect(resultOf((await p.send(call('eth_blockNumber'), { method: 'eth_blockNumber' })).body)).toBe('0x1')
    expect(servedBy(p, a)).toMatchObject({ state: 'cordoned', cause: 'rate-limited' })
  })

  it('rate budget: a node with maxRequestsPerSecond takes no more than its budget; the rest goes to the other node', async () => {
    const [a, b] = [await fake(), await fake()]
    const p = await pool([{ url: a.url, maxRequestsPerSecond: 2 }, { url: b.url }])
    const before = a.requests.length
    const started = performance.now()
    for (let i = 0; i < 20; i++) await p.send(call('eth_chainId'), { method: 'eth_chainId' })
    // A burst of 2, then 2 per second (however slow the machine made the loop).
    const allowed = 2 + Math.ceil(((performance.now() - started) / 1000) * 2)
    expect(a.requests.length - before).toBeLessThanOrEqual(allowed)
    expect(allowed).toBeLessThan(20) // the test means something only if the loop was fast enough
    expect(b.requests.length).toBeGreaterThanOrEqual(20 - allowed)
  })

  it('a client error (execution reverted) is the answer: not retried on the other node', async () => {
    const [a, b] = [await fake(), await fake()]
    const p = await pool([{ url: a.url }, { url: b.url }])
    const revert = (req: { body: any }) =>
      req.body?.method === 'eth_call'
        ? { body: { jsonrpc: '2.0', id: req.body.id, error: { code: 3, message: 'execution reverted' } } }
        : undefined
    a.answer(revert)
    b.answer(revert)
    const answer = await p.send(call('eth_call', [{ to: `0x${'3'.repeat(40)}` }, 'latest']), { method: 'eth_call' })
    expect(JSON.parse(answer.body.toString()).error.message).toBe('execution reverted')
    expect(answer.attempts).toBe(1)
    expect(
      a.requests.filter((r) => r.body.method === 'eth_call').length +
        b.requests.filter((r) => r.body.method === 'eth_call').length,
    ).toBe(1)
  })
})

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
      expect(p.heads.finalized()).toBe(11)
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
