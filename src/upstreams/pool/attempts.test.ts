/**
 * One call's attempts on their own: run() over a pool's state whose nodes are fake nodes (real HTTP servers), in
 * an order the test gives (selection is ./selection.test.ts): retries on the next node, what is not retried, the
 * attempt budget, weak answers, hedges and the breaker strike of the one that lost, rate budgets, the deadline and
 * a client that goes away.
 */
import { keccak_256 } from '@noble/hashes/sha3'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { startFakeNode, type FakeNode } from '../../../test/support/fake-node.ts'
import { ChaingateError } from '../../errors/index.ts'
import { run } from './attempts.ts'
import { call, CHAIN, resultOf } from './faults.test-support.ts'
import { CancelledError, type Member } from './member.ts'
import type { UpstreamEndpoint, UpstreamPolicy } from './pool.ts'
import type { PoolState } from './state.ts'
import { poolStateHarness } from './state.test-support.ts'

const poolState = poolStateHarness()
const nodes: FakeNode[] = []
afterEach(async () => {
  vi.useRealTimers()
  await Promise.all(nodes.splice(0).map((n) => n.close()))
})
const fakes = (n: number) =>
  Promise.all(
    Array.from({ length: n }, async () => {
      const node = await startFakeNode(CHAIN)
      nodes.push(node)
      return node
    }),
  )
/** A pool over `ns`, every node healthy for hedges (as select() would count them), and its members in order. */
function over(ns: FakeNode[], policy: Partial<UpstreamPolicy> = {}, extra: Partial<UpstreamEndpoint>[] = []) {
  const pool = poolState(
    ns.map((n, i) => ({ url: n.url, ...extra[i] })),
    { hedge: { enabled: false, delayMs: 50, quantile: 0.9, minDelayMs: 30, maxDelayMs: 2000 }, ...policy },
  )
  pool.selectedHealthy = ns.length
  return { pool, order: [...pool.members] }
}
const asked = (n: FakeNode, method: string) => n.requests.filter((r) => r.body?.method === method).length
const fail = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the call to fail')
    },
    (e: unknown) => e as ChaingateError & { attempts?: number },
  )
