/**
 * Nodes that answer, but not with a JSON-RPC answer to the call (garbage, cut short, the wrong id, an HTML page,
 * a redirect, a body that trickles or never ends), nodes that answer errors only they have (a method they lack, a
 * block they have not reached), and the credit side of failing over, hedging and all nodes being down — on the
 * real gateway, with the scriptable fake node (docs/upstreams.md, "What a node's answer must be"; docs/errors.md).
 * Each case: alone, the client gets the documented gateway error, free; with a good node beside it, the client
 * gets the good node's answer, charged once.
 */
import { gzipSync } from 'node:zlib'
import { afterEach, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { queryUpstreamUsage } from '../../src/usage/upstream-usage-report.ts'
import { queryUsage } from '../../src/usage/queries.ts'
import { startFakeNode, type FakeNode, type FakeReply, type FakeRequest } from '../support/fake-node.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

const CHAIN = 31341
const PRICE = 80 // eth_getBalance
let nodes: FakeNode[] = []
let servers: TestServer[] = []
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()))
  await Promise.all(nodes.map((n) => n.close()))
  servers = []
  nodes = []
})

/**
 * The bad node answers eth_getBalance (alone or in a batch) as `reply` says; everything else (chain id, heads) as a
 * node.
 */
const onBalance = (reply: (req: FakeRequest) => FakeReply) => (req: FakeRequest) =>
  (Array.isArray(req.body) ? req.body : [req.body]).some((c: { method?: string }) => c?.method === 'eth_getBalance')
    ? reply(req)
    : undefined
const node = async (script?: (req: FakeRequest) => FakeReply | undefined) => {
  const n = await startFakeNode(`0x${CHAIN.toString(16)}`, script)
  nodes.push(n)
  return n
}
const gateway = async (
  list: FakeNode[],
  extra: { upstreamPolicy?: object; maxResponseBytes?: number; timeoutMs?: number } = {},
) => {
  const s = await startTestServer({
    networks: [
      {
        name: 'remote',
        chainId: CHAIN,
        upstreams: list.map((n) => ({ url: n.url, timeoutMs: extra.timeoutMs ?? 1000 })),
        upstreamPolicy: { totalTimeoutMs: 1500, ...extra.upstreamPolicy },
        ...(extra.maxResponseBytes ? { maxResponseBytes: extra.maxResponseBytes } : {}),
      },
    ],
    gateway: { operations: { healthCacheMs: 0 } },
  })
  servers.push(s)
  return s
}
let n = 0
/** eth_getBalance of a new address each time (nothing cached or shared between calls). */
const balance = (s: TestServer, id = ++n) =>
  s.rpc(call('eth_getBalance', [`0x${(1000 + n).toString(16).padStart(40, '0')}`, 'latest'], id), { network: 'remote' })
const balanceBatch = (s: TestServer) =>
  s.rpc(
    [
      call('eth_getBalance', [`0x${(5000 + ++n).toString(16).padStart(40, '0')}`, 'latest'], 'a'),
      call('eth_blockNumber', [], 'b'),
    ],
    { network: 'remote' },
  )
const stateOf = async (s: TestServer, x: FakeNode) =>
  ((await (await request(`${s.url}/healthz`)).body.json()) as any).upstreams.remote.find(
    (u: { upstream: string }) => u.upstream === x.url.replace(/\/$/, ''),
  )
const askedBalance = (x: FakeNode) => x.requests.filter((r) => JSON.stringify(r.body).includes('eth_getBalance')).length
async function ledger(s: TestServer) {
  await s.parts.ledger.flush()
  await s.parts.upstreamUsage.flush()
  const usage = await queryUsage(s.parts.database.db, {
    day: new Date().toISOString().slice(0, 10),
    by: 'method',
    accountId: s.account.id,
  })
  const upstream = await queryUpstreamUsage(s.parts.database.db, { fromSec: 0, toSec: 2 ** 40, byMethod: true })
  const rows = upstream.rows.filter((r) => r.method === 'eth_getBalance')
  return { calls: usage.total.calls, credits: usage.total.credits, attempts: rows.reduce((a, r) => a + r.attempts, 0) }
}

const id = (req: FakeRequest) => req.body.id
const rpcOf = (req: FakeRequest, member: object) => ({ jsonrpc: '2.0', id: id(req), ...member })
/**
 * A body written by hand: status, headers, then the chunks with `gapMs` between them (and a close instead of the end).
 */
