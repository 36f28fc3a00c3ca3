/**
 * Subscriptions going back to the preferred node (docs/subscriptions.md, gateway.subscriptionFailbackMs): one real
 * anvil behind two TCP proxies, a primary and a fallback. The primary is cut (the subscriptions fail over to the
 * fallback), then restored: once it has answered for the failback time the subscriptions move back, make before
 * break, and clients see every block number once and in order, every log once, across both switches. Then a
 * subscription node whose provider starts refusing calls (fake nodes: HTTP 429) is moved off the same way.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startAnvil, type RunningAnvil } from '../../src/upstreams/devnet/anvil.ts'
import { startFakeNode, type FakeNode } from '../support/fake-node.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'
import { allHave, logsClient, newHeadsClient, range, rpcAt, waitFor } from './helpers/ws-subscribers.ts'

const CHAIN_ID = 31342
const SENDER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
/** Init code that emits one LOG0 and deploys nothing: every transaction (one block each, automine) makes one log. */
const EMIT_LOG = '0x60006000a0'
const FAILBACK_MS = 1000
const NEWHEADS_EVENT = 50

let anvil: RunningAnvil
let primary: TcpProxy
let fallback: TcpProxy
let s: TestServer
beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID, port: 0, blockTimeSeconds: 0 })
  primary = await startTcpProxy(anvil.url)
  fallback = await startTcpProxy(anvil.url)
  s = await startTestServer({
    networks: [
      {
        name: 'remote',
        chainId: CHAIN_ID,
        upstreams: [
          { url: primary.url, wsUrl: primary.wsUrl },
          { url: fallback.url, wsUrl: fallback.wsUrl, role: 'fallback' },
        ],
      },
    ],
    gateway: { subscriptionFailbackMs: FAILBACK_MS, subscriptionHeartbeatMs: 300 },
    plans: {
      team: { creditsPerDay: 1e12, creditsPerSecond: 1e9, maxKeys: null },
      // Far less per second than a replay of missed blocks costs.
      trickle: { creditsPerDay: 1e12, creditsPerSecond: 10, maxKeys: null },
    },
  })
})
afterAll(async () => {
  await s?.stop()
  await primary?.close()
  await fallback?.close()
  await anvil?.stop()
})

const node = (method: string, params: unknown[] = []) => rpcAt(anvil.url, method, params)
const mineOne = () => node('anvil_mine', ['0x1'])
const head = async () => Number(await node('eth_blockNumber'))
const emitLog = () => node('eth_sendTransaction', [{ from: SENDER, data: EMIT_LOG }])
const hub = () => s.parts.hubs.get('remote')!
const movedBack = () => s.logs.filter((l) => l.msg === 'subscriptions moved' && l.reason === 'preferred')

/** Loops still running: stopped after each test, also when it failed (a loop left mining would disturb the next). */
const loops: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const stop of loops.splice(0)) await stop()
})

/**
 * Runs `step` over and over (25 ms apart: blocks keep coming without a loaded CI machine spending itself on
 * mining) until the returned stop is called; resolves when the last step is done.
 */
function keepDoing(step: () => Promise<unknown>) {
  let going = true
  const loop = (async () => {
    while (going) {
      await step()
      await new Promise((r) => setTimeout(r, 25))
    }
  })()
  const stop = async () => {
    going = false
    await loop
  }
  loops.push(stop)
  return stop
}

/** Cuts the primary (the subscriptions fail over to the fallback), restores it; resolves when they are back. */
async function failOverAndBack(): Promise<{ restoredAt: number }> {
  expect(hub().upstream).toBe(primary.wsUrl)
  const backBefore = movedBack().length
  await primary.cut()
  await waitFor(() => hub().upstream === fallback.wsUrl)
  await new Promise((r) => setTimeout(r, 300)) // events flow from the fallback for a while
  await primary.restore()
  const restoredAt = Date.now()
  await waitFor(() => hub().upstream === primary.wsUrl && movedBack().length > backBefore, 60_000)
  return { restoredAt }
}

