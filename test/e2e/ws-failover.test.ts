/**
 * Subscriptions across upstream failures (docs/subscriptions.md): one real anvil reached through TCP proxies that
 * the tests cut mid-stream, so the gateway sees a node's WebSocket drop while blocks keep coming.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { startAnvil, type RunningAnvil } from '../../src/devnet/anvil.ts'
import { startTcpProxy, type TcpProxy } from './helpers/tcp-proxy.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

const CHAIN_ID = 31341
/** anvil's first unlocked account (test mnemonic). */
const SENDER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
/** Init code that emits one LOG0 and deploys nothing: every transaction (one block each, automine) makes one log. */
const EMIT_LOG = '0x60006000a0'

let anvil: RunningAnvil
beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID, port: 0, blockTimeSeconds: 0 })
})
afterAll(async () => anvil?.stop())

const node = async (method: string, params: unknown[] = []) => {
  const res = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(call(method, params)) })
  const body = (await res.json()) as { result?: unknown; error?: unknown }
  if (body.error) throw new Error(JSON.stringify(body.error))
  return body.result
}
const mineOne = () => node('anvil_mine', ['0x1'])
const emitLog = () => node('eth_sendTransaction', [{ from: SENDER, data: EMIT_LOG }])
const head = async () => Number(await node('eth_blockNumber'))

// Replays are bursts of charged events: a plan whose per-second limit they cannot trip (the next test's calls would
// be refused with 429 otherwise).
const PLANS = { team: { creditsPerDay: 1e12, creditsPerSecond: 1e9, maxKeys: null } }
const remote = (proxies: TcpProxy[], gateway: Record<string, unknown> = {}) => ({
  networks: [{ name: 'remote', chainId: CHAIN_ID, upstreams: proxies.map((p) => ({ url: p.url, wsUrl: p.wsUrl })) }],
  gateway,
  plans: PLANS,
})

/** A WebSocket client that queues what it receives. */
async function connect(s: TestServer) {
  const ws = new WebSocket(`${s.url.replace('http', 'ws')}/networks/remote/ws/v3/${s.key.key}`)
  const inbox: any[] = []
  const events: any[] = []
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString())
    if (m.method === 'eth_subscription') events.push(m.params)
    else inbox.push(m)
  })
  let closedWith: { code: number; reason: string } | undefined
  const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r((closedWith = { code, reason: reason.toString() }))))
  await new Promise((r, j) => {
    ws.once('open', r)
    ws.once('error', j)
  })
  const ask = async (body: any, timeoutMs = 20_000) => {
    ws.send(JSON.stringify(body))
    return waitFor(() => inbox.find((m) => m.id === body.id), timeoutMs)
  }
  return { ws, events, ask, closed, closedWith: () => closedWith }
}

async function waitFor<T>(probe: () => T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = probe()
    if (v !== undefined && v !== false) return v
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 50))
  }
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)
const headNumbers = (events: any[], sub: string) => events.filter((e) => e.subscription === sub).map((e) => Number(e.result.number))

