/**
 * The pool against misbehaving nodes, one test per failure mode: real HTTP servers (the scriptable fake node of
 * the e2e tests) and a real anvil, no mocks in between. Timings are asserted loosely (the machine is shared).
 */
import { keccak256 } from 'viem'
import { describe, expect, it } from 'vitest'
import { DEFAULT_UPSTREAM_POLICY } from './pool.ts'
import { CHAIN, call, faultHarness, resultOf, servedBy } from './faults.test-support.ts'

const { nodes, fake, pool } = faultHarness()

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
    while (a.requests.length === before && Date.now() - revivedAt < 20_000) {
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

describe("upstream faults: one node's own deadline (the one-node path)", () => {
  const onePool = async (connections: number) => {
    const a = await fake()
    const p = await pool([{ url: a.url }], {}, 300, connections)
    a.fault({ kind: 'hang' }) // after the pool's start-up check of the chain id
    return { a, p }
  }

  it('a hanging node: the call fails with the timeout error at its deadline, not up to a second late', async () => {
    const { p } = await onePool(4)
    const started = performance.now()
    const err = await p.send(call('eth_getBalance', ['0x01', 'latest'])).catch((e: unknown) => e)
    const took = performance.now() - started
    expect(err).toMatchObject({ code: 'UPSTREAM_TIMEOUT' })
    expect(took).toBeGreaterThanOrEqual(290)
    expect(took).toBeLessThan(500)
  })

  it('a call queued behind a hanging one (every connection busy) fails at its own deadline too', async () => {
    const { a, p } = await onePool(1)
    const started = performance.now()
    const ends = [1, 2].map((i) =>
      p.send(call('eth_getBalance', [`0x0${i}`, 'latest'], i)).then(
        () => ({ ok: true, ms: performance.now() - started }),
        (e: { code?: string }) => ({ ok: false, code: e.code, ms: performance.now() - started }),
      ),
    )
    for (const end of await Promise.all(ends)) {
      expect(end).toMatchObject({ ok: false, code: 'UPSTREAM_TIMEOUT' })
      expect(end.ms).toBeLessThan(700)
    }
    a.fault(undefined)
    // The connection is free again: the next call is answered.
    expect(resultOf((await p.send(call('eth_chainId'))).body)).toBe(CHAIN)
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

describe('upstream faults: a transaction the gateway sent twice within one call', () => {
  const RAW = '0x02f86c827a6d80'
  const alreadyKnown = (req: { body: any }) =>
    req.body?.method === 'eth_sendRawTransaction'
      ? { body: { jsonrpc: '2.0', id: req.body.id, error: { code: -32000, message: 'already known' } } }
      : undefined

  it('the first node took it and hung; "already known" from the next node is the hash (idempotent call)', async () => {
    const [a, b] = [await fake(), await fake()]
    const p = await pool([{ url: a.url, timeoutMs: 300 }, { url: b.url }])
    a.fault({ kind: 'hang' })
    b.answer(alreadyKnown)
    const answer = await p.send(call('eth_sendRawTransaction', [RAW], 5), { method: 'eth_sendRawTransaction' })
    expect(JSON.parse(answer.body.toString())).toEqual({ jsonrpc: '2.0', id: 5, result: keccak256(RAW) })
    expect(answer.attempts).toBe(2)
  })

  it('a node skipped over its rate budget sent nothing: "already known" from the next is relayed', async () => {
    const [a, b] = [await fake(), await fake()]
    const p = await pool([{ url: a.url, maxRequestsPerSecond: 0.001 }, { url: b.url }])
    b.answer(alreadyKnown)
    const answer = await p.send(call('eth_sendRawTransaction', [RAW], 6), { method: 'eth_sendRawTransaction' })
    expect(JSON.parse(answer.body.toString())).toEqual({
      jsonrpc: '2.0',
      id: 6,
      error: { code: -32000, message: 'already known' },
    })
    expect(a.requests.filter((r) => r.body?.method === 'eth_sendRawTransaction')).toEqual([])
  })
})