describe('subscriptions move back to the preferred node', () => {
  it('primary killed → fallback; primary back → newHeads returns to it after the failback time; every block number once, in order', async () => {
    const c = await newHeadsClient(s)
    // More subscriptions to move: each is one more round trip while both nodes send heads.
    for (let i = 0; i < 15; i++)
      await c.ask(call('eth_subscribe', ['logs', { address: `0x${(i + 1).toString(16).padStart(40, '0')}` }], 100 + i))
    expect(hub().upstream).toBe(primary.wsUrl)
    const first = (await head()) + 1
    await mineOne()
    await allHave([c], first)
    // Blocks keep coming through both switches.
    const stop = keepDoing(mineOne)
    const { restoredAt } = await failOverAndBack()
    await new Promise((r) => setTimeout(r, 300)) // blocks from the primary again
    await stop()
    const last = await head()
    await allHave([c], last, 30_000)
    expect(c.heads()).toEqual(range(first, last))
    // The hysteresis: the primary had to answer for FAILBACK_MS after it came back.
    const back = movedBack().at(-1) as { time: number; upstream: string; from: string }
    expect(back.time - restoredAt).toBeGreaterThanOrEqual(FAILBACK_MS)
    expect(back.upstream).toBe(primary.wsUrl)
    expect(back.from).toBe(fallback.wsUrl)
    expect(hub().moves.preferred).toBeGreaterThanOrEqual(1)
    const metrics = await (await fetch(`${s.url}/metrics`)).text()
    expect(
      Number(/chaingate_subscription_moves_total\{network="remote",reason="preferred"\} (\d+)/.exec(metrics)?.[1]),
    ).toBeGreaterThanOrEqual(1)
    expect(c.closedWith()).toBeUndefined()
    c.ws.close()
  }, 150_000)

  it('logs across the failover and the move back: every log once, in order, none missing', async () => {
    const c = await logsClient(s)
    for (let i = 0; i < 15; i++)
      await c.ask(call('eth_subscribe', ['logs', { address: `0x${(i + 1).toString(16).padStart(40, '0')}` }], 100 + i))
    const txs: string[] = []
    const stop = keepDoing(async () => txs.push((await emitLog()) as string))
    await waitFor(() => c.logs().length >= 3)
    await failOverAndBack()
    await new Promise((r) => setTimeout(r, 300))
    await stop()
    await waitFor(() => c.logs().length >= txs.length, 30_000)
    await new Promise((r) => setTimeout(r, 500)) // a duplicate would arrive by now
    const got = c.logs().map((l) => l.transactionHash)
    expect(got.length).toBe(txs.length)
    expect(got).toEqual(txs)
    expect(c.closedWith()).toBeUndefined()
    c.ws.close()
  }, 150_000)

  it('no move back while the primary does not answer: the subscriptions stay on the fallback, clients see nothing', async () => {
    const c = await newHeadsClient(s)
    await primary.cut()
    await waitFor(() => hub().upstream === fallback.wsUrl)
    const back = movedBack().length
    const first = (await head()) + 1
    for (let i = 0; i < 3; i++) await mineOne()
    await allHave([c], first + 2)
    // Several failback checks (every FAILBACK_MS / 4) find the primary refusing connections.
    await new Promise((r) => setTimeout(r, 2 * FAILBACK_MS))
    expect(hub().upstream).toBe(fallback.wsUrl)
    expect(movedBack().length).toBe(back)
    await primary.restore()
    await waitFor(() => hub().upstream === primary.wsUrl, 30_000)
    await mineOne()
    await allHave([c], first + 3)
    expect(c.heads().filter((n) => n >= first)).toEqual(range(first, first + 3))
    c.ws.close()
  }, 60_000)
})