const raw = (head: Record<string, string>, chunks: string[], o: { gapMs?: number; cut?: boolean } = {}): FakeReply => ({
  raw: (res) => {
    res.writeHead(200, { 'content-type': 'application/json', ...head })
    let i = 0
    const next = () => {
      if (res.destroyed) return
      if (i < chunks.length) {
        res.write(chunks[i++])
        setTimeout(next, o.gapMs ?? 5)
      } else if (o.cut) res.socket?.destroy()
      else res.end()
    }
    next()
  },
})

/** Single answers that are not a JSON-RPC answer to the call, and the fault the gateway names. */
const MALFORMED: [string, (req: FakeRequest) => FakeReply, RegExp][] = [
  ['not JSON', () => ({ body: 'hello' }), /not a JSON object/],
  [
    'an HTML error page with HTTP 200',
    () => ({ body: '<html><body>Bad gateway</body></html>', headers: { 'content-type': 'text/html' } }),
    /not a JSON object/,
  ],
  ['an empty body with HTTP 200', () => ({ body: '' }), /an empty body/],
  ['garbage after a brace', () => ({ body: '{garbage' }), /not JSON/],
  [
    'truncated JSON (sent whole, with its length)',
    (r) => ({ body: `{"jsonrpc":"2.0","id":${id(r)},"result":"0x` }),
    /cut short/,
  ],
  ['the wrong id', () => ({ body: { jsonrpc: '2.0', id: 999, result: '0x2' } }), /id 999 for a call with id/],
  ['neither result nor error', (r) => ({ body: { jsonrpc: '2.0', id: id(r) } }), /neither a result nor an error/],
  [
    'an error object without code or message',
    (r) => ({ body: rpcOf(r, { error: {} }) }),
    /an error without an integer code/,
  ],
  [
    'an error object without a message',
    (r) => ({ body: rpcOf(r, { error: { code: -32000 } }) }),
    /an error without a message/,
  ],
  [
    'JSON that is not JSON-RPC, with HTTP 404',
    () => ({ status: 404, body: { message: 'no Route matched with those values' } }),
    /HTTP 404 .*neither a result nor an error/,
  ],
  [
    'a redirect (HTTP 302) with a JSON-RPC body',
    (r) => ({ status: 302, body: rpcOf(r, { result: '0x3' }), headers: { location: 'https://elsewhere.example/' } }),
    /HTTP 302 \(a redirect: not followed; fix the upstream URL\)/,
  ],
  [
    'a redirect (HTTP 301) without a body',
    () => ({ status: 301, body: '', headers: { location: 'https://elsewhere.example/' } }),
    /HTTP 301 \(a redirect/,
  ],
  [
    'HTTP 500 with a JSON-RPC error body',
    (r) => ({ status: 500, body: rpcOf(r, { error: { code: -32000, message: 'header not found' } }) }),
    /HTTP 500/,
  ], // the client's own (a revert) is relayed: upstream-error-status.test.ts
  [
    'HTTP 502 with a JSON-RPC error body',
    (r) => ({ status: 502, body: rpcOf(r, { error: { code: -32603, message: 'bad gateway' } }) }),
    /HTTP 502/,
  ],
  [
    'HTTP 503 with a JSON-RPC error body',
    (r) => ({ status: 503, body: rpcOf(r, { error: { code: -32603, message: 'unavailable' } }) }),
    /HTTP 503/,
  ],
  [
    'HTTP 504 with a JSON-RPC error body',
    (r) => ({ status: 504, body: rpcOf(r, { error: { code: -32603, message: 'timeout' } }) }),
    /HTTP 504/,
  ],
  [
    'a connection closed mid-body',
    (r) => raw({ 'content-length': '100' }, [`{"jsonrpc":"2.0","id":${id(r)},`], { cut: true }),
    /network remote is unavailable/,
  ],
  [
    'a body in an encoding it cannot be read in',
    () => ({ body: 'xxxx', headers: { 'content-encoding': 'gzip' } }),
    /encoding it could not be read in \(gzip\)/,
  ],
]

describe('a node answering something that is not a JSON-RPC answer to the call', () => {
  for (const [name, reply, fault] of MALFORMED) {
    it(`${name}: alone, UPSTREAM_UNAVAILABLE (503), free, naming the fault; beside a good node, the good answer, charged once`, async () => {
      const bad = await node(onBalance(reply))
      const alone = await gateway([bad])
      const r = await balance(alone, 1)
      expect([r.status, r.credits, r.json().id, r.json().error?.code]).toEqual([503, 0, 1, -32603])
      expect(r.json().error.message).toMatch(/^network remote is unavailable: /)
      expect(r.json().error.message).toMatch(fault)
      expect(r.text).not.toContain('"result"')
      expect(await ledger(alone)).toMatchObject({ calls: 1, credits: 0 })

      const good = await node()
      const both = await gateway([bad, good])
      const asked = askedBalance(bad)
      for (let i = 0; i < 4; i++) {
        const ok = await balance(both, 10 + i)
        expect([ok.status, ok.credits, ok.json()]).toEqual([200, PRICE, { jsonrpc: '2.0', id: 10 + i, result: '0x1' }])
      }
      expect(askedBalance(bad)).toBeGreaterThan(asked) // it was asked, and its answer was not passed on
      expect(await ledger(both)).toMatchObject({ calls: 4, credits: 4 * PRICE })
      // A batch too: retried as a whole on the good node.
      const batch = await balanceBatch(both)
      expect(batch.json()).toEqual([
        { jsonrpc: '2.0', id: 'a', result: '0x1' },
        { jsonrpc: '2.0', id: 'b', result: '0x1' },
      ])
    })
  }

  it('gzip and chunked answers are read as the answer they carry', async () => {
    const gz = await node(
      onBalance((r) => ({
        raw: (res) => {
          const b = gzipSync(JSON.stringify(rpcOf(r, { result: '0x5' })))
          res.writeHead(200, {
            'content-type': 'application/json',
            'content-encoding': 'gzip',
            'content-length': String(b.length),
          })
          res.end(b)
        },
      })),
    )
    const chunked = await node(
      onBalance((r) => raw({}, [`{"jsonrpc":"2.0","id":${id(r)},`, '"result":"0x6"}'], { gapMs: 20 })),
    )
    for (const [x, result] of [
      [gz, '0x5'],
      [chunked, '0x6'],
    ] as const) {
      const r = await balance(await gateway([x]), 3)
      expect([r.status, r.credits, r.json()]).toEqual([200, PRICE, { jsonrpc: '2.0', id: 3, result }])
    }
  })
})

describe('a node reached over WebSocket answering something that is not a JSON-RPC answer', () => {
  it('neither result nor error: alone, UPSTREAM_UNAVAILABLE (503), free; beside a good node, the good answer', async () => {
    const bad = await node(onBalance((r) => ({ body: { jsonrpc: '2.0', id: id(r) } })))
    const s = await startTestServer({
      networks: [{ name: 'remote', chainId: CHAIN, upstreams: [{ url: bad.wsUrl, timeoutMs: 1000 }] }],
    })
    servers.push(s)
    const r = await balance(s, 1)
    expect([r.status, r.credits, r.json().error?.code]).toEqual([503, 0, -32603])
    expect(r.json().error.message).toMatch(
      new RegExp(
        'node answered over WebSocket with something that is not a JSON-RPC answer to the call: ' +
          'neither a result nor an error',
      ),
    )
    const good = await node()
    const both = await startTestServer({
      networks: [{ name: 'remote', chainId: CHAIN, upstreams: [{ url: bad.wsUrl }, { url: good.url }] }],
    })
    servers.push(both)
    for (let i = 0; i < 3; i++)
      expect((await balance(both, 10 + i)).json()).toEqual({ jsonrpc: '2.0', id: 10 + i, result: '0x1' })
  })
})

describe('a batch answered wrongly', () => {
  const entry = (c: { id: unknown; method: string }, result = '0x1') => ({ jsonrpc: '2.0', id: c.id, result })
  const CASES: [string, (req: FakeRequest) => unknown, RegExp | undefined][] = [
    ['an entry missing', (r) => [entry(r.body[0])], /no answer for 1 of the 2 calls/],
    [
      'an extra entry',
      (r) => [...r.body.map((c: any) => entry(c)), entry({ id: 77, method: '' })],
      /an answer for id 77, not asked or given twice/,
    ],
    ['a duplicate entry', (r) => [entry(r.body[0]), entry(r.body[0])], /not asked or given twice/],
    [
      'an object instead of an array',
      () => ({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch requests are not supported' } }),
      /not an array for a batch \(the node's error: batch requests are not supported\)/,
    ],
    [
      'out of order (a valid answer)',
      (r) => [...r.body].reverse().map((c: any) => entry(c, c.method === 'eth_getBalance' ? '0x7' : '0x8')),
      undefined,
    ],
  ]
  for (const [name, answer, fault] of CASES) {
    it(`${name}: ${fault ? 'alone, each call gets the unavailable error, free; beside a good node, its answers' : 'each call gets its own answer'}`, async () => {
      const bad = await node(
        onBalance((r) => ({ body: Array.isArray(r.body) ? answer(r) : rpcOf(r, { result: '0x1' }) })),
      )
      const alone = await gateway([bad])
      const r = await balanceBatch(alone)
      if (fault === undefined) {
        expect([r.status, r.json()]).toEqual([
          200,
          [
            { jsonrpc: '2.0', id: 'a', result: '0x7' },
            { jsonrpc: '2.0', id: 'b', result: '0x8' },
          ],
        ])
        expect(r.credits).toBeGreaterThan(0)
        return
      }
      expect(r.json().map((a: any) => [a.id, a.error?.code])).toEqual([
        ['a', -32603],
        ['b', -32603],
      ])
      expect(r.json()[0].error.message).toMatch(fault)
      expect(r.credits).toBe(0)
      const good = await node()
      const both = await gateway([bad, good])
      for (let i = 0; i < 3; i++)
        expect((await balanceBatch(both)).json()).toEqual([
          { jsonrpc: '2.0', id: 'a', result: '0x1' },
          { jsonrpc: '2.0', id: 'b', result: '0x1' },
        ])
    })
  }
})

describe('slow, endless and huge answers', () => {
  const drip = (r: FakeRequest) => raw({}, `{"jsonrpc":"2.0","id":${id(r)},"result":"0x7"}`.split(''), { gapMs: 100 })

  it('a body that trickles past the deadline (headers at once, a byte every 100 ms): alone, UPSTREAM_TIMEOUT (504) at the total deadline, free', async () => {
    const s = await gateway([await node(onBalance(drip))], { timeoutMs: 5000 }) // the node's own timeout is later
    const started = Date.now()
    const r = await balance(s, 1)
    const took = Date.now() - started
    expect([r.status, r.credits, r.json().error?.code]).toEqual([504, 0, -32603])
    expect(r.json().error.message).toMatch(/no answer within 1500 ms/)
    expect(took).toBeGreaterThanOrEqual(1400)
    expect(took).toBeLessThan(2500) // the whole answer would take 3.9 s
  })

  it("the same on the one-node path (a node's own timeout, no total deadline set): the request ends at the node's timeout", async () => {
    const bad = await node(onBalance(drip))
    const s = await gateway([bad], { upstreamPolicy: { totalTimeoutMs: 10_000 }, timeoutMs: 800 })
    await balance(s, 1) // wakes head polling: from now on the pool takes its one-node path
    const started = Date.now()
    const r = await balance(s, 2)
    expect([r.status, r.credits]).toEqual([504, 0])
    expect(Date.now() - started).toBeLessThan(1600)
  })

  it('a body that trickles, beside a good node: the good answer, long before the deadline', async () => {
    const bad = await node(onBalance(drip))
    const good = await node()
    const s = await gateway([bad, good], { upstreamPolicy: { totalTimeoutMs: 5000, hedge: { delayMs: 50 } } })
    for (let i = 0; i < 3; i++) {
      const started = Date.now()
      const r = await balance(s, i + 1)
      expect([r.status, r.credits, r.json().result]).toEqual([200, PRICE, '0x1'])
      expect(Date.now() - started).toBeLessThan(1000)
    }
  })

  it('an answer larger than networks[].maxResponseBytes: cut off, -32005 "response size exceeded" (HTTP 200), free, not retried; the node stays healthy', async () => {
    const big = await node(
      onBalance((r) => ({ body: `{"jsonrpc":"2.0","id":${id(r)},"result":"0x${'ab'.repeat(1024 * 1024)}"}` })),
    )
    const other = await node(
      onBalance((r) => ({ body: `{"jsonrpc":"2.0","id":${id(r)},"result":"0x${'cd'.repeat(1024 * 1024)}"}` })),
    )
    const s = await gateway([big, other], { maxResponseBytes: 1024 * 1024 })
    const r = await balance(s, 1)
    expect([r.status, r.credits, r.json().id, r.json().error?.code]).toEqual([200, 0, 1, -32005])
    expect(r.json().error.message).toMatch(
      new RegExp(
        '^response size exceeded: the answer from network remote is larger than 1048576 bytes ' +
          String.raw`\(networks\[\]\.maxResponseBytes\)`,
      ),
    )
    expect(askedBalance(big) + askedBalance(other)).toBe(1) // another node would answer as much: not asked
    expect(await stateOf(s, big)).toMatchObject({ state: 'healthy' })
    expect(await stateOf(s, other)).toMatchObject({ state: 'healthy' })
    expect(await ledger(s)).toMatchObject({ calls: 1, credits: 0 })
  })

  it('a gzip answer that inflates past maxResponseBytes is cut off the same way', async () => {
    const bomb = await node(
      onBalance((r) => ({
        raw: (res) => {
          const b = gzipSync(`{"jsonrpc":"2.0","id":${id(r)},"result":"0x${'0'.repeat(8 * 1024 * 1024)}"}`)
          res.writeHead(200, {
            'content-type': 'application/json',
            'content-encoding': 'gzip',
            'content-length': String(b.length),
          })
          res.end(b)
        },
      })),
    )
    const r = await balance(await gateway([bomb], { maxResponseBytes: 1024 * 1024 }), 1)
    expect([r.status, r.credits, r.json().error?.code]).toEqual([200, 0, -32005])
  })
})

describe('errors only one node has', () => {
  const CASES: [string, (req: FakeRequest) => FakeReply][] = [
    [
      '-32601 method not found (a node without the method)',
      (r) => ({
        body: rpcOf(r, {
          error: { code: -32601, message: 'the method eth_getBalance does not exist/is not available' },
        }),
      }),
    ],
    [
      '"header not found" (a lagging node)',
      (r) => ({ body: rpcOf(r, { error: { code: -32000, message: 'header not found' } }) }),
    ],
    [
      '-32000 "missing trie node" (a pruned node)',
      (r) => ({ body: rpcOf(r, { error: { code: -32000, message: 'missing trie node 5e2d… (path )' } }) }),
    ],
  ]
  for (const [name, reply] of CASES) {
    it(`${name}: another node is asked and its answer served; alone, the node's error is relayed and charged`, async () => {
      const bad = await node(onBalance(reply))
      const good = await node()
      const both = await gateway([bad, good])
      for (let i = 0; i < 4; i++)
        expect((await balance(both, i + 1)).json()).toEqual({ jsonrpc: '2.0', id: i + 1, result: '0x1' })
      expect(askedBalance(bad)).toBeGreaterThan(0)
      expect(await ledger(both)).toMatchObject({ calls: 4, credits: 4 * PRICE })
      const alone = await balance(await gateway([bad]), 9)
      expect([alone.status, alone.credits, alone.json()]).toEqual([
        200,
        PRICE,
        reply({ body: { id: 9 } } as FakeRequest).body,
      ])
    })
  }
})

describe('HTTP 429 with Retry-After', () => {
  for (const [form, header] of [
    ['seconds', () => '20'],
    ['an HTTP date', () => new Date(Date.now() + 20_000).toUTCString()],
  ] as const) {
    it(`in ${form}: the node is out of rotation for that long, and the client is told when to try again`, async () => {
      const bad = await node(onBalance(() => ({ status: 429, body: '', headers: { 'retry-after': header() } })))
      const s = await gateway([bad])
      const r = await balance(s, 1)
      expect([r.status, r.credits]).toEqual([503, 0])
      expect(r.json().error.message).toMatch(/rate-limiting this gateway .*\(HTTP 429\); try again in (19|20) s/)
      expect(await stateOf(s, bad)).toMatchObject({
        state: 'cordoned',
        cause: 'rate-limited',
        reason: expect.stringMatching(/out of rotation for (19|20) s/),
      })
    })
  }
})

describe('every node down', () => {
  it('refused connections: the documented UPSTREAM_UNAVAILABLE (503) at once, free, in a batch too, and the ledger shows 0 credits', async () => {
    const [a, b] = [await node(), await node()]
    const s = await gateway([a, b])
    await a.kill()
    await b.kill()
    const started = Date.now()
    const r = await balance(s, 1)
    expect(Date.now() - started).toBeLessThan(1000)
    expect([r.status, r.credits, r.json().id, r.json().error?.code]).toEqual([503, 0, 1, -32603])
    expect(r.json().error.message).toMatch(/^network remote is unavailable: the node refused the connection/)
    const batch = await balanceBatch(s)
    expect([batch.status, batch.credits]).toEqual([200, 0])
    expect(batch.json().map((x: any) => [x.id, x.error?.code])).toEqual([
      ['a', -32603],
      ['b', -32603],
    ])
    expect(await ledger(s)).toMatchObject({ calls: 3, credits: 0 })
  })

  it('hanging nodes: the documented UPSTREAM_TIMEOUT (504) at the total deadline, free', async () => {
    const [a, b] = [await node(), await node()]
    const s = await gateway([a, b])
    a.fault({ kind: 'hang' })
    b.fault({ kind: 'hang' })
    const started = Date.now()
    const r = await balance(s, 1)
    expect(Date.now() - started).toBeLessThan(2500)
    expect([r.status, r.credits, r.json().error?.code]).toEqual([504, 0, -32603])
    expect(await ledger(s)).toMatchObject({ calls: 1, credits: 0 })
  })
})

describe('the credit side', () => {
  it('a call that failed over is charged once; its upstream requests are both counted', async () => {
    const bad = await node(onBalance(() => ({ status: 502, body: 'bad gateway' })))
    const good = await node()
    const s = await gateway([bad, good], { upstreamPolicy: { hedge: { enabled: false } } })
    const answers = [await balance(s, 1), await balance(s, 2)]
    for (const r of answers) expect([r.status, r.credits]).toEqual([200, PRICE])
    expect(askedBalance(bad)).toBe(1) // one call failed over; then it cools down
    expect(await ledger(s)).toEqual({ calls: 2, credits: 2 * PRICE, attempts: 3 })
  })

  it('a hedged call is charged once', async () => {
    const slow = await node()
    const fast = await node()
    slow.answer(
      onBalance((r) => ({
        raw: (res) =>
          setTimeout(() => {
            res.writeHead(200, { 'content-type': 'application/json' })
            res.end(JSON.stringify(rpcOf(r, { result: '0x9' })))
          }, 400),
      })),
    )
    const s = await gateway([slow, fast], { upstreamPolicy: { hedge: { delayMs: 30 } } })
    for (let i = 0; i < 2; i++) expect(await balance(s, i + 1)).toMatchObject({ status: 200, credits: PRICE })
    // One call went to both (more when a loaded machine delays the fast node past the hedge delay too).
    expect(askedBalance(slow) + askedBalance(fast)).toBeGreaterThanOrEqual(3)
    const recorded = await ledger(s)
    expect(recorded).toMatchObject({ calls: 2, credits: 2 * PRICE })
    expect(recorded.attempts).toBeGreaterThanOrEqual(3)
  })

  it('a client that disconnects mid-call (HTTP): the call runs to its end and is not charged — the answer cannot be delivered', async () => {
    const slow = await node(
      onBalance((r) => ({
        raw: (res) =>
          setTimeout(() => {
            res.writeHead(200, { 'content-type': 'application/json' })
            res.end(JSON.stringify(rpcOf(r, { result: '0x9' })))
          }, 300),
      })),
    )
    const s = await gateway([slow])
    const ac = new AbortController()
    const pending = request(`${s.endpoint('remote')}`, {
      method: 'POST',
      body: JSON.stringify(call('eth_getBalance', [`0x${'ee'.repeat(20)}`, 'latest'], 1)),
      headers: { 'content-type': 'application/json' },
      signal: ac.signal,
    })
    setTimeout(() => ac.abort(), 100)
    await expect(pending).rejects.toThrow()
    await new Promise((r) => setTimeout(r, 400))
    expect(askedBalance(slow)).toBe(1)
    expect(await ledger(s)).toMatchObject({ credits: 0 })
    // The same call with the client waiting is charged.
    expect(await balance(s, 2)).toMatchObject({ status: 200, credits: PRICE })
    expect(await ledger(s)).toMatchObject({ credits: PRICE })
  })
})

describe('a node that is never reached', () => {
  it('a host name that does not resolve: even a node-local call (personal_listAccounts) goes to the next node, since the request never left', async () => {
    const { createUpstreamPool } = await import('../../src/upstreams/pool/pool.ts')
    const good = await node()
    const p = createUpstreamPool('remote', [{ url: 'http://chaingate-test.invalid/' }, { url: good.url }], {
      timeoutMs: 3000,
    })
    try {
      const answers = []
      for (let i = 0; i < 4; i++)
        answers.push(
          await p.send(JSON.stringify(call('personal_listAccounts', [], i)), { method: 'personal_listAccounts' }),
        )
      expect(answers.map((a) => JSON.parse(a.body.toString()).result)).toEqual(['0x1', '0x1', '0x1', '0x1'])
      expect(Math.max(...answers.map((a) => a.attempts))).toBe(2) // the unresolvable node was tried first once
      expect(good.requests.filter((r) => r.body.method === 'personal_listAccounts')).toHaveLength(4)
    } finally {
      await p.close()
    }
  })
})
