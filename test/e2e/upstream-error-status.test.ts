/**
 * A node answering the client's own JSON-RPC error (a revert, invalid params, a method it lacks) with an HTTP
 * error status — as several providers and node builds do — on the real gateway, with the scriptable fake node
 * (docs/upstreams.md, "Retries, deadline and hedging"; docs/errors.md). Such an answer is relayed exactly like the
 * same body on HTTP 200: HTTP 200 to the client, the node's error (revert data kept), charged as the method, not
 * retried, the node left healthy. Any other error status (a server error, missing data, HTML, no body) stays a node
 * failure: the call goes to the next node, and with none left the client gets UPSTREAM_UNAVAILABLE, free.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { queryUsage } from '../../src/usage/queries.ts'
import { startFakeNode, type FakeNode, type FakeReply, type FakeRequest } from '../support/fake-node.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

const CHAIN = 31341
const PRICE = 80 // eth_call and eth_getBalance
let nodes: FakeNode[] = []
let servers: TestServer[] = []
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()))
  await Promise.all(nodes.map((x) => x.close()))
  servers = []
  nodes = []
})

const entries = (req: FakeRequest): { id?: unknown; method?: string }[] =>
  Array.isArray(req.body) ? req.body : [req.body]
/** The node answers eth_call (alone or in a batch) as `reply` says; chain id, heads and the rest as a node. */
const onCall = (reply: (req: FakeRequest) => FakeReply) => (req: FakeRequest) =>
  entries(req).some((c) => c?.method === 'eth_call') ? reply(req) : undefined
const node = async (script?: (req: FakeRequest) => FakeReply | undefined) => {
  const x = await startFakeNode(`0x${CHAIN.toString(16)}`, script)
  nodes.push(x)
  return x
}
/** A network of these nodes; the second one, when given, is a fallback: the retry target, never the first pick. */
const gateway = async (first: FakeNode, fallback?: FakeNode) => {
  const s = await startTestServer({
    networks: [
      {
        name: 'remote',
        chainId: CHAIN,
        upstreams: [
          { url: first.url, timeoutMs: 1000 },
          ...(fallback ? [{ url: fallback.url, timeoutMs: 1000, role: 'fallback' }] : []),
        ],
        upstreamPolicy: { totalTimeoutMs: 1500, hedge: { enabled: false } },
      },
    ],
    gateway: { operations: { healthCacheMs: 0 } },
  })
  servers.push(s)
  return s
}
let n = 0
/** eth_call to a new address each time (nothing cached or shared between calls). */
const ethCall = (s: TestServer, id: string | number) =>
  s.rpc(
    call('eth_call', [{ to: `0x${(7000 + ++n).toString(16).padStart(40, '0')}`, data: '0x8da5cb5b' }, 'latest'], id),
    { network: 'remote' },
  )
const asked = (x: FakeNode, method = 'eth_call') =>
  x.requests.filter((r) => entries(r).some((c) => c?.method === method)).length
const stateOf = async (s: TestServer, x: FakeNode) =>
  ((await (await request(`${s.url}/healthz`)).body.json()) as any).upstreams.remote.find(
    (u: { upstream: string }) => u.upstream === x.url.replace(/\/$/, ''),
  )
async function ledger(s: TestServer) {
  await s.parts.ledger.flush()
  const usage = await queryUsage(s.parts.database.db, {
    day: new Date().toISOString().slice(0, 10),
    by: 'method',
    accountId: s.account.id,
  })
  return { calls: usage.total.calls, credits: usage.total.credits }
}

const REVERT_DATA =
  '0x08c379a0' +
  '0000000000000000000000000000000000000000000000000000000000000020' +
  '000000000000000000000000000000000000000000000000000000000000000c' +
  '6e6f7420746865206f776e6572000000000000000000000000000000000000000000'
