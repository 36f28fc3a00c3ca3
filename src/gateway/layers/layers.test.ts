import { describe, expect, it } from 'vitest'
import type { RpcCall } from '../../jsonrpc/types.ts'
import { createHeadTracker } from '../../upstreams/pool/heads.ts'
import type { SendOptions, UpstreamAnswer, UpstreamPool } from '../../upstreams/pool/pool.ts'
import { createCallLayers, type CallLayerOptions } from './layers.ts'
import { testLayerOptions } from './layers.test-support.ts'

/** A pool that answers from `answer(method, params)` after `delayMs`, recording what it was sent. */
function stubPool(answer: (method: string, params: unknown[]) => unknown, delayMs = 5) {
  const sent: { method: string; params: unknown[]; opts: SendOptions | undefined }[] = []
  const heads = createHeadTracker()
  const pool = {
    network: 'n',
    heads,
    send(body: string | Buffer, opts?: SendOptions, settled?: () => void): Promise<UpstreamAnswer> {
      const req = JSON.parse(body.toString()) as { id: unknown; method: string; params: unknown[] }
      sent.push({ method: req.method, params: req.params, opts })
      const result = answer(req.method, req.params)
      const text = JSON.stringify({ jsonrpc: '2.0', id: req.id, result })
      return new Promise((resolve) =>
        setTimeout(() => {
          settled?.()
          resolve({ body: Buffer.from(text), latencyMs: delayMs, upstream: 'stub', attempts: 1 })
        }, delayMs),
      )
    },
  } as unknown as UpstreamPool
  return { pool, sent, heads }
}

const callOf = (id: number | string, method: string, params: unknown[] = []): { call: RpcCall; raw: string } => {
  const raw = JSON.stringify({ jsonrpc: '2.0', id, method, params })
  return { call: { id, method, params, hasId: true } as unknown as RpcCall, raw }
}

function layersFor(stub: ReturnType<typeof stubPool>, over: Partial<CallLayerOptions> = {}) {
  return createCallLayers(testLayerOptions({ pool: stub.pool, heads: stub.heads, ...over }))
}

const send = async (
  l: ReturnType<typeof createCallLayers>,
  id: number | string,
  method: string,
  params: unknown[] = [],
  keyId = 'k',
) => {
  const { call, raw } = callOf(id, method, params)
  const a = await l.send(call, raw, keyId)
  return { json: JSON.parse(a.body.toString()) as { id: unknown; result?: unknown }, source: a.source }
}

const block = (n: number, hash = `0x${n.toString(16).padStart(64, '0')}`) => ({ number: `0x${n.toString(16)}`, hash })

