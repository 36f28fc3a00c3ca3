/**
 * Subscription events are charged per key and event in aggregate (src/gateway/pipeline/event-charges.ts): the
 * credits and usage-ledger rows must be exactly those of charging every subscriber on its own — real anvil, real
 * SQLite ledger, real WebSocket clients. `CHAINGATE_TEST_REDIS=lease` or `per-call` runs it on the Redis limit store
 * (per-call: every reservation waits for Redis, and the fan-out of its event with it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { queryUsage } from '../../src/usage/queries.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

let s: TestServer
beforeAll(async () => {
  s = await startTestServer({
    plans: { tiny: { creditsPerDay: 300, creditsPerSecond: 100_000, maxKeys: null } },
    networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }],
  })
})
afterAll(async () => s?.stop())

const wsUrl = (key: string) => `${s.url.replace('http', 'ws')}/networks/devnet-a/ws/v3/${key}`

/** A socket with `subscriptions` newHeads subscriptions; the block numbers each received, in arrival order. */
async function subscriber(key: string, subscriptions = 1) {
  const ws = new WebSocket(wsUrl(key))
  const heads = new Map<string, number[]>()
  const answers = new Map<number, (id: string) => void>()
  const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)))
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString())
    if (m.method === 'eth_subscription') heads.get(m.params.subscription)?.push(Number(m.params.result.number))
    else answers.get(m.id)?.(m.result)
  })
  await new Promise((r, j) => ws.once('open', r).once('error', j))
  for (let i = 1; i <= subscriptions; i++) {
    const id = await new Promise<string>((r) => {
      answers.set(i, r)
      ws.send(JSON.stringify(call('eth_subscribe', ['newHeads'], i)))
    })
    heads.set(id, [])
  }
  return { ws, heads, closed, subscriptions }
}

/** Straight to the node (no cache between). */
const node = async (method: string, params: unknown[] = []) => {
  const r = await fetch(s.app.upstreamUrls.get('devnet-a')!.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(call(method, params)),
  })
  return ((await r.json()) as { result: unknown }).result
}
const tip = async () => Number(await node('eth_blockNumber'))
const mine = (n: number) => node('anvil_mine', [`0x${n.toString(16)}`])
async function until(check: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 20))
  }
}
const usage = async (accountId: string, keyId: string) => {
  await s.parts.ledger.flush()
  const day = new Date().toISOString().slice(0, 10)
  const rows = (await queryUsage(s.parts.database.db, { day, by: 'method', accountId, keyId })).rows
  return Object.fromEntries(rows.map((r) => [r.group, { calls: r.calls, credits: r.credits }]))
}

describe('subscription events charged per key in aggregate', () => {
  // Several keys (two of one account), several subscribers each, several blocks; a client closes midway.
  it('credits and ledger rows as per-subscriber charging; blocks in order; a closed client not charged', async () => {
    const a = await s.newKey('team')
    const second = await s.parts.keys.create({ accountId: a.account.id, name: 'second' }, Date.now())
    await s.parts.keySnapshot.reload()
    const b = await s.newKey('team')
    const keys = [
      { account: a.account.id, key: a.key, sockets: [2, 1, 1] },
      { account: a.account.id, key: second, sockets: [1, 1] },
      { account: b.account.id, key: b.key, sockets: [1, 1, 1, 1] },
    ]
    const clients = await Promise.all(
      keys.map(async (k) => ({ ...k, subs: await Promise.all(k.sockets.map((n) => subscriber(k.key.key, n))) })),
    )
    const price = s.parts.costs.event('newHeads')
    const fee = s.parts.costs.method('devnet-a', 'eth_subscribe')
    expect(price).toBeGreaterThan(0)

    const from = (await tip()) + 1
    await mine(4)
    const allSubs = clients.flatMap((c) => c.subs.flatMap((x) => [...x.heads.values()]))
    await until(() => allSubs.every((h) => h.length === 4))
    for (const h of allSubs) expect(h).toEqual([from, from + 1, from + 2, from + 3])

    // The last socket of the third key leaves: its subscription is not charged for what it no longer gets.
    const gone = clients[2]!.subs.pop()!
    gone.ws.close()
    await gone.closed
    await mine(2)
    const live = clients.flatMap((c) => c.subs.flatMap((x) => [...x.heads.values()]))
    await until(() => live.every((h) => h.length === 6))
    for (const h of live) expect(h).toEqual([from, from + 1, from + 2, from + 3, from + 4, from + 5])
    expect([...gone.heads.values()][0]).toHaveLength(4)

    // Per-subscriber charging: each subscription pays `fee` once and `price` for every block it was sent.
    const expected = clients.map((c) => {
      const subs = c.subs.reduce((t, x) => t + x.subscriptions, 0) + (c === clients[2] ? 1 : 0)
      const events = c.subs.reduce((t, x) => t + 6 * x.subscriptions, 0) + (c === clients[2] ? 4 : 0)
      return { subs, events, credits: subs * fee + events * price }
    })
    for (const [i, c] of clients.entries()) {
      const e = expected[i]!
      expect(s.parts.limits.keyUsedToday(c.key.id, Date.now())).toBe(e.credits)
      expect(await usage(c.account, c.key.id)).toEqual({
        eth_subscribe: { calls: e.subs, credits: e.subs * fee },
        'eth_subscription:newHeads': { calls: e.events, credits: e.events * price },
      })
    }
    expect(s.parts.limits.usedToday(a.account.id, Date.now())).toBe(expected[0]!.credits + expected[1]!.credits)
    expect(s.parts.limits.usedToday(b.account.id, Date.now())).toBe(expected[2]!.credits)
    for (const c of clients) for (const x of c.subs) x.ws.close()
  })

  // The subscribers the balance covers get the block (the last one pays what was left).
  it('the balance runs out mid-event: then every socket of the account is closed with 1008', async () => {
    const { account, key } = await s.newKey('tiny') // 300 credits a day
    const subs = [await subscriber(key.key), await subscriber(key.key), await subscriber(key.key)]
    const price = s.parts.costs.event('newHeads')
    const fee = s.parts.costs.method('devnet-a', 'eth_subscribe')
    expect({ price, fee }).toEqual({ price: 50, fee: 5 }) // the figures below: 15 + 150 + (50 + 50 + 35) = 300
    const from = (await tip()) + 1
    await mine(3)
    const codes = await Promise.all(subs.map((x) => x.closed))
    expect(codes).toEqual([1008, 1008, 1008])
    for (const x of subs) expect([...x.heads.values()][0]).toEqual([from, from + 1])
    expect(s.parts.limits.usedToday(account.id, Date.now())).toBe(300)
    expect(await usage(account.id, key.id)).toEqual({
      eth_subscribe: { calls: 3, credits: 15 },
      'eth_subscription:newHeads': { calls: 6, credits: 285 },
    })
  })
})
