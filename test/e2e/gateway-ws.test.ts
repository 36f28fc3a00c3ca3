import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createPublicClient, webSocket } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { startTestServer, call, type TestServer } from './helpers/server.ts'

const TEST_PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
let s: TestServer

beforeAll(async () => {
  s = await startTestServer({
    plans: { tiny: { creditsPerDay: 300, creditsPerSecond: 100_000, maxKeys: null } },
    // Devnet methods off: eth_sendTransaction is refused as on a real node (test/e2e/cli-devnet-methods.test.ts).
    networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 }, devMethods: false }],
  })
})
afterAll(async () => s?.stop())

const wsUrl = (key = s.key.key) => `${s.url.replace('http', 'ws')}/networks/devnet-a/ws/v3/${key}`

/** A WebSocket client that queues what it receives. */
async function connect(key?: string) {
  const ws = new WebSocket(wsUrl(key))
  const inbox: any[] = []
  const waiters: (() => void)[] = []
  ws.on('message', (d) => {
    inbox.push(JSON.parse(d.toString()))
    waiters.splice(0).forEach((w) => w())
  })
  const closed = new Promise<{ code: number; reason: string }>((r) =>
    ws.on('close', (code, reason) => r({ code, reason: reason.toString() })),
  )
  await new Promise((r, j) => {
    ws.once('open', r)
    ws.once('error', j)
  })
  const next = async (pred: (m: any) => boolean, timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const i = inbox.findIndex(pred)
      if (i >= 0) return inbox.splice(i, 1)[0]
      if (Date.now() > deadline) throw new Error(`no matching message; inbox: ${JSON.stringify(inbox).slice(0, 500)}`)
      await new Promise<void>((r) => {
        waiters.push(r)
        setTimeout(r, 100)
      })
    }
  }
  const ask = async (body: any) => {
    ws.send(JSON.stringify(body))
    const id = Array.isArray(body) ? undefined : body.id
    return next((m) => (Array.isArray(body) ? Array.isArray(m) : m.id === id))
  }
  return { ws, inbox, next, ask, closed }
}

const mine = (n = 1) =>
  fetch(s.app.upstreamUrls.get('devnet-a')!.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(call('anvil_mine', [`0x${n.toString(16)}`])),
  })