describe('call layers', () => {
  it('identical reads in flight share one upstream call and each client gets its own id', async () => {
    const stub = stubPool((m) => (m === 'eth_gasPrice' ? '0x3b9aca00' : null), 30)
    const l = layersFor(stub)
    const answers = await Promise.all([1, 'two', 3].map((id) => send(l, id, 'eth_gasPrice')))
    expect(stub.sent).toHaveLength(1)
    expect(answers.map((a) => a.json.id)).toEqual([1, 'two', 3])
    expect(answers.map((a) => a.json.result)).toEqual(['0x3b9aca00', '0x3b9aca00', '0x3b9aca00'])
    expect(answers.map((a) => a.source)).toEqual([undefined, 'dedup', 'dedup'])
    // Answered: no longer in flight, so the same read asks the node again.
    expect((await send(l, 4, 'eth_gasPrice')).source).toBe(undefined)
    expect(stub.sent).toHaveLength(2)
  })

  it('a notification (no id, no answer from the node) is never the call others join', async () => {
    const stub = stubPool(() => '0x2', 30)
    const l = layersFor(stub)
    const raw = JSON.stringify({ jsonrpc: '2.0', method: 'eth_gasPrice', params: [] })
    const note = l.send({ id: null, hasId: false, method: 'eth_gasPrice', params: [] } as unknown as RpcCall, raw, 'k')
    const answer = await send(l, 5, 'eth_gasPrice')
    await note
    expect(stub.sent).toHaveLength(2)
    expect(answer.json).toEqual({ jsonrpc: '2.0', id: 5, result: '0x2' })
  })

  it('a write between two identical reads keeps the second from joining the first', async () => {
    const stub = stubPool(() => '0x1', 30)
    const l = layersFor(stub)
    const first = send(l, 1, 'eth_gasPrice')
    await send(l, 2, 'eth_sendRawTransaction', ['0xdead'])
    await Promise.all([first, send(l, 3, 'eth_gasPrice')])
    expect(stub.sent.map((s) => s.method)).toEqual(['eth_gasPrice', 'eth_sendRawTransaction', 'eth_gasPrice'])
  })

  it('a filter poll between two identical reads does not end their sharing (it changes nothing read)', async () => {
    for (const [between, shares] of [
      ['eth_getFilterChanges', true],
      ['eth_sendRawTransaction', false],
    ] as const) {
      const stub = stubPool(() => '0x1', 30)
      const l = layersFor(stub)
      const first = send(l, 1, 'eth_gasPrice')
      const poll = send(l, 2, between, ['0xc01abcd01'])
      await Promise.all([first, poll, send(l, 3, 'eth_gasPrice')])
      expect(stub.sent.map((s) => s.method)).toEqual(
        shares ? ['eth_gasPrice', between] : ['eth_gasPrice', between, 'eth_gasPrice'],
      )
    }
  })

  it('eth_chainId is asked once, then served from the cache with the client id', async () => {
    const stub = stubPool(() => '0x7a69')
    const l = layersFor(stub)
    await send(l, 1, 'eth_chainId')
    const again = await send(l, 'x', 'eth_chainId')
    expect(again).toEqual({ json: { jsonrpc: '2.0', id: 'x', result: '0x7a69' }, source: 'cache' })
    expect(stub.sent).toHaveLength(1)
  })

  it('solana: finalized blocks and transactions are kept; processed and confirmed ones only shared; null never', async () => {
    const stub = stubPool((m, p) => (m === 'getTransaction' && p[0] === 'unknown' ? null : { slot: 7, of: m }))
    const l = layersFor(stub)
    for (const config of [undefined, { commitment: 'finalized', encoding: 'json' }]) {
      const params = config === undefined ? [7] : [7, config]
      await send(l, 1, 'getBlock', params)
      expect(await send(l, 2, 'getBlock', params)).toMatchObject({ source: 'cache', json: { id: 2 } })
      expect(l.batchHit(callOf(3, 'getBlock', params).call)).toBeDefined()
    }
    for (const commitment of ['confirmed', 'processed']) {
      await send(l, 1, 'getTransaction', ['sig', { commitment }])
      expect((await send(l, 2, 'getTransaction', ['sig', { commitment }])).source).toBeUndefined()
      expect(l.batchHit(callOf(3, 'getTransaction', ['sig', { commitment }]).call)).toBeUndefined()
    }
    await send(l, 1, 'getTransaction', ['unknown'])
    expect((await send(l, 2, 'getTransaction', ['unknown'])).source).toBeUndefined()
    await send(l, 1, 'getGenesisHash')
    expect((await send(l, 2, 'getGenesisHash')).source).toBe('cache')
    expect(stub.sent.map((c) => c.method)).toEqual([
      'getBlock',
      'getBlock',
      ...Array(4).fill('getTransaction'),
      'getTransaction',
      'getTransaction',
      'getGenesisHash',
    ])
    // A read that is not cached is shared, not taken for a write: a getSlot poll does not end the sharing.
    const a = send(l, 1, 'getSlot')
    const b = send(l, 2, 'getSlot')
    await Promise.all([a, b])
    expect(stub.sent.filter((c) => c.method === 'getSlot')).toHaveLength(1)
  })

  it('a finalized block is cached; a block above finalized without a known hash is not; tags never are', async () => {
    const stub = stubPool((m, p) =>
      m === 'eth_getBlockByNumber' ? block(p[0] === 'latest' ? 100 : Number.parseInt(p[0] as string, 16)) : null,
    )
    stub.heads.report({ number: 100, hash: '0xaa' })
    stub.heads.reportFinalized(90)
    const l = layersFor(stub, { multiUpstream: true })
    for (let i = 0; i < 2; i++) {
      await send(l, i, 'eth_getBlockByNumber', ['0x5a', false]) // 90: finalized
      await send(l, i, 'eth_getBlockByNumber', ['0x5b', false]) // 91: not finalized, hash not seen
      await send(l, i, 'eth_getBlockByNumber', ['latest', false])
    }
    expect(stub.sent.map((s) => s.params[0])).toEqual(['0x5a', '0x5b', 'latest', '0x5b', 'latest'])
    // latest goes to an upstream at the served tip (there is a choice: several upstreams).
    expect(stub.sent.find((s) => s.params[0] === 'latest')!.opts).toEqual({
      method: 'eth_getBlockByNumber',
      minBlock: 100,
    })
  })

  it('an unfinalized block is cached under its hash and dropped when a reorg replaces it', async () => {
    let hash = `0x${'b'.repeat(64)}`
    const stub = stubPool(() => block(101, hash))
    const l = layersFor(stub) // before the heads: it learns hashes from the heads announced
    stub.heads.report({ number: 100, hash: '0xa0' })
    stub.heads.report({ number: 101, hash, parentHash: '0xa0' })
    stub.heads.reportFinalized(50)
    await send(l, 1, 'eth_getBlockByNumber', ['0x65', false])
    expect((await send(l, 2, 'eth_getBlockByNumber', ['0x65', false])).source).toBe('cache')
    hash = `0x${'c'.repeat(64)}`
    stub.heads.report({ number: 101, hash, parentHash: '0xa0' }) // same height, another hash: a reorg
    const after = await send(l, 3, 'eth_getBlockByNumber', ['0x65', false])
    expect(after.source).toBeUndefined()
    expect((after.json.result as { hash: string }).hash).toBe(hash)
  })

  it('eth_blockNumber is served for one head until a write passes or the tip moves', async () => {
    let chain = 10
    const stub = stubPool((m) =>
      m === 'eth_blockNumber' ? `0x${chain.toString(16)}` : m === 'anvil_mine' ? (chain++, null) : null,
    )
    stub.heads.report({ number: 10, hash: '0x0a' })
    const l = layersFor(stub)
    expect((await send(l, 1, 'eth_blockNumber')).json.result).toBe('0xa')
    expect(await send(l, 2, 'eth_blockNumber')).toMatchObject({ json: { result: '0xa' }, source: 'cache' })
    // The client mines and asks at once, before the new head is announced: the node is asked.
    await send(l, 3, 'anvil_mine', [])
    expect(await send(l, 4, 'eth_blockNumber')).toMatchObject({ json: { result: '0xb' }, source: undefined })
    expect(stub.sent.filter((s) => s.method === 'eth_blockNumber')).toHaveLength(2)
  })

  it('eth_blockNumber for one head is served no longer than blockNumberTtlMs (an idle gateway stops polling)', async () => {
    const stub = stubPool(() => '0xa')
    stub.heads.report({ number: 10, hash: '0x0a' })
    const l = layersFor(stub, { blockNumberTtlMs: 30 })
    await send(l, 1, 'eth_blockNumber')
    expect((await send(l, 2, 'eth_blockNumber')).source).toBe('cache')
    await new Promise((r) => setTimeout(r, 60))
    expect((await send(l, 3, 'eth_blockNumber')).source).toBeUndefined()
    expect(stub.sent).toHaveLength(2)
  })

  it('eth_blockNumber never goes backwards for a key when another node answers behind', async () => {
    const numbers = [20, 18, 21]
    const stub = stubPool(() => `0x${numbers.shift()!.toString(16)}`)
    const l = layersFor(stub, { cache: false })
    const seen = []
    for (let i = 0; i < 3; i++) seen.push((await send(l, i, 'eth_blockNumber', [], 'key-a')).json.result)
    expect(seen).toEqual(['0x14', '0x14', '0x15'])
  })

  it('with several upstreams, a block above the served tip answers null without asking any', async () => {
    const stub = stubPool(() => block(7))
    const l = layersFor(stub, { multiUpstream: true, headIdleMs: 50 })
    stub.heads.report({ number: 5, hash: '0x05' })
    expect((await send(l, 9, 'eth_getBlockByNumber', ['0x6', false])).json).toEqual({
      jsonrpc: '2.0',
      id: 9,
      result: null,
    })
    expect(stub.sent).toHaveLength(0)
    // No head announced for longer than the pool's idle spell: the tip may be old, a node is asked.
    await new Promise((r) => setTimeout(r, 80))
    expect((await send(l, 10, 'eth_getBlockByNumber', ['0x6', false])).json.result).toEqual(block(7))
    expect(stub.sent).toHaveLength(1)
    stub.sent.length = 0
    // One trusted node is asked instead (a block its client just mined must not be hidden).
    const single = layersFor(stub)
    expect((await send(single, 9, 'eth_getBlockByNumber', ['0x6', false])).json.result).toEqual(block(7))
  })

  it('eth_getBlockReceipts by block hash is a by-hash lookup, not a block number above the tip', async () => {
    const stub = stubPool(() => [{ status: '0x1' }])
    stub.heads.report({ number: 5, hash: '0x05' })
    const l = layersFor(stub, { multiUpstream: true })
    const hash = `0x${'ab'.repeat(32)}`
    expect((await send(l, 1, 'eth_getBlockReceipts', [hash])).json.result).toEqual([{ status: '0x1' }])
    expect((await send(l, 2, 'eth_getBlockReceipts', [hash])).source).toBe('cache')
    expect(stub.sent).toHaveLength(1)
  })

  it('a devnet rewind (evm_revert) forgets finalized entries and block-number floors', async () => {
    let n = 30
    const stub = stubPool((m, p) =>
      m === 'eth_blockNumber'
        ? `0x${n.toString(16)}`
        : m === 'evm_revert'
          ? ((n = 3), true)
          : block(Number.parseInt(p[0] as string, 16)),
    )
    stub.heads.report({ number: 30, hash: '0x1e' })
    stub.heads.reportFinalized(20)
    const l = layersFor(stub, { devnet: true })
    await send(l, 1, 'eth_getBlockByNumber', ['0x2', false])
    await send(l, 1, 'eth_blockNumber')
    await send(l, 2, 'evm_revert', ['0x1'])
    expect((await send(l, 3, 'eth_getBlockByNumber', ['0x2', false])).source).toBeUndefined()
    expect((await send(l, 4, 'eth_blockNumber')).json.result).toBe('0x3')
  })

  it('eth_getLogs over a finalized range is kept (an empty list too); one above finalized is not', async () => {
    const stub = stubPool(() => [])
    stub.heads.report({ number: 100, hash: '0x64' })
    stub.heads.reportFinalized(90)
    const l = layersFor(stub)
    for (let i = 0; i < 2; i++) {
      await send(l, i, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x5a' }])
      await send(l, i, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x5b' }])
    }
    expect(stub.sent.map((x) => (x.params[0] as { toBlock: string }).toBlock)).toEqual(['0x5a', '0x5b', '0x5b'])
  })

  it('a receipt is cached once its block is finalized, not while it is pending', async () => {
    let receipt: unknown = null
    const stub = stubPool(() => receipt)
    stub.heads.report({ number: 100, hash: '0x64' })
    stub.heads.reportFinalized(90)
    const l = layersFor(stub)
    const tx = `0x${'1'.repeat(64)}`
    await send(l, 1, 'eth_getTransactionReceipt', [tx])
    receipt = { blockNumber: '0x50', blockHash: `0x${'2'.repeat(64)}`, status: '0x1' }
    expect((await send(l, 2, 'eth_getTransactionReceipt', [tx])).json.result).toEqual(receipt)
    expect(await send(l, 3, 'eth_getTransactionReceipt', [tx])).toMatchObject({
      json: { id: 3, result: receipt },
      source: 'cache',
    })
    expect(stub.sent).toHaveLength(2)
  })
})