const revert = (id: unknown) => ({
  jsonrpc: '2.0',
  id,
  error: { code: 3, message: 'execution reverted: not the owner', data: REVERT_DATA },
})
const invalidParams = (id: unknown) => ({
  jsonrpc: '2.0',
  id,
  error: { code: -32602, message: 'invalid argument 0: json: cannot unmarshal hex string without 0x prefix' },
})
const noMethod = (id: unknown) => ({
  jsonrpc: '2.0',
  id,
  error: { code: -32601, message: 'the method eth_call does not exist/is not available' },
})

describe("a node answering the client's own JSON-RPC error with an HTTP error status", () => {
  const RELAYED: [string, number, (id: unknown) => object][] = [
    ['HTTP 500 with an execution revert (code 3, revert data)', 500, revert],
    ['HTTP 400 with -32602 invalid params', 400, invalidParams],
    [
      'HTTP 500 with -32000 "execution reverted" (written by hand, spaced)',
      500,
      (id) => ({ jsonrpc: '2.0', id, error: { code: -32000, message: 'execution reverted' } }),
    ],
  ]
  for (const [name, status, body] of RELAYED) {
    it(`${name}: relayed as on HTTP 200 (HTTP 200, the same body and charge), not retried — the fallback is never asked — and the node stays healthy`, async () => {
      // The reference: the same body with HTTP 200.
      const on200 = await ethCall(await gateway(await node(onCall((r) => ({ body: body(r.body.id) })))), 'ref')
      expect([on200.status, on200.credits]).toEqual([200, PRICE])
      // Bytes written by hand (spaces and all): the client gets them as the node wrote them, with its own id.
      const bad = await node(
        onCall((r) => ({
          raw: (res) => {
            res.writeHead(status, { 'content-type': 'application/json' })
            res.end(JSON.stringify(body(r.body.id), null, 1))
          },
        })),
      )
      const good = await node()
      const s = await gateway(bad, good)
      for (let i = 0; i < 6; i++) {
        // more than breaker.failureThreshold (5): a node failure would open it
        const r = await ethCall(s, `c-${i}`)
        expect([r.status, r.credits, r.json()]).toEqual([200, PRICE, body(`c-${i}`)])
        expect(r.text).toBe(JSON.stringify(body(`c-${i}`), null, 1))
        expect(r.json()).toEqual({ ...on200.json(), id: `c-${i}` })
      }
      expect([asked(bad), asked(good)]).toEqual([6, 0])
      expect(await stateOf(s, bad)).toMatchObject({ state: 'healthy' })
      expect(await ledger(s)).toMatchObject({ calls: 6, credits: 6 * PRICE })
    })
  }

  it("the revert with the client's numeric id and alone on its network (the one-node path): the revert data reaches the client", async () => {
    const s = await gateway(await node(onCall((r) => ({ status: 500, body: revert(r.body.id) }))))
    for (let i = 1; i <= 3; i++) {
      const r = await ethCall(s, i)
      expect([r.status, r.credits, r.json()]).toEqual([200, PRICE, revert(i)])
      expect(r.json().error.data).toBe(REVERT_DATA)
    }
  })

  it("HTTP 500 with -32601 (a method this node lacks): as on HTTP 200 — another node is asked first; alone, the node's error is relayed and charged", async () => {
    const bad = await node(onCall((r) => ({ status: 500, body: noMethod(r.body.id) })))
    const good = await node()
    const s = await gateway(bad, good)
    for (let i = 0; i < 3; i++) expect((await ethCall(s, i)).json()).toEqual({ jsonrpc: '2.0', id: i, result: '0x1' })
    expect([asked(bad), asked(good)]).toEqual([3, 3])
    expect(await stateOf(s, bad)).toMatchObject({ state: 'healthy' }) // an answer, not a failure
    const alone = await ethCall(await gateway(bad), 9)
    expect([alone.status, alone.credits, alone.json()]).toEqual([200, PRICE, noMethod(9)])
  })

  it('eth_sendRawTransaction answered HTTP 500 "already known" at the first attempt: the node\'s answer, as on HTTP 200', async () => {
    const raw =
      '0x02f86c827a6d8084b2d05e0084b2d05e00825208940000000000000000000000000000000000000001808080c001' +
      'a0aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' +
      'a0bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'
    const x = await node((r) =>
      r.body?.method === 'eth_sendRawTransaction'
        ? { status: 500, body: { jsonrpc: '2.0', id: r.body.id, error: { code: -32000, message: 'already known' } } }
        : undefined,
    )
    const good = await node()
    const s = await gateway(x, good)
    const r = await s.rpc(call('eth_sendRawTransaction', [raw], 4), { network: 'remote' })
    // A client's own send (no earlier attempt of this call could have delivered it): what the node says.
    expect([r.status, r.json().id, r.json().error]).toEqual([200, 4, { code: -32000, message: 'already known' }])
    expect(asked(good, 'eth_sendRawTransaction')).toBe(0)
  })
})