describe('subscriptions with two upstreams', () => {
  let a: TcpProxy
  let b: TcpProxy
  let s: TestServer
  beforeAll(async () => {
    a = await startTcpProxy(anvil.url)
    b = await startTcpProxy(anvil.url)
    s = await startTestServer(remote([a, b]))
  })
  afterAll(async () => {
    await s?.stop()
    await a?.close()
    await b?.close()
  })

  it('clients with the same subscription share one upstream subscription; the last unsubscribe ends it', async () => {
    const hub = s.app.hubs.get('remote')!
    const c1 = await connect(s)
    const c2 = await connect(s)
    const h1 = await c1.ask(call('eth_subscribe', ['newHeads'], 1))
    const h2 = await c2.ask(call('eth_subscribe', ['newHeads'], 1))
    // The same filter written in another member order is the same subscription.
    const l1 = await c1.ask(call('eth_subscribe', ['logs', { topics: [], address: [] }], 2))
    const l2 = await c2.ask(call('eth_subscribe', ['logs', { address: [], topics: [] }], 2))
    expect(h1.result).not.toBe(h2.result) // each client has its own id
    expect(hub.size).toBe(2)
    const next = (await head()) + 1
    await mineOne()
    await waitFor(() => headNumbers(c1.events, h1.result).includes(next) && headNumbers(c2.events, h2.result).includes(next))
    expect(await c1.ask(call('eth_unsubscribe', [h1.result], 3))).toMatchObject({ result: true })
    expect(hub.size).toBe(2)
    expect(await c2.ask(call('eth_unsubscribe', [h2.result], 3))).toMatchObject({ result: true })
    expect(hub.size).toBe(1)
    await c1.ask(call('eth_unsubscribe', [l1.result], 4))
    await c2.ask(call('eth_unsubscribe', [l2.result], 4))
    expect(hub.size).toBe(0)
    c1.ws.close()
    c2.ws.close()
  })

  it('drop WS mid-stream: newHeads moves to the other upstream, every block number once and in order, socket kept open', async () => {
    const hub = s.app.hubs.get('remote')!
    const c1 = await connect(s)
    const c2 = await connect(s)
    const sub1 = (await c1.ask(call('eth_subscribe', ['newHeads'], 1))).result
    const sub2 = (await c2.ask(call('eth_subscribe', ['newHeads'], 1))).result
    const first = (await head()) + 1
    for (let i = 0; i < 3; i++) await mineOne()
    await waitFor(() => headNumbers(c1.events, sub1).includes(first + 2))
    const before = hub.upstream
    const cut = before === a.url.replace('http', 'ws') ? a : b
    const other = cut === a ? b : a
    await cut.cut()
    // Blocks made while the gateway is switching: fetched from the new upstream and sent in order.
    for (let i = 0; i < 3; i++) await mineOne()
    await waitFor(() => headNumbers(c1.events, sub1).includes(first + 5) && headNumbers(c2.events, sub2).includes(first + 5))
    for (let i = 0; i < 2; i++) await mineOne()
    await waitFor(() => headNumbers(c1.events, sub1).includes(first + 7) && headNumbers(c2.events, sub2).includes(first + 7))
    expect(headNumbers(c1.events, sub1)).toEqual(range(first, first + 7))
    expect(headNumbers(c2.events, sub2)).toEqual(range(first, first + 7))
    expect(hub.upstream).toBe(other.wsUrl)
    expect(c1.closedWith()).toBeUndefined()
    expect(c2.closedWith()).toBeUndefined()
    expect(s.logs.some((l) => l.msg === 'subscriptions resumed' && l.upstream === other.wsUrl)).toBe(true)
    const metrics = await (await fetch(`${s.url}/metrics`)).text()
    expect(Number(/chaingate_subscription_moves_total\{network="remote",reason="dropped"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1)
    expect(metrics).toMatch(/chaingate_upstream_subscriptions\{network="remote"\} 1\b/)
    await cut.restore()
    c1.ws.close()
    c2.ws.close()
  }, 60_000)

  it('drop WS mid-stream while blocks keep coming and many subscriptions move: newHeads still sees every block once, in order', async () => {
    const hub = s.app.hubs.get('remote')!
    const c = await connect(s)
    const sub = (await c.ask(call('eth_subscribe', ['newHeads'], 1))).result
    // More subscriptions to move: each is one more round trip while the new node's heads already flow.
    for (let i = 0; i < 15; i++) await c.ask(call('eth_subscribe', ['logs', { address: `0x${(i + 1).toString(16).padStart(40, '0')}` }], 100 + i))
    const first = (await head()) + 1
    await mineOne()
    await waitFor(() => headNumbers(c.events, sub).includes(first))
    let mining = true
    const miner = (async () => {
      while (mining) await mineOne()
    })()
    await new Promise((r) => setTimeout(r, 200))
    const current = hub.upstream === a.wsUrl ? a : b
    await current.cut()
    await new Promise((r) => setTimeout(r, 1500))
    mining = false
    await miner
    const last = await head()
    await waitFor(() => headNumbers(c.events, sub).includes(last), 30_000)
    expect(headNumbers(c.events, sub)).toEqual(range(first, last))
    expect(hub.upstream).toBe((current === a ? b : a).wsUrl)
    expect(c.closedWith()).toBeUndefined()
    await current.restore()
    c.ws.close()
  }, 60_000)

  it('drop WS mid-stream while logs keep coming: every log once, in order', async () => {
    const hub = s.app.hubs.get('remote')!
    const c = await connect(s)
    const sub = (await c.ask(call('eth_subscribe', ['logs', {}], 1))).result
    const logs = () => c.events.filter((e) => e.subscription === sub).map((e) => e.result.transactionHash)
    const txs: string[] = []
    let sending = true
    const sender = (async () => {
      while (sending) txs.push((await emitLog()) as string)
    })()
    await waitFor(() => logs().length >= 3)
    const current = hub.upstream === a.wsUrl ? a : b
    await current.cut()
    await new Promise((r) => setTimeout(r, 1500))
    sending = false
    await sender
    await waitFor(() => logs().length >= txs.length, 30_000)
    await new Promise((r) => setTimeout(r, 500)) // a duplicate would arrive by now
    expect(logs()).toEqual(txs)
    expect(hub.upstream).toBe((current === a ? b : a).wsUrl)
    await current.restore()
    c.ws.close()
  }, 60_000)

  it('drop WS mid-stream: logs moves to the other upstream and the missed blocks are filled by eth_getLogs, no duplicates', async () => {
    const hub = s.app.hubs.get('remote')!
    const c = await connect(s)
    const sub = (await c.ask(call('eth_subscribe', ['logs', {}], 1))).result
    const logs = () => c.events.filter((e) => e.subscription === sub).map((e) => e.result)
    const txs: string[] = []
    for (let i = 0; i < 2; i++) txs.push((await emitLog()) as string)
    await waitFor(() => logs().length >= 2)
    const current = hub.upstream === a.wsUrl ? a : b
    await current.cut()
    for (let i = 0; i < 3; i++) txs.push((await emitLog()) as string)
    await waitFor(() => logs().length >= 5)
    txs.push((await emitLog()) as string)
    await waitFor(() => logs().length >= 6)
    await new Promise((r) => setTimeout(r, 500)) // anything extra (a duplicate) would arrive by now
    expect(logs().map((l) => l.transactionHash)).toEqual(txs)
    const blocks = logs().map((l) => Number(l.blockNumber))
    expect(blocks).toEqual(range(blocks[0]!, blocks[0]! + 5))
    expect(hub.upstream).toBe((current === a ? b : a).wsUrl)
    expect(c.closedWith()).toBeUndefined()
    await current.restore()
    c.ws.close()
  }, 60_000)
})

describe('subscriptions with one upstream', () => {
  let p: TcpProxy
  let s: TestServer
  beforeAll(async () => {
    p = await startTcpProxy(anvil.url)
    s = await startTestServer(remote([p], { subscriptionFailoverMs: 60_000 }))
  })
  afterAll(async () => {
    await s?.stop()
    await p?.close()
  })

  it('the only upstream restarts: the gateway reconnects with back-off and sends the blocks made meanwhile, in order', async () => {
    const c = await connect(s)
    const sub = (await c.ask(call('eth_subscribe', ['newHeads'], 1))).result
    const first = (await head()) + 1
    await mineOne()
    await waitFor(() => headNumbers(c.events, sub).includes(first))
    await p.cut()
    for (let i = 0; i < 4; i++) await mineOne()
    await new Promise((r) => setTimeout(r, 1500)) // down for a while: several reconnection attempts refused
    expect(c.closedWith()).toBeUndefined()
    await p.restore()
    await waitFor(() => headNumbers(c.events, sub).includes(first + 4))
    await mineOne()
    await waitFor(() => headNumbers(c.events, sub).includes(first + 5))
    expect(headNumbers(c.events, sub)).toEqual(range(first, first + 5))
    expect(c.closedWith()).toBeUndefined()
    c.ws.close()
  }, 60_000)
})

describe('no upstream reachable', () => {
  let p: TcpProxy
  let s: TestServer
  beforeAll(async () => {
    p = await startTcpProxy(anvil.url)
    s = await startTestServer(remote([p], { subscriptionFailoverMs: 1000 }))
  })
  afterAll(async () => {
    await s?.stop()
    await p?.close()
  })

  it('after gateway.subscriptionFailoverMs without a node, clients are closed with 1013 and may subscribe again later', async () => {
    const c = await connect(s)
    await c.ask(call('eth_subscribe', ['newHeads'], 1))
    await p.cut()
    const closed = await Promise.race([c.closed, new Promise((r) => setTimeout(() => r('still open'), 30_000))])
    expect(closed).toMatchObject({ code: 1013 })
    expect((closed as { reason: string }).reason).toContain('subscribe again')
    expect(s.app.hubs.get('remote')!.size).toBe(0)
    await p.restore()
    const again = await connect(s)
    const sub = (await again.ask(call('eth_subscribe', ['newHeads'], 1))).result
    expect(typeof sub).toBe('string')
    const next = (await head()) + 1
    await mineOne()
    await waitFor(() => headNumbers(again.events, sub).includes(next))
    again.ws.close()
  }, 60_000)
})

describe('an upstream that hangs', () => {
  let a: TcpProxy
  let b: TcpProxy
  let s: TestServer
  beforeAll(async () => {
    a = await startTcpProxy(anvil.url)
    b = await startTcpProxy(anvil.url)
    s = await startTestServer(remote([a, b], { subscriptionHeartbeatMs: 300 }))
  })
  afterAll(async () => {
    await s?.stop()
    await a?.close()
    await b?.close()
  })

  it('hang mid-stream (socket open, nothing sent): found by the heartbeat, newHeads moves to the other upstream, every block once', async () => {
    const hub = s.app.hubs.get('remote')!
    const c = await connect(s)
    const sub = (await c.ask(call('eth_subscribe', ['newHeads'], 1))).result
    const first = (await head()) + 1
    await mineOne()
    await waitFor(() => headNumbers(c.events, sub).includes(first))
    const hanging = hub.upstream === a.wsUrl ? a : b
    const other = hanging === a ? b : a
    hanging.freeze()
    for (let i = 0; i < 3; i++) await mineOne()
    await waitFor(() => headNumbers(c.events, sub).includes(first + 3), 30_000)
    await mineOne()
    await waitFor(() => headNumbers(c.events, sub).includes(first + 4))
    expect(headNumbers(c.events, sub)).toEqual(range(first, first + 4))
    expect(hub.upstream).toBe(other.wsUrl)
    expect(s.logs.some((l) => l.msg === 'subscription node stopped answering: moving subscriptions' && l.upstream === hanging.wsUrl)).toBe(true)
    expect(c.closedWith()).toBeUndefined()
    await hanging.restore()
    c.ws.close()
  }, 60_000)
})

describe('upstreams at different heights', () => {
  let behind: RunningAnvil
  let a: TcpProxy
  let b: TcpProxy
  let s: TestServer
  beforeAll(async () => {
    behind = await startAnvil({ chainId: CHAIN_ID, port: 0, blockTimeSeconds: 0 })
    a = await startTcpProxy(anvil.url)
    b = await startTcpProxy(behind.url)
    s = await startTestServer(remote([a, b]))
  })
  afterAll(async () => {
    await s?.stop()
    await a?.close()
    await b?.close()
    await behind?.stop()
  })

  it('the next upstream is behind: heads the client already has are dropped, numbers go on once it passes them', async () => {
    const hub = s.app.hubs.get('remote')!
    // Subscriptions start on the node that is ahead.
    await a.restore()
    await b.cut()
    const c = await connect(s)
    const sub = (await c.ask(call('eth_subscribe', ['newHeads'], 1))).result
    await b.restore()
    expect(hub.upstream).toBe(a.wsUrl)
    for (let i = 0; i < 3; i++) await mineOne()
    const top = await head()
    await waitFor(() => headNumbers(c.events, sub).includes(top))
    await a.cut()
    await waitFor(() => hub.upstream === b.wsUrl)
    const mineBehind = (n: number) =>
      fetch(behind.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(call('anvil_mine', [`0x${n.toString(16)}`])) })
    const behindHead = async () => Number(((await (await fetch(behind.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(call('eth_blockNumber')) })).json()) as { result: string }).result)
    expect(await behindHead()).toBeLessThan(top)
    // The lagging node catches up block by block to the client's last head, then goes 3 beyond it.
    const gap = top - (await behindHead())
    if (gap > 3) await mineBehind(gap - 2) // heads the client has already: all dropped, however the node sends them
    while ((await behindHead()) < top + 3) await mineBehind(1)
    await waitFor(() => headNumbers(c.events, sub).includes(top + 3), 30_000)
    const seen = headNumbers(c.events, sub)
    expect(seen).toEqual(range(seen[0]!, top + 3))
    expect(c.closedWith()).toBeUndefined()
    c.ws.close()
  }, 90_000)
})