describe('gateway over WebSocket', () => {
  it('answers the same methods as HTTP, single and batch', async () => {
    const c = await connect()
    expect(await c.ask(call('eth_chainId', [], 1))).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' })
    const batch = await c.ask([call('eth_chainId', [], 2), call('eth_accounts', [], 3)])
    expect(batch).toEqual([
      { jsonrpc: '2.0', id: 2, result: '0x7a69' },
      { jsonrpc: '2.0', id: 3, result: [] },
    ])
    expect((await c.ask(call('eth_sendTransaction', [{}], 4))).error.code).toBe(-32601)
    c.ws.send('{nope')
    expect((await c.next((m) => m.error?.code === -32700)).id).toBe(null)
    c.ws.close()
  })

  it('newHeads: subscribe, one notification per block, unsubscribe; charged 5 + 50 per block + 10', async () => {
    const { account, key } = await s.newKey('team')
    const c = await connect(key.key)
    const sub = await c.ask(call('eth_subscribe', ['newHeads'], 1))
    expect(sub.result).toMatch(/^0x[0-9a-f]{32}$/)
    await mine(3)
    const heads = []
    for (let i = 0; i < 3; i++) heads.push(await c.next((m) => m.method === 'eth_subscription'))
    for (const h of heads) {
      expect(h.params.subscription).toBe(sub.result)
      expect(h.params.result.number).toMatch(/^0x/)
      expect(h).not.toHaveProperty('id')
    }
    expect(await c.ask(call('eth_unsubscribe', [sub.result], 2))).toEqual({ jsonrpc: '2.0', id: 2, result: true })
    await mine(1)
    await new Promise((r) => setTimeout(r, 300))
    expect(c.inbox.filter((m) => m.method === 'eth_subscription')).toEqual([])
    expect(s.parts.limits.usedToday(account.id, Date.now())).toBe(5 + 3 * 50 + 10)
    c.ws.close()
  })

  it('a batch may mix eth_subscribe with other calls: answered in order, each charged as on its own', async () => {
    const { account, key } = await s.newKey('team')
    const c = await connect(key.key)
    const answers = await c.ask([
      call('eth_chainId', [], 1),
      call('eth_subscribe', ['newHeads'], 2),
      call('eth_subscribe', ['nothing'], 3),
    ])
    expect(answers.map((a: any) => a.id)).toEqual([1, 2, 3])
    expect(answers[0].result).toBe('0x7a69')
    expect(answers[1].result).toMatch(/^0x[0-9a-f]{32}$/)
    expect(answers[2].error.code).toBe(-32602)
    await mine(1)
    expect((await c.next((m) => m.method === 'eth_subscription')).params.subscription).toBe(answers[1].result)
    // 5 (eth_chainId) + 5 + 5 (both subscribe calls) + 50 (one block); the batch envelope costs nothing by default.
    expect(s.parts.limits.usedToday(account.id, Date.now())).toBe(5 + 5 + 5 + 50)
    c.ws.close()
  })

  it('logs: delivered for a matching contract event, charged at most once per block', async () => {
    const { account, key } = await s.newKey('team')
    const c = await connect(key.key)
    const sub = await c.ask(call('eth_subscribe', ['logs', {}], 1))
    expect(sub.result).toMatch(/^0x/)
    // A contract creation whose init code is LOG0(0,0) twice: two logs in one block.
    const account0 = privateKeyToAccount(TEST_PK)
    const nonce = (await c.ask(call('eth_getTransactionCount', [account0.address, 'latest'], 2))).result
    const raw = await account0.signTransaction({
      chainId: 31337,
      nonce: Number(nonce),
      gas: 100_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
      data: '0x60006000a060006000a000',
      type: 'eip1559',
    })
    const sent = await c.ask(call('eth_sendRawTransaction', [raw], 3))
    expect(sent.result).toMatch(/^0x/)
    const first = await c.next((m) => m.method === 'eth_subscription')
    const second = await c.next((m) => m.method === 'eth_subscription')
    expect(first.params.result.transactionHash).toBe(sent.result)
    expect(second.params.result.logIndex).toBe('0x1')
    // 5 subscribe + 80 + 80 + 80 calls + 300 once for the block.
    expect(s.parts.limits.usedToday(account.id, Date.now())).toBe(5 + 80 + 80 + 300)
    c.ws.close()
  })

  it('newPendingTransactions delivers transaction hashes', async () => {
    const c = await connect()
    const sub = await c.ask(call('eth_subscribe', ['newPendingTransactions'], 1))
    const account1 = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')
    const nonce = (await c.ask(call('eth_getTransactionCount', [account1.address, 'latest'], 2))).result
    const raw = await account1.signTransaction({
      chainId: 31337,
      nonce: Number(nonce),
      gas: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
      to: account1.address,
      value: 1n,
      type: 'eip1559',
    })
    const sent = await c.ask(call('eth_sendRawTransaction', [raw], 3))
    const note = await c.next((m) => m.method === 'eth_subscription')
    expect(note.params).toEqual({ subscription: sub.result, result: sent.result })
    c.ws.close()
  })

  it('a bad subscription kind is -32602; an unknown subscription id unsubscribes to false', async () => {
    const c = await connect()
    expect((await c.ask(call('eth_subscribe', ['everything'], 1))).error.code).toBe(-32602)
    expect((await c.ask(call('eth_unsubscribe', ['0x1234'], 2))).result).toBe(false)
    c.ws.close()
  })

  it('viem watchBlockNumber over the WebSocket endpoint sees new blocks', async () => {
    const client = createPublicClient({ transport: webSocket(wsUrl()) })
    const seen: bigint[] = []
    const unwatch = client.watchBlockNumber({ poll: false as never, onBlockNumber: (n) => void seen.push(n) })
    // The subscription is set up asynchronously: keep mining (bounded) until two new blocks were seen.
    const deadline = Date.now() + 10_000
    while (seen.length < 2 && Date.now() < deadline) {
      await mine(1)
      await new Promise((r) => setTimeout(r, 100))
    }
    unwatch()
    expect(seen.length).toBeGreaterThanOrEqual(2)
    await (await client.transport.getRpcClient()).close()
  })

  it('the connection is closed when the daily balance runs out', async () => {
    const { key } = await s.newKey('tiny')
    const c = await connect(key.key)
    await c.ask(call('eth_subscribe', ['newHeads'], 1)) // 5
    await mine(7) // 50 each: the balance (300) runs out on the 6th
    const closed = await c.closed
    expect(closed.code).toBe(1008)
    expect(closed.reason).toBe('daily credit limit reached')
    // And a new connection is refused with 402 until the balance resets.
    const refused = await new Promise<{ status: number; body: string }>((resolve) => {
      const ws = new WebSocket(wsUrl(key.key))
      ws.on('unexpected-response', (_req, res) => {
        let body = ''
        res.on('data', (d) => (body += d))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      })
      ws.on('error', () => undefined)
    })
    expect(refused.status).toBe(402)
    expect(JSON.parse(refused.body).error.event).toBe(-33000)
  })

  it('a revoked key has its sockets closed, and a bad key is refused at the upgrade with 401', async () => {
    const { key } = await s.newKey('team')
    const c = await connect(key.key)
    await s.parts.keys.revoke(key.id, Date.now())
    const closed = await c.closed
    expect(closed.code).toBe(1008)
    const refused = await new Promise<{ status: number; credits: unknown }>((resolve) => {
      const ws = new WebSocket(wsUrl(key.key))
      ws.on('unexpected-response', (_req, res) =>
        resolve({ status: res.statusCode ?? 0, credits: res.headers['x-credits-charged'] }),
      )
      ws.on('error', () => undefined)
    })
    expect(refused).toEqual({ status: 401, credits: '0' })
  })

  it('a WebSocket on a host that names no network is told the WebSocket path form', async () => {
    const refused = await new Promise<{ status: number; body: string }>((resolve) => {
      const ws = new WebSocket(`${s.url.replace('http', 'ws')}/ws/v3/${s.key.key}`)
      ws.on('unexpected-response', (_req, res) => {
        let body = ''
        res.on('data', (d) => (body += d))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      })
      ws.on('error', () => undefined)
    })
    expect(refused.status).toBe(404)
    expect(refused.body).toContain('path /networks/devnet-a/ws/v3/<key>')
    expect(refused.body).not.toContain('/networks/devnet-a/v3/<key>')
  })
})
