/**
 * The finality-aware cache and in-flight dedup (docs/caching.md), seen from a client and from the node: fake nodes
 * (test/support/fake-node.ts, head 100, finalized 90) count what reaches them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { startFakeNode, type FakeNode } from '../support/fake-node.ts'
import { waitFor } from './helpers/process.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

let node: FakeNode
let s: TestServer
const remote = { network: 'remote' }

const until = (check: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000) =>
  waitFor(check, timeoutMs, what, 100)
const asked = (method: string, first?: unknown) =>
  node.requests.filter((r) => r.body?.method === method && (first === undefined || r.body.params?.[0] === first)).length
const served = async (source: 'cache' | 'dedup') => {
  const text = await (await request(`${s.url}/metrics`)).body.text()
  const m = new RegExp(
    `^chaingate_answers_without_upstream_total\\{network="remote",source="${source}"\\} (\\d+)`,
    'm',
  ).exec(text)
  return m ? Number(m[1]) : 0
}

beforeAll(async () => {
  node = await startFakeNode('0x7a6d')
  node.setHead(100)
  s = await startTestServer({
    networks: [
      { name: 'remote', chainId: 31341, upstreams: [{ url: node.url }], upstreamPolicy: { headPollMs: 1000 } },
    ],
  })
  // Heads are polled while calls flow: wait until the gateway knows the tip and the finalized block.
  await until(
    async () => {
      await s.rpc(call('eth_gasPrice'), remote)
      return s.parts.pools.get('remote')!.heads.finalized() === 90
    },
    'the finalized block',
    45_000,
  )
}, 60_000)
afterAll(async () => {
  await s?.stop()
  await node?.close()
})
afterEach(() => node.fault(undefined))

describe('answer cache', () => {
  it('eth_chainId reaches the node once, then comes from the cache with each client id, charged the same', async () => {
    const first = await s.rpc(call('eth_chainId', [], 1), remote)
    const before = asked('eth_chainId')
    const hitsBefore = await served('cache')
    const again = await s.rpc(call('eth_chainId', [], 'again'), remote)
    expect(again.json()).toEqual({ jsonrpc: '2.0', id: 'again', result: '0x7a6d' })
    expect(again.credits).toBe(first.credits)
    expect(asked('eth_chainId')).toBe(before)
    expect(await served('cache')).toBe(hitsBefore + 1)
    // Its request line marks it (lines are written every 100 ms).
    await until(
      () => s.logs.some((l) => l.msg === 'rpc' && l.method === 'eth_chainId' && l.source === 'cache'),
      'the request line',
    )
  })

  it('a finalized block is kept: the second ask does not reach the node and costs what the first did', async () => {
    const first = await s.rpc(call('eth_getBlockByNumber', ['0x50', false], 1), remote)
    expect(first.json().result.hash).toBe(node.hashOf(0x50))
    const again = await s.rpc(call('eth_getBlockByNumber', ['0x50', false], 2), remote)
    expect(again.json()).toEqual({ ...first.json(), id: 2 })
    expect(again.credits).toBe(first.credits)
    expect(asked('eth_getBlockByNumber', '0x50')).toBe(1)
    const metrics = await (await request(`${s.url}/metrics`)).body.text()
    expect(Number(/^chaingate_cache_bytes (\d+)/m.exec(metrics)?.[1])).toBeGreaterThan(0)
  })

  it('a block above the finalized one whose hash the gateway has not seen is asked every time', async () => {
    await s.rpc(call('eth_getBlockByNumber', ['0x5f', false]), remote)
    await s.rpc(call('eth_getBlockByNumber', ['0x5f', false]), remote)
    expect(asked('eth_getBlockByNumber', '0x5f')).toBe(2)
  })

  it('the block at the tip is kept under its hash and dropped when a reorg replaces it', async () => {
    const tip = `0x${node.head.toString(16)}`
    const first = (await s.rpc(call('eth_getBlockByNumber', [tip, false]), remote)).json().result
    await s.rpc(call('eth_getBlockByNumber', [tip, false]), remote)
    expect(asked('eth_getBlockByNumber', tip)).toBe(1)
    node.reorg(node.head)
    // The next head poll sees the new hash at the same height.
    await until(
      async () => (await s.rpc(call('eth_getBlockByNumber', [tip, false]), remote)).json().result.hash !== first.hash,
      'the reorged block',
    )
    expect(asked('eth_getBlockByNumber', tip)).toBeGreaterThanOrEqual(2)
  })

  it('in a batch, calls the cache holds are answered from it and only the others reach the node', async () => {
    await s.rpc(call('eth_getBlockByNumber', ['0x40', false]), remote) // finalized: now kept
    const before = node.requests.length
    const r = await s.rpc(
      [call('eth_chainId', [], 'a'), call('eth_getBlockByNumber', ['0x40', false], 'b'), call('eth_gasPrice', [], 'c')],
      remote,
    )
    const answers = r.json() as { id: string; result: unknown }[]
    expect(answers.map((a) => a.id)).toEqual(['a', 'b', 'c'])
    expect(answers[0]!.result).toBe('0x7a6d')
    expect((answers[1]!.result as { hash: string }).hash).toBe(node.hashOf(0x40))
    expect(answers[2]!.result).toBe('0x1')
    // One batch body reached the node, holding only eth_gasPrice.
    const sent = node.requests.slice(before)
    expect(sent).toHaveLength(1)
    expect((sent[0]!.body as { method: string }[]).map((c) => c.method)).toEqual(['eth_gasPrice'])
    // Charged like any batch of these calls.
    const uncached = await s.rpc(
      [call('eth_gasPrice', [], 1), call('eth_gasPrice', [], 2), call('eth_gasPrice', [], 3)],
      remote,
    )
    expect(r.credits).toBe(uncached.credits - 80 + 5) // eth_chainId (5) in place of one eth_gasPrice (80)
  })

  it('errors are never cached', async () => {
    node.answer((req) =>
      req.body?.method === 'eth_getBalance'
        ? { body: { jsonrpc: '2.0', id: req.body.id, error: { code: -32000, message: 'missing trie node' } } }
        : undefined,
    )
    try {
      for (let i = 0; i < 2; i++)
        expect(
          (await s.rpc(call('eth_getBalance', ['0x0000000000000000000000000000000000000001', '0x10']), remote)).json()
            .error.code,
        ).toBe(-32000)
      expect(asked('eth_getBalance')).toBe(2)
    } finally {
      node.answer(() => undefined)
    }
  })
})

describe('in-flight dedup', () => {
  it('identical concurrent reads share one upstream call; each client gets its own id and is charged', async () => {
    node.fault({ kind: 'slow', ms: 400 })
    const before = asked('eth_gasPrice')
    const dedupBefore = await served('dedup')
    const answers = await Promise.all([1, 2, 'three', 4].map((id) => s.rpc(call('eth_gasPrice', [], id), remote)))
    expect(answers.map((a) => a.json())).toEqual(
      [1, 2, 'three', 4].map((id) => ({ jsonrpc: '2.0', id, result: '0x1' })),
    )
    expect(answers.every((a) => a.credits > 0 && a.credits === answers[0]!.credits)).toBe(true)
    expect(asked('eth_gasPrice') - before).toBe(1)
    expect(await served('dedup')).toBe(dedupBefore + 3)
  })

  it('different params are not shared', async () => {
    node.fault({ kind: 'slow', ms: 200 })
    const before = asked('eth_getBalance')
    await Promise.all(
      ['0x01', '0x02'].map((b) =>
        s.rpc(call('eth_getBalance', ['0x0000000000000000000000000000000000000001', b]), remote),
      ),
    )
    expect(asked('eth_getBalance') - before).toBe(2)
  })
})