describe('a subscription node the pool finds lagging', () => {
  // Two fresh chains (the shared anvil is far ahead after the tests above): the gap to replay stays small.
  let ahead: RunningAnvil
  let behind: RunningAnvil
  let a: TcpProxy
  let b: TcpProxy
  let s: TestServer
  beforeAll(async () => {
    ;[ahead, behind] = await Promise.all([0, 1].map(() => startAnvil({ chainId: CHAIN_ID, port: 0, blockTimeSeconds: 0 })))
    a = await startTcpProxy(ahead!.url)
    b = await startTcpProxy(behind.url)
    s = await startTestServer({
      networks: [{ name: 'remote', chainId: CHAIN_ID, upstreams: [a, b].map((p) => ({ url: p.url, wsUrl: p.wsUrl })), upstreamPolicy: { headPollMs: 1000 } }],
      gateway: { subscriptionHeartbeatMs: 300 },
      plans: PLANS,
    })
  })
  afterAll(async () => {
    await s?.stop()
    await a?.close()
    await b?.close()
    await behind?.stop()
    await ahead?.stop()
  })

  it('is left for a healthy node once the pool sees it lag; heads go on from the healthy node without a gap', async () => {
    const hub = s.app.hubs.get('remote')!
    const onAhead = async (method: string, params: unknown[] = []) =>
      ((await (await fetch(ahead.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(call(method, params)) })).json()) as { result: unknown }).result
    await onAhead('anvil_mine', ['0x14']) // well ahead (more than maxLagBlocks)
    // Subscriptions start on the lagging node.
    await a.cut()
    const c = await connect(s)
    const sub = (await c.ask(call('eth_subscribe', ['newHeads'], 1))).result
    await a.restore()
    expect(hub.upstream).toBe(b.wsUrl)
    await fetch(behind.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(call('anvil_mine', ['0x1'])) })
    await waitFor(() => headNumbers(c.events, sub).length > 0)
    // Calls make the pool poll the nodes' heads: it finds the subscription node behind the served tip.
    const deadline = Date.now() + 30_000
    while (hub.upstream !== a.wsUrl) {
      if (Date.now() > deadline) throw new Error(`still on ${hub.upstream}: ${JSON.stringify(s.app.pools.get('remote')!.status())}`)
      await s.rpc(call('eth_blockNumber'), { network: 'remote' })
      await new Promise((r) => setTimeout(r, 200))
    }
    await onAhead('anvil_mine', ['0x1'])
    const top = Number(await onAhead('eth_blockNumber'))
    await waitFor(() => headNumbers(c.events, sub).includes(top), 30_000)
    const seen = headNumbers(c.events, sub)
    expect(seen).toEqual(range(seen[0]!, top))
    expect(s.logs.some((l) => l.msg === 'subscription node lagging or failing for the pool: moving subscriptions' && l.upstream === b.wsUrl)).toBe(true)
    expect(c.closedWith()).toBeUndefined()
    c.ws.close()
  }, 90_000)
})