const send = (pool: PoolState, order: Member[], method: string, o: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
  run({ pool, body: call(method), o: { method, ...o }, now: Date.now(), order, totalTimeoutMs: 5000 })

describe('attempts', () => {
  it('a read that fails on a node is retried on the next in order; the answer counts both attempts', async () => {
    const [a, b, c] = await fakes(3)
    a!.fault({ kind: 'status', status: 503 })
    const { pool, order } = over([a!, b!, c!])
    let winner: Member | undefined
    const answer = await run({
      pool,
      body: call('eth_call'),
      o: { method: 'eth_call' },
      now: Date.now(),
      order,
      totalTimeoutMs: 5000,
      onWinner: (m) => {
        winner = m
      },
    })
    expect(answer.attempts).toBe(2)
    expect(answer.upstream).toBe(b!.url.replace(/\/$/, ''))
    expect(winner).toBe(order[1])
    expect([asked(a!, 'eth_call'), asked(b!, 'eth_call'), asked(c!, 'eth_call')]).toEqual([1, 1, 0])
    // The failing node cools down; the one that answered does not.
    expect(order[0]!.downUntil).toBeGreaterThan(Date.now())
    expect(order[1]!.downUntil).toBe(0)
  })

  it('at most maxAttempts nodes are tried; the error says how many were', async () => {
    const ns = await fakes(3)
    for (const n of ns) n.fault({ kind: 'status', status: 503 })
    const { pool, order } = over(ns, { maxAttempts: 2 })
    const e = await fail(send(pool, order, 'eth_call'))
    expect(e).toBeInstanceOf(ChaingateError)
    expect(e.code).toBe('UPSTREAM_UNAVAILABLE')
    expect(e.attempts).toBe(2)
    expect(ns.map((n) => asked(n, 'eth_call'))).toEqual([1, 1, 0])
  })

  it('a node-local call is retried only when the node surely did not get it', async () => {
    const [a, b] = await fakes(2)
    a!.fault({ kind: 'status', status: 503 })
    const delivered = over([a!, b!])
    const e = await fail(send(delivered.pool, delivered.order, 'evm_mine'))
    expect(e.attempts).toBe(1)
    expect([asked(a!, 'evm_mine'), asked(b!, 'evm_mine')]).toEqual([1, 0])

    await a!.kill() // connection refused: never delivered
    const refused = over([a!, b!])
    const answer = await send(refused.pool, refused.order, 'evm_mine')
    expect(answer.attempts).toBe(2)
    expect(answer.upstream).toBe(b!.url.replace(/\/$/, ''))
    expect(asked(b!, 'evm_mine')).toBe(1)
  })

  it("a node's own error answer is the client's: passed on at once, not retried", async () => {
    const [a, b] = await fakes(2)
    a!.answer((req) =>
      req.body?.method === 'eth_call'
        ? { body: { jsonrpc: '2.0', id: req.body.id, error: { code: 3, message: 'execution reverted' } } }
        : undefined,
    )
    const { pool, order } = over([a!, b!])
    const answer = await send(pool, order, 'eth_call')
    expect(answer.isError).toBe(true)
    expect(JSON.parse(answer.body.toString()).error.message).toBe('execution reverted')
    expect(answer.attempts).toBe(1)
    expect(asked(b!, 'eth_call')).toBe(0)
  })

  it('"missing" data is asked of the next node; when none has it, the first weak answer is the answer', async () => {
    const [a, b, c] = await fakes(3)
    const receipt = { transactionHash: '0x01', status: '0x1' }
    a!.answer((req) =>
      req.body?.method === 'eth_getTransactionReceipt' ? { body: { jsonrpc: '2.0', id: 1, result: null } } : undefined,
    )
    b!.answer((req) =>
      req.body?.method === 'eth_getTransactionReceipt'
        ? { body: { jsonrpc: '2.0', id: 1, result: receipt } }
        : undefined,
    )
    const found = over([a!, b!, c!])
    const answer = await send(found.pool, found.order, 'eth_getTransactionReceipt')
    expect(resultOf(answer.body)).toEqual(receipt)
    expect(answer.attempts).toBe(2)
    expect(asked(c!, 'eth_getTransactionReceipt')).toBe(0)

    // Nobody has it: every healthy node asked (within maxAttempts), then the null goes back.
    const nobody = over([a!, c!])
    c!.answer((req) =>
      req.body?.method === 'eth_getTransactionReceipt'
        ? { body: { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'header not found' } } }
        : undefined,
    )
    const none = await send(nobody.pool, nobody.order, 'eth_getTransactionReceipt')
    expect(resultOf(none.body)).toBeNull()
    expect(none.attempts).toBe(2)
  })

  it("a hedge goes to the next node when the first is slow; the first useful answer wins, the loser's breaker gets a strike", async () => {
    const [a, b] = await fakes(2)
    a!.fault({ kind: 'hang' })
    const { pool, order } = over([a!, b!], {
      hedge: { enabled: true, delayMs: 50, quantile: 0.9, minDelayMs: 30, maxDelayMs: 2000 },
    })
    pool.hedgeDelayMs = 50
    const answer = await send(pool, order, 'eth_blockNumber')
    expect(answer.upstream).toBe(b!.url.replace(/\/$/, ''))
    expect(answer.attempts).toBe(2)
    expect(asked(a!, 'eth_blockNumber')).toBe(1)
    expect(order[0]!.breaker.failures).toBe(1)
    expect(order[1]!.breaker.failures).toBe(0)

    // A write is never hedged: it waits for its node (here until the deadline).
    const tx = over([a!, b!], {
      hedge: { enabled: true, delayMs: 50, quantile: 0.9, minDelayMs: 30, maxDelayMs: 2000 },
    })
    const e = await fail(send(tx.pool, tx.order, 'evm_mine', { timeoutMs: 300 }))
    expect(e.code).toBe('UPSTREAM_TIMEOUT')
    expect(asked(b!, 'evm_mine')).toBe(0)
  })

  it('an empty answer does not win while a request already running may have something', async () => {
    const [a, b] = await fakes(2)
    a!.fault({ kind: 'slow', ms: 200 })
    a!.answer((req) =>
      req.body?.method === 'eth_call' ? { body: { jsonrpc: '2.0', id: 1, result: '0xabc' } } : undefined,
    )
    b!.answer((req) =>
      req.body?.method === 'eth_call' ? { body: { jsonrpc: '2.0', id: 1, result: '0x' } } : undefined,
    )
    const hedge = { enabled: true, delayMs: 20, quantile: 0.9, minDelayMs: 20, maxDelayMs: 2000 }
    const { pool, order } = over([a!, b!], { hedge })
    pool.hedgeDelayMs = 20
    const answer = await send(pool, order, 'eth_call')
    expect(asked(b!, 'eth_call')).toBe(1) // the hedge went and answered "0x" first
    expect(resultOf(answer.body)).toBe('0xabc')
    expect(answer.upstream).toBe(a!.url.replace(/\/$/, ''))
    expect(answer.attempts).toBe(2)
    // Alone, the empty answer is the answer (an empty one is legitimate), and not asked of another node.
    const alone = over([b!, a!])
    const empty = await send(alone.pool, alone.order, 'eth_call')
    expect(resultOf(empty.body)).toBe('0x')
    expect(empty.attempts).toBe(1)
  })

  it("the call's deadline ends it whatever the nodes do", async () => {
    const ns = await fakes(2)
    for (const n of ns) n.fault({ kind: 'hang' })
    const { pool, order } = over(ns)
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const outcome = fail(
      run({
        pool,
        body: call('eth_call'),
        o: { method: 'eth_call' },
        now: Date.now(),
        order,
        totalTimeoutMs: 1500,
      }),
    )
    await vi.advanceTimersByTimeAsync(1500)
    const e = await outcome
    expect(e.code).toBe('UPSTREAM_TIMEOUT')
    expect(e.message).toBe('network net is unavailable: no answer within 1500 ms')
  })

  it('time the client already waited counts: a call past its deadline is not sent', async () => {
    const [a] = await fakes(1)
    const { pool, order } = over([a!])
    const now = Date.now()
    const e = await fail(
      run({
        pool,
        body: call('eth_call'),
        o: { method: 'eth_call' },
        origin: { arrivedAt: now - 6000 },
        now,
        order,
        totalTimeoutMs: 5000,
      }),
    )
    expect(e.code).toBe('UPSTREAM_TIMEOUT')
    expect(asked(a!, 'eth_call')).toBe(0)
  })

  it("a node over the gateway's own rate budget is skipped, not counted; all over it is the gateway's refusal", async () => {
    const [a, b] = await fakes(2)
    const { pool, order } = over([a!, b!], {}, [{ maxRequestsPerSecond: 1 }, { maxRequestsPerSecond: 1 }])
    expect((await send(pool, order, 'eth_call')).upstream).toBe(a!.url.replace(/\/$/, ''))
    const second = await send(pool, order, 'eth_call')
    expect(second.upstream).toBe(b!.url.replace(/\/$/, ''))
    expect(second.attempts).toBe(1)
    const e = await fail(send(pool, order, 'eth_call'))
    expect(e.code).toBe('UPSTREAM_RATE_LIMITED')
    expect(e.message).toContain('upstreams[].maxRequestsPerSecond')
    expect([asked(a!, 'eth_call'), asked(b!, 'eth_call')]).toEqual([1, 1])
  })

  it('an answer too large to take is not asked of another node', async () => {
    const [a, b] = await fakes(2)
    const big = 'f'.repeat(4096)
    for (const n of [a!, b!])
      n.answer((req) =>
        req.body?.method === 'eth_call' ? { body: { jsonrpc: '2.0', id: 1, result: big } } : undefined,
      )
    const { pool, order } = over([a!, b!])
    pool.settings.maxResponseBytes = 1024
    const e = await fail(send(pool, order, 'eth_call'))
    expect(e.code).toBe('UPSTREAM_ANSWER_TOO_LARGE')
    expect([asked(a!, 'eth_call'), asked(b!, 'eth_call')]).toEqual([1, 0])
  })

  it('a client that goes away cancels the call; no node: the reason none can take it', async () => {
    const [a] = await fakes(1)
    a!.fault({ kind: 'hang' })
    const { pool, order } = over([a!])
    const ac = new AbortController()
    const outcome = fail(send(pool, order, 'eth_call', { signal: ac.signal }))
    ac.abort()
    expect(await outcome).toBeInstanceOf(CancelledError)
    expect(await fail(send(pool, order, 'eth_call', { signal: ac.signal }))).toBeInstanceOf(CancelledError)
    expect(asked(a!, 'eth_call')).toBeLessThanOrEqual(1)

    const confirmed = poolState([{ url: a!.url }], {}, { checked: true, chainId: 31341 })
    const e = await fail(
      run({
        pool: confirmed,
        body: call('eth_call'),
        now: Date.now(),
        order: [],
        totalTimeoutMs: 5000,
      }),
    )
    expect(e.code).toBe('UPSTREAM_UNAVAILABLE')
    expect(e.message).toContain('no node has confirmed chain id 31341 yet')
  })

  it('eth_sendRawTransaction: a node that already has it (after an earlier attempt) answers with its hash', async () => {
    const [a, b] = await fakes(2)
    a!.fault({ kind: 'status', status: 503 })
    b!.answer((req) =>
      req.body?.method === 'eth_sendRawTransaction'
        ? { body: { jsonrpc: '2.0', id: req.body.id, error: { code: -32000, message: 'already known' } } }
        : undefined,
    )
    const { pool, order } = over([a!, b!])
    const raw = '0x02f86b0180843b9aca00'
    const body = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'eth_sendRawTransaction', params: [raw] })
    const o = { method: 'eth_sendRawTransaction' }
    const answer = await run({ pool, body, o, now: Date.now(), order, totalTimeoutMs: 5000 })
    expect(answer.isError).toBe(false)
    expect(JSON.parse(answer.body.toString())).toEqual({
      jsonrpc: '2.0',
      id: 9,
      result: `0x${Buffer.from(keccak_256(Buffer.from(raw.slice(2), 'hex'))).toString('hex')}`,
    })
    expect(answer.attempts).toBe(2)
  })
})
