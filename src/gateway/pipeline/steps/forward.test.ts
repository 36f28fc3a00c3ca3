/**
 * Step 4 on its own, over a real upstream pool and a fake node (a real HTTP server): a single call goes as the
 * client's bytes and comes back as the node's; a batch goes with the gateway's own ids and is mapped back; a node
 * that does not answer fails every call of it; devnet calls take their key's slots; eth_getLogs caps hold in a batch.
 */
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../../config/load.ts'
import { ChaingateError } from '../../../errors/index.ts'
import type { RpcCall } from '../../../jsonrpc/types.ts'
import type { KeyEntry } from '../../../keys/snapshot.ts'
import { evmNetwork } from '../../../networks/network.test-support.ts'
import { createMetrics } from '../../../observability/metrics.ts'
import type { UpstreamAnswer, UpstreamPool } from '../../../upstreams/pool/pool.ts'
import { faultHarness, resultOf } from '../../../upstreams/pool/faults.test-support.ts'
import { createNetworkLayers } from '../../layers/index.ts'
import { MAX_DEV_CALLS, releaseDevSlots, takeDevSlots } from '../dev-calls.ts'
import type { CallContext, LocalMethod } from '../types.ts'
import { attemptsOf, forwardLocal, forwardMany, forwardOne, nodeDown, unavailable } from './forward.ts'

const { fake, pool } = faultHarness()

const call = (method: string, id: RpcCall['id'] = 1, params: unknown[] = []): RpcCall => ({
  id,
  hasId: true,
  method,
  params,
})
const notification = (method: string): RpcCall => ({ id: null, hasId: false, method, params: [] })

function context(p: UpstreamPool, local?: Map<string, LocalMethod>): CallContext {
  return {
    entry: { id: 'forward-key', accountId: 'acc' } as KeyEntry,
    network: evmNetwork('net', 31341),
    pool: p,
    transport: 'http',
    local,
  }
}
const metrics = () => createMetrics([])
const latencyCount = async (m: ReturnType<typeof createMetrics>) => {
  const line = (await m.registry.metrics())
    .split('\n')
    .find((l) => l.startsWith('chaingate_upstream_latency_seconds_count{network="net"}'))
  return line === undefined ? 0 : Number(line.split(' ')[1])
}