describe('replayed events and credits per second', () => {
  it('blocks replayed after a switch reach a key whose credits/s they exceed, and are charged per event on the daily balance like live ones', async () => {
    const { account, key } = await s.newKey('trickle')
    const c = await newHeadsClient(s, key.key)
    const first = (await head()) + 1
    await mineOne()
    await allHave([c], first)
    const usedBefore = s.parts.limits.usedToday(account.id, Date.now())
    const seenBefore = c.heads().length
    // Five blocks (250 credits of events at 50 each, on a 10 credits/s plan) made while the node hangs: the
    // heartbeat finds it, and the switch replays them in one burst.
    primary.freeze()
    for (let i = 0; i < 5; i++) await mineOne()
    await waitFor(() => hub().upstream === fallback.wsUrl)
    await allHave([c], first + 5)
    expect(c.heads()).toEqual(range(first, first + 5))
    const charged = await waitFor(() => {
      const used = s.parts.limits.usedToday(account.id, Date.now()) - usedBefore
      return used >= (c.heads().length - seenBefore) * NEWHEADS_EVENT ? used : undefined
    })
    expect(charged).toBe((c.heads().length - seenBefore) * NEWHEADS_EVENT)
    expect(c.closedWith()).toBeUndefined()
    await primary.restore()
    await waitFor(() => hub().upstream === primary.wsUrl, 30_000)
    c.ws.close()
  }, 60_000)
})

describe('a subscription node its provider starts refusing', () => {
  // Fake nodes: the fault is the provider's (HTTP 429 on calls) while the node's WebSocket still works.
  let a: FakeNode
  let b: FakeNode
  let g: TestServer
  beforeAll(async () => {
    ;[a, b] = await Promise.all([0, 1].map(() => startFakeNode(`0x${CHAIN_ID.toString(16)}`)))
    g = await startTestServer({
      networks: [{ name: 'remote', chainId: CHAIN_ID, upstreams: [a, b].map((n) => ({ url: n.url, wsUrl: n.wsUrl })) }],
      gateway: { subscriptionHeartbeatMs: 200, subscriptionFailbackMs: 0 },
      plans: { team: { creditsPerDay: 1e12, creditsPerSecond: 1e9, maxKeys: null } },
    })
  })
  afterAll(async () => {
    await g?.stop()
    await Promise.all([a?.close(), b?.close()])
  })
  const headAt = (n: number, ...nodes: FakeNode[]) => {
    for (const node of nodes) {
      node.setHead(n)
      node.notify('newHeads', { number: `0x${n.toString(16)}`, hash: node.hashOf(n) })
    }
  }

  it('is moved off once the pool cordons it (rate-limited), make before break; newHeads go on from the other node without a gap', async () => {
    const label = (n: FakeNode) => n.wsUrl.replace(/\/$/, '') // as the hub names it
    const hubR = g.parts.hubs.get('remote')!
    const pool = g.parts.pools.get('remote')!
    a.setHead(5)
    b.setHead(5)
    const c = await newHeadsClient(g)
    expect(hubR.upstream).toBe(label(a))
    const onA = a.subscriptions // the hub's, and the pool's own newHeads for head tracking
    headAt(6, a, b)
    await allHave([c], 6)
    a.fault({ kind: 'status', status: 429 })
    b.setHead(7) // made while the subscriptions move: sent from b at the switch
    // Calls let the pool find the refusal.
    const deadline = Date.now() + 20_000
    while (pool.status()[0]!.state !== 'cordoned') {
      if (Date.now() > deadline) throw new Error(`not cordoned: ${JSON.stringify(pool.status()[0])}`)
      await g.rpc(call('eth_blockNumber'), { network: 'remote' })
    }
    await waitFor(() => hubR.upstream === label(b))
    await waitFor(() => a.subscriptions === onA - 1) // the old connection closed after the switch
    headAt(8, b)
    await allHave([c], 8)
    expect(c.heads()).toEqual([6, 7, 8])
    expect(hubR.moves.unhealthy).toBe(1)
    expect(g.logs.some((l) => l.msg === 'subscriptions moved' && l.reason === 'unhealthy' && l.from === label(a))).toBe(
      true,
    )
    expect(c.closedWith()).toBeUndefined()
    c.ws.close()
  }, 60_000)
})