describe('any other HTTP error status stays a node failure', () => {
  const FAILURES: [string, (req: FakeRequest) => FakeReply, RegExp][] = [
    [
      'HTTP 500 with -32603 internal error',
      (r) => ({
        status: 500,
        body: { jsonrpc: '2.0', id: r.body.id, error: { code: -32603, message: 'internal error' } },
      }),
      /: node answered HTTP 500 \(the node's error: -32603 internal error\)$/,
    ],
    [
      'HTTP 500 with "header not found" (a node behind)',
      (r) => ({
        status: 500,
        body: { jsonrpc: '2.0', id: r.body.id, error: { code: -32000, message: 'header not found' } },
      }),
      /HTTP 500 \(the node's error: -32000 header not found\)$/,
    ],
    [
      'HTTP 502 with an HTML page',
      () => ({
        status: 502,
        body: '<html><body><h1>502 Bad Gateway</h1></body></html>',
        headers: { 'content-type': 'text/html' },
      }),
      /: node answered HTTP 502$/,
    ],
    ['HTTP 500 without a body', () => ({ status: 500, body: '' }), /: node answered HTTP 500$/],
    [
      'HTTP 500 with a revert for another call (another id)',
      (r) => ({ status: 500, body: revert(Number(r.body.id) + 1000) }),
      /: node answered HTTP 500$/,
    ],
    [
      'HTTP 400 with a result',
      (r) => ({ status: 400, body: { jsonrpc: '2.0', id: r.body.id, result: '0x2' } }),
      /HTTP 400 \(a result under an error status\)$/,
    ],
    [
      'HTTP 404 with JSON that is not JSON-RPC',
      () => ({ status: 404, body: { message: 'no Route matched' } }),
      /HTTP 404 with something that is not a JSON-RPC answer to the call: neither a result nor an error$/,
    ],
  ]
  for (const [name, reply, message] of FAILURES) {
    it(`${name}: alone, UPSTREAM_UNAVAILABLE (503), free, naming it; beside a fallback, the fallback's answer, charged once`, async () => {
      const bad = await node(onCall(reply))
      const alone = await ethCall(await gateway(bad), 1)
      expect([alone.status, alone.credits, alone.json().id, alone.json().error?.code]).toEqual([503, 0, 1, -32603])
      expect(alone.json().error.message).toMatch(/^network remote is unavailable: /)
      expect(alone.json().error.message).toMatch(message)

      const good = await node()
      const s = await gateway(bad, good)
      const before = asked(bad)
      const r = await ethCall(s, 2)
      expect([r.status, r.credits, r.json()]).toEqual([200, PRICE, { jsonrpc: '2.0', id: 2, result: '0x1' }])
      expect([asked(bad) - before, asked(good)]).toEqual([1, 1]) // tried, failed over
      expect(await stateOf(s, bad)).toMatchObject({ state: 'down', cause: 'failing' }) // cooling down, as after any 5xx
      expect(await ledger(s)).toMatchObject({ calls: 1, credits: PRICE })
    })
  }
})

describe('a provider refusal in the body of an HTTP error status', () => {
  it('HTTP 503 with -32005 "rate limit exceeded": the node is backed off as with HTTP 200 (rate-limited), the call goes to the fallback', async () => {
    const bad = await node(
      onCall((r) => ({
        status: 503,
        body: { jsonrpc: '2.0', id: r.body.id, error: { code: -32005, message: 'rate limit exceeded' } },
      })),
    )
    const good = await node()
    const s = await gateway(bad, good)
    const r = await ethCall(s, 1)
    expect([r.status, r.credits, r.json().result]).toEqual([200, PRICE, '0x1'])
    expect(await stateOf(s, bad)).toMatchObject({ state: 'cordoned', cause: 'rate-limited' })
  })
})

describe('a batch answered with an HTTP error status', () => {
  const batch = (s: TestServer) =>
    s.rpc(
      [
        call(
          'eth_call',
          [{ to: `0x${(9000 + ++n).toString(16).padStart(40, '0')}`, data: '0x8da5cb5b' }, 'latest'],
          'a',
        ),
        call('eth_getBalance', [`0x${(9000 + n).toString(16).padStart(40, '0')}`, 'latest'], 'b'),
        call('eth_getTransactionCount', [`0x${(9000 + n).toString(16).padStart(40, '0')}`, 'latest'], 'c'),
      ],
      { network: 'remote' },
    )
  const answer =
    (second: (id: unknown) => object) =>
    (r: FakeRequest): FakeReply => ({
      status: 500,
      body: entries(r).map((c) =>
        c.method === 'eth_call'
          ? revert(c.id)
          : c.method === 'eth_getBalance'
            ? second(c.id)
            : { jsonrpc: '2.0', id: c.id, result: '0x10' },
      ),
    })

  it("HTTP 500 with per-entry errors that are all the client's (a revert, invalid params) beside a result: each entry relayed and charged as on HTTP 200, not retried", async () => {
    const bad = await node(onCall(answer(invalidParams)))
    const good = await node()
    const s = await gateway(bad, good)
    const r = await batch(s)
    expect(r.status).toBe(200)
    expect(r.json()).toEqual([revert('a'), invalidParams('b'), { jsonrpc: '2.0', id: 'c', result: '0x10' }])
    expect([asked(bad), asked(good)]).toEqual([1, 0])
    // The same batch answered with HTTP 200 costs the same.
    const ref = await batch(
      await gateway(await node(onCall((req) => ({ ...answer(invalidParams)(req), status: 200 })))),
    )
    expect(ref.json()).toEqual(r.json())
    expect(r.credits).toBe(ref.credits)
    expect(r.credits).toBeGreaterThan(0)
  })

  it('HTTP 500 with a server error among the entries: the whole batch fails over (alone, each call gets the unavailable error, free)', async () => {
    const internal = (id: unknown) => ({ jsonrpc: '2.0', id, error: { code: -32603, message: 'internal error' } })
    const bad = await node(onCall(answer(internal)))
    const alone = await batch(await gateway(bad))
    expect(alone.json().map((x: any) => [x.id, x.error?.code])).toEqual([
      ['a', -32603],
      ['b', -32603],
      ['c', -32603],
    ])
    expect(alone.json()[0].error.message).toMatch(/HTTP 500 \(the node's error: -32603 internal error\)/)
    expect(alone.credits).toBe(0)
    const good = await node()
    const r = await batch(await gateway(bad, good))
    expect(r.json()).toEqual([
      { jsonrpc: '2.0', id: 'a', result: '0x1' },
      { jsonrpc: '2.0', id: 'b', result: '0x1' },
      { jsonrpc: '2.0', id: 'c', result: '0x1' },
    ])
    expect(asked(good)).toBe(1)
  })
})