describe('forward step', () => {
  it("a single call goes as the client's own bytes and comes back as the node's bytes, untouched", async () => {
    const node = await fake()
    const answer = '{ "id" : "c-7",  "jsonrpc":"2.0", "result" : "0xabc" }'
    node.answer((req) => (req.body?.method === 'eth_call' ? { body: answer } : undefined))
    const ctx = context(await pool([{ url: node.url }]))
    const raw = '{"id":"c-7","method":"eth_call","jsonrpc":"2.0","params":[{"to":"0x01"},"latest"]}'
    const a = (await forwardOne(ctx, call('eth_call', 'c-7'), raw)) as UpstreamAnswer
    expect(a.body.toString()).toBe(answer)
    expect(a.upstream).toBe(node.url.replace(/\/$/, ''))
    const sent = node.requests.filter((r) => r.body?.method === 'eth_call')
    expect(sent.map((r) => r.body)).toEqual([JSON.parse(raw)])
  })

  it('through the call layers: an answer the in-process cache holds comes back as it is, without a promise', async () => {
    const node = await fake()
    const p = await pool([{ url: node.url }])
    const config = parseConfig({ networks: [{ name: 'net', chainId: 31341, upstreams: [{ url: node.url }] }] })
    const layers = createNetworkLayers(config, new Map([['net', p]])).layers
    try {
      const ctx = context(p)
      const raw = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'
      const asked = () => node.requests.filter((r) => r.body?.method === 'eth_chainId').length
      const before = asked()
      const first = forwardOne(ctx, call('eth_chainId'), raw, layers)
      expect(first).toBeInstanceOf(Promise)
      expect(resultOf(((await first) as UpstreamAnswer).body)).toBe('0x7a6d')
      const second = forwardOne(ctx, call('eth_chainId', 2), raw.replace('"id":1', '"id":2'), layers)
      expect(second).not.toBeInstanceOf(Promise)
      expect((second as UpstreamAnswer).source).toBe('cache')
      expect(JSON.parse((second as UpstreamAnswer).body.toString())).toMatchObject({ id: 2, result: '0x7a6d' })
      expect(asked()).toBe(before + 1)
    } finally {
      for (const l of layers.values()) l.close()
    }
  })

  it('a local method answers in place of the node', async () => {
    const node = await fake()
    const ctx = context(
      await pool([{ url: node.url }]),
      new Map<string, LocalMethod>([['eth_subscribe', async (c) => `{"jsonrpc":"2.0","id":${c.id},"result":"0x9"}`]]),
    )
    const before = node.requests.length
    expect(await forwardOne(ctx, call('eth_subscribe', 4, ['newHeads']), '{}')).toBe(
      '{"jsonrpc":"2.0","id":4,"result":"0x9"}',
    )
    expect(node.requests.length).toBe(before)
  })

  it("a batch goes with the gateway's ids and each answer goes back to its client id and place", async () => {
    const node = await fake()
    node.answer((req) =>
      Array.isArray(req.body)
        ? {
            // Out of order; the notification has a gateway id too, so the node answers it (the client gets nothing).
            body: [
              { jsonrpc: '2.0', id: 3, result: { gasPrice: '0x5' } },
              { jsonrpc: '2.0', id: 1, error: { code: 3, message: 'execution reverted' } },
              { jsonrpc: '2.0', id: 2, result: 'not for the client' },
              { jsonrpc: '2.0', id: 0, result: '0x10' },
            ],
          }
        : undefined,
    )
    const ctx = context(await pool([{ url: node.url }]))
    const m = metrics()
    // The client repeats id 7: the node cannot tell the two calls apart by it, the gateway's ids can.
    const calls = [
      call('eth_getBalance', 7),
      call('eth_call', 7),
      notification('eth_blockNumber'),
      call('eth_gasPrice', 'z'),
    ]
    const answers: (string | undefined)[] = new Array(6).fill(undefined)
    const failures: (ChaingateError | undefined)[] = new Array(6).fill(undefined)
    const answer = await forwardMany(ctx, m, { calls, at: [0, 2, 3, 5], answers, failures })
    expect(answer?.upstream).toBe(node.url.replace(/\/$/, ''))
    const batch = node.requests.find((r) => Array.isArray(r.body))!.body
    expect(batch).toEqual([
      { jsonrpc: '2.0', id: 0, method: 'eth_getBalance', params: [] },
      { jsonrpc: '2.0', id: 1, method: 'eth_call', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] },
      { jsonrpc: '2.0', id: 3, method: 'eth_gasPrice', params: [] },
    ])
    expect(answers.map((a) => (a === undefined ? undefined : JSON.parse(a)))).toEqual([
      { jsonrpc: '2.0', id: 7, result: '0x10' },
      undefined,
      { jsonrpc: '2.0', id: 7, error: { code: 3, message: 'execution reverted' } },
      undefined,
      undefined,
      { jsonrpc: '2.0', id: 'z', result: { gasPrice: '0x5' } },
    ])
    expect(failures.every((f) => f === undefined)).toBe(true)
    expect(await latencyCount(m)).toBe(1)
  })

  it("a node that does not answer fails every call of the batch with the pool's error; notifications stay silent", async () => {
    const node = await fake()
    const ctx = context(await pool([{ url: node.url }]))
    await node.kill()
    const m = metrics()
    const answers: (string | undefined)[] = [undefined, undefined, undefined]
    const failures: (ChaingateError | undefined)[] = [undefined, undefined, undefined]
    const calls = [call('eth_call', 1), notification('eth_blockNumber'), call('eth_chainId', 2)]
    expect(await forwardMany(ctx, m, { calls, at: [0, 1, 2], answers, failures })).toBeUndefined()
    const e = failures[0]!
    expect(e).toBeInstanceOf(ChaingateError)
    expect(failures).toEqual([e, e, e])
    expect(nodeDown(e)).toBe(true)
    expect(attemptsOf(e)).toBe(1)
    expect(answers[1]).toBeUndefined()
    expect(JSON.parse(answers[0]!)).toMatchObject({ id: 1, error: { message: e.message } })
    expect(JSON.parse(answers[2]!)).toMatchObject({ id: 2, error: { message: e.message } })
    expect(await latencyCount(m)).toBe(1)
  })

  it("devnet calls of a batch take their key's slots: beyond them they are refused and only the rest is sent", async () => {
    const node = await fake()
    const ctx = context(await pool([{ url: node.url }]))
    const dev = Array.from({ length: MAX_DEV_CALLS + 1 }, (_, i) => call('evm_mine', i + 10))
    const calls = [call('eth_chainId', 1), ...dev]
    const answers: (string | undefined)[] = calls.map(() => undefined)
    const failures: (ChaingateError | undefined)[] = calls.map(() => undefined)
    await forwardMany(ctx, metrics(), { calls, at: calls.map((_, i) => i), answers, failures })
    expect(JSON.parse(answers[0]!)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a6d' })
    for (let i = 1; i < calls.length; i++) {
      expect(failures[i]?.code).toBe('TOO_MANY_DEV_CALLS')
      expect(JSON.parse(answers[i]!).id).toBe(i + 9)
    }
    const batches = node.requests.filter((r) => Array.isArray(r.body)).map((r) => r.body)
    expect(batches).toEqual([[{ jsonrpc: '2.0', id: 0, method: 'eth_chainId', params: [] }]])

    // Within the slots they are sent, and the slots are free again once the batch is answered.
    const two = [call('evm_mine', 1), call('evm_mine', 2)]
    await forwardMany(ctx, metrics(), {
      calls: two,
      at: [0, 1],
      answers: [undefined, undefined],
      failures: [undefined, undefined],
    })
    expect(node.requests.filter((r) => Array.isArray(r.body)).length).toBe(2)
    expect(takeDevSlots('forward-key', MAX_DEV_CALLS)).toBe(true)
    releaseDevSlots('forward-key', MAX_DEV_CALLS)
  })

  it('an eth_getLogs over the block-range cap is refused inside a batch and left out of its body', async () => {
    const node = await fake()
    const p = await pool([{ url: node.url }])
    const config = parseConfig({
      networks: [{ name: 'net', chainId: 31341, upstreams: [{ url: node.url }], getLogs: { maxBlockRange: 10 } }],
    })
    const layers = createNetworkLayers(config, new Map([['net', p]])).layers
    try {
      const ctx = context(p)
      const wide = call('eth_getLogs', 1, [{ fromBlock: '0x1', toBlock: '0x100' }])
      const narrow = call('eth_getLogs', 2, [{ fromBlock: '0x1', toBlock: '0x2' }])
      const answers: (string | undefined)[] = [undefined, undefined]
      const failures: (ChaingateError | undefined)[] = [undefined, undefined]
      await forwardMany(ctx, metrics(), { calls: [wide, narrow], at: [0, 1], answers, failures }, layers)
      expect(failures[0]).toBeInstanceOf(ChaingateError)
      expect(JSON.parse(answers[0]!)).toMatchObject({ id: 1, error: { message: failures[0]!.message } })
      expect(failures[1]).toBeUndefined()
      expect(JSON.parse(answers[1]!)).toEqual({ jsonrpc: '2.0', id: 2, result: '0x1' })
      const batches = node.requests.filter((r) => Array.isArray(r.body)).map((r) => r.body)
      expect(batches).toEqual([[{ jsonrpc: '2.0', id: 0, method: 'eth_getLogs', params: narrow.params }]])
    } finally {
      for (const l of layers.values()) l.close()
    }
  })

  it("a local method's failure is the gateway's error (its own code kept), answered with the client's id", async () => {
    const node = await fake()
    const limit = new ChaingateError('UPSTREAM_SUBSCRIPTION_LIMIT', 'network net: too many node subscriptions')
    const ctx = context(
      await pool([{ url: node.url }]),
      new Map<string, LocalMethod>([
        [
          'eth_subscribe',
          async () => {
            throw new Error('socket closed')
          },
        ],
        [
          'eth_unsubscribe',
          async () => {
            throw limit
          },
        ],
      ]),
    )
    const answers: (string | undefined)[] = [undefined, undefined]
    const failures: (ChaingateError | undefined)[] = [undefined, undefined]
    await forwardLocal(ctx, call('eth_subscribe', 'a'), 0, answers, failures)
    await forwardLocal(ctx, call('eth_unsubscribe', 'b'), 1, answers, failures)
    expect(failures[0]?.code).toBe('UPSTREAM_UNAVAILABLE')
    expect(failures[0]?.message).toBe('network net is unavailable')
    expect(failures[1]).toBe(limit)
    expect(JSON.parse(answers[0]!)).toMatchObject({ id: 'a', error: { message: 'network net is unavailable' } })
    expect(JSON.parse(answers[1]!)).toMatchObject({ id: 'b', error: { message: limit.message } })
    expect(unavailable(limit, 'net')).toBe(limit)
    expect(nodeDown(new ChaingateError('BODY_TOO_LARGE', 'too large'))).toBe(false)
    expect(attemptsOf(new Error('no count'))).toBe(0)
  })
})
