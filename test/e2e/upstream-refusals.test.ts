/**
 * A provider refusing the gateway (HTTP 429/401/402, a 200 with a quota error) is never relayed as a success nor
 * charged: the call fails over to another node, and only with no node left does the client get the documented
 * error (docs/errors.md, "Node provider refusals"). A real anvil is the good node; the provider is the fake node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { startAnvil, type RunningAnvil } from '../../src/upstreams/devnet/anvil.ts'
import { queryUsage } from '../../src/usage/queries.ts'
import { rpcError, startFakeNode, type FakeNode, type FakeReply, type FakeRequest } from '../support/fake-node.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

let anvil: RunningAnvil
beforeAll(async () => {
  anvil = await startAnvil({ chainId: 31341, port: 0, blockTimeSeconds: 0 })
})
afterAll(async () => {
  await anvil?.stop()
})

/** Refusals for every call but the start-up eth_chainId check (the quota ran out after start-up). */
const refusing = (reply: (req: FakeRequest) => FakeReply) => (req: FakeRequest) =>
  req.body?.method === 'eth_chainId' || isHeadPoll(req) ? undefined : reply(req)
/** The gateway's own head polls (heads are read at start-up, before the quota ran out, in this story). */
const isHeadPoll = (req: FakeRequest) =>
  (Array.isArray(req.body) ? req.body[0] : req.body)?.method === 'eth_getBlockByNumber'

const CASES: {
  name: string
  reply: (req: FakeRequest) => FakeReply
  code: 'UPSTREAM_RATE_LIMITED' | 'UPSTREAM_AUTH_FAILED'
  state: 'rate-limited' | 'auth-failed'
  text: RegExp
}[] = [
  {
    name: 'HTTP 429 with a JSON-RPC body',
    reply: (req) => ({
      status: 429,
      body: rpcError(req, -32005, 'Too Many Requests'),
      headers: { 'retry-after': '7' },
    }),
    code: 'UPSTREAM_RATE_LIMITED',
    state: 'rate-limited',
    text: /rate-limiting this gateway or its quota is used up \(HTTP 429\); try again in 7 s/,
  },
  {
    name: 'HTTP 401 with a JSON body',
    reply: () => ({ status: 401, body: { error: 'invalid project id' } }),
    code: 'UPSTREAM_AUTH_FAILED',
    state: 'auth-failed',
    text: /refused this gateway's credentials \(HTTP 401\); the operator must fix the upstream URL or key/,
  },
  {
    name: 'HTTP 402 with a JSON body',
    reply: (req) => ({ status: 402, body: rpcError(req, -32001, 'payment required: upgrade your plan') }),
    code: 'UPSTREAM_RATE_LIMITED',
    state: 'rate-limited',
    text: /quota is used up \(HTTP 402\)/,
  },
  {
    name: 'HTTP 200 with -32005 "daily request count exceeded"',
    reply: (req) => ({ body: rpcError(req, -32005, 'daily request count exceeded, request rate limited') }),
    code: 'UPSTREAM_RATE_LIMITED',
    state: 'rate-limited',
    text: /quota is used up \(JSON-RPC error -32005\)/,
  },
]

async function gateway(upstreams: string[]): Promise<TestServer> {
  return startTestServer({
    networks: [{ name: 'remote', chainId: 31341, upstreams: upstreams.map((url) => ({ url })) }],
    gateway: { operations: { healthCacheMs: 0 } },
  })
}

const blockNumber = (s: TestServer, id = 1) => s.rpc(call('eth_blockNumber', [], id), { network: 'remote' })
const stateOf = async (s: TestServer, node: FakeNode) =>
  ((await (await request(`${s.url}/healthz`)).body.json()) as any).upstreams.remote.find(
    (u: { upstream: string }) => u.upstream === node.url.replace(/\/$/, ''),
  )

async function creditsToday(s: TestServer): Promise<{ calls: number; credits: number }> {
  await s.parts.ledger.flush()
  const report = await queryUsage(s.parts.database.db, {
    day: new Date().toISOString().slice(0, 10),
    by: 'method',
    accountId: s.account.id,
  })
  return { calls: report.total.calls, credits: report.total.credits }
}

describe('upstream provider refusals', () => {
  for (const c of CASES) {
    it(`${c.name}: fails over to the good node, the client gets its answer and the normal price; the node is marked ${c.state}`, async () => {
      const bad = await startFakeNode('0x7a6d', refusing(c.reply))
      const s = await gateway([bad.url, anvil.url]) // the refusing node comes first in rotation
      try {
        const r = await blockNumber(s)
        expect(r.status).toBe(200)
        expect(r.json()).toEqual({ jsonrpc: '2.0', id: 1, result: expect.stringMatching(/^0x[0-9a-f]+$/) })
        expect(r.credits).toBe(80)
        // it was asked, and refused
        expect(bad.requests.map((q) => q.body.method)).toEqual(['eth_chainId', 'eth_blockNumber'])
        expect(await stateOf(s, bad)).toMatchObject({
          state: 'cordoned',
          cause: c.state,
          reason: expect.stringContaining('out of rotation for'),
        })
        // While backed off, the refusing node is not asked again.
        expect((await blockNumber(s, 2)).credits).toBe(80)
        expect(bad.requests).toHaveLength(2)
      } finally {
        await s.stop()
        await bad.close()
      }
    })

    it(`${c.name}, with no other node: the documented ${c.code} error (503), charged 0, and the ledger shows 0 credits`, async () => {
      const bad = await startFakeNode('0x7a6d', refusing(c.reply))
      const s = await gateway([bad.url])
      try {
        for (const id of [1, 2]) {
          // The second call is refused from the back-off without asking the node again.
          const r = await blockNumber(s, id)
          expect(r.status).toBe(503)
          expect(r.credits).toBe(0)
          expect(r.json().id).toBe(id)
          expect(r.json().error.code).toBe(-32603)
          expect(r.json().error.message).toMatch(/^network remote is unavailable: its node provider /)
          expect(r.json().error.message).toMatch(c.text)
          expect(r.text).not.toContain('result')
        }
        expect(bad.requests).toHaveLength(2)
        // A batch is refused the same way, each call free.
        const batch = await s.rpc([call('eth_blockNumber', [], 3), call('eth_gasPrice', [], 4)], { network: 'remote' })
        expect(batch.json().map((a: any) => a.error?.message)).toEqual([
          expect.stringMatching(c.text),
          expect.stringMatching(c.text),
        ])
        expect(batch.credits).toBe(0)
        expect(await creditsToday(s)).toEqual({ calls: 4, credits: 0 }) // recorded, free
      } finally {
        await s.stop()
        await bad.close()
      }
    })
  }

  it('a -32005 the client caused ("query returned more than 10000 results") is relayed and charged, and the node stays up', async () => {
    const answer = {
      code: -32005,
      message: 'query returned more than 10000 results. Try with this block range [0x0, 0x1F].',
    }
    const node = await startFakeNode(
      '0x7a6d',
      refusing((req) => ({ body: rpcError(req, answer.code, answer.message) })),
    )
    const s = await gateway([node.url, anvil.url])
    try {
      const r = await s.rpc(call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]), { network: 'remote' })
      expect([r.status, r.json(), r.credits]).toEqual([200, { jsonrpc: '2.0', id: 1, error: answer }, 255])
      expect(await stateOf(s, node)).toMatchObject({ upstream: node.url.replace(/\/$/, ''), state: 'healthy' })
    } finally {
      await s.stop()
      await node.close()
    }
  })
})
