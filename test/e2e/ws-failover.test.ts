/**
 * Subscriptions across upstream failures (docs/subscriptions.md): one real anvil reached through TCP proxies that
 * the tests cut mid-stream, so the gateway sees a node's WebSocket drop while blocks keep coming.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type WebSocket from 'ws'
import { startAnvil, type RunningAnvil } from '../../src/upstreams/devnet/anvil.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'
import {
  allHave,
  connect,
  logsClient,
  newHeadsClient,
  range,
  rpcAt,
  waitFor,
  type HeadsClient,
} from './helpers/ws-subscribers.ts'

const CHAIN_ID = 31341
/** anvil's first unlocked account (test mnemonic). */
const SENDER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
/** Init code that emits one LOG0 and deploys nothing: every transaction (one block each, automine) makes one log. */
const EMIT_LOG = '0x60006000a0'

const startChain = () => startAnvil({ chainId: CHAIN_ID, port: 0, blockTimeSeconds: 0 })
let anvil: RunningAnvil
beforeAll(async () => {
  anvil = await startChain()
})
afterAll(async () => anvil?.stop())

const node = (method: string, params: unknown[] = []) => rpcAt(anvil.url, method, params)
const mineOne = () => node('anvil_mine', ['0x1'])
const mine = async (blocks: number) => {
  for (let i = 0; i < blocks; i++) await mineOne()
}
const emitLog = () => node('eth_sendTransaction', [{ from: SENDER, data: EMIT_LOG }])
const head = async () => Number(await node('eth_blockNumber'))

// Replays are bursts of charged events: a plan whose per-second limit they cannot trip (the next test's calls would
// be refused with 429 otherwise).
const PLANS = { team: { creditsPerDay: 1e12, creditsPerSecond: 1e9, maxKeys: null } }
const remote = (proxies: TcpProxy[], gateway: Record<string, unknown> = {}, network: Record<string, unknown> = {}) => ({
  networks: [
    { name: 'remote', chainId: CHAIN_ID, upstreams: proxies.map((p) => ({ url: p.url, wsUrl: p.wsUrl })), ...network },
  ],
  gateway,
  plans: PLANS,
})

/**
 * For the describe it is called in: a TCP proxy to each node URL of `targets()` (what the tests cut or freeze) and a
 * gateway over them, stopped after its tests. Nodes the describe starts in hooks registered before this call are up
 * the whole time: these hooks run after theirs and stop before theirs (vitest runs afterAll hooks in reverse).
 */
function gatewayOver(
  targets: () => string[],
  config: (proxies: TcpProxy[]) => Record<string, unknown> = (p) => remote(p),
) {
  const g = { s: undefined as unknown as TestServer, proxies: [] as TcpProxy[] }
  beforeAll(async () => {
    for (const url of targets()) g.proxies.push(await startTcpProxy(url))
    g.s = await startTestServer(config(g.proxies))
  })
  afterAll(async () => {
    await g.s?.stop()
    for (const p of g.proxies) await p.close()
  })
  return g
}

/** The proxy the gateway's subscriptions run through now, and the other one. */
function subscriptionProxies(s: TestServer, a: TcpProxy, b: TcpProxy) {
  const current = s.parts.hubs.get('remote')!.upstream === a.wsUrl ? a : b
  return { current, other: current === a ? b : a }
}

/** A newHeads client that subscribed while `down` was cut, so the subscriptions start on the other node. */
async function newHeadsClientAvoiding(s: TestServer, down: TcpProxy) {
  await down.cut()
  const c = await newHeadsClient(s)
  await down.restore()
  return c
}

/** How a failover test ends: the subscriptions run on `other` and no client was closed; then `moved` comes back. */
async function expectMovedWithoutClosing(
  s: TestServer,
  other: TcpProxy,
  moved: TcpProxy,
  clients: { ws: WebSocket; closedWith(): unknown }[],
) {
  expect(s.parts.hubs.get('remote')!.upstream).toBe(other.wsUrl)
  for (const c of clients) expect(c.closedWith()).toBeUndefined()
  await moved.restore()
  for (const c of clients) c.ws.close()
}
/** Mines one block on the shared node and waits until every client has its head; returns its number. */
async function mineSeen(clients: HeadsClient[]): Promise<number> {
  const n = (await head()) + 1
  await mineOne()
  await allHave(clients, n)
  return n
}

describe('subscriptions with two upstreams', () => {
  const g = gatewayOver(() => [anvil.url, anvil.url])

  it('clients with the same subscription share one upstream subscription; the last unsubscribe ends it', async () => {
    const hub = g.s.parts.hubs.get('remote')!
    const c1 = await newHeadsClient(g.s)
    const c2 = await newHeadsClient(g.s)
    // The same filter written in another member order is the same subscription.
    const l1 = await c1.ask(call('eth_subscribe', ['logs', { topics: [], address: [] }], 2))
    const l2 = await c2.ask(call('eth_subscribe', ['logs', { address: [], topics: [] }], 2))
    expect(c1.sub).not.toBe(c2.sub) // each client has its own id
    expect(hub.size).toBe(2)
    await mineSeen([c1, c2])
    expect(await c1.ask(call('eth_unsubscribe', [c1.sub], 3))).toMatchObject({ result: true })
    expect(hub.size).toBe(2)
    expect(await c2.ask(call('eth_unsubscribe', [c2.sub], 3))).toMatchObject({ result: true })
    expect(hub.size).toBe(1)
    await c1.ask(call('eth_unsubscribe', [l1.result], 4))
    await c2.ask(call('eth_unsubscribe', [l2.result], 4))
    expect(hub.size).toBe(0)
    c1.ws.close()
    c2.ws.close()
  })

  it('drop WS mid-stream: newHeads moves to the other upstream, every block number once and in order, socket kept open', async () => {
    const {
      s,
      proxies: [a, b],
    } = g
    const c1 = await newHeadsClient(s)
    const c2 = await newHeadsClient(s)
    const first = (await head()) + 1
    await mine(3)
    await allHave([c1], first + 2)
    const { current: cut, other } = subscriptionProxies(s, a, b)
    await cut.cut()
    // Blocks made while the gateway is switching: fetched from the new upstream and sent in order.
    await mine(3)
    await allHave([c1, c2], first + 5)
    await mine(2)
    await allHave([c1, c2], first + 7)
    expect(c1.heads()).toEqual(range(first, first + 7))
    expect(c2.heads()).toEqual(range(first, first + 7))
    expect(s.logs.some((l) => l.msg === 'subscriptions resumed' && l.upstream === other.wsUrl)).toBe(true)
    const metrics = await (await fetch(`${s.url}/metrics`)).text()
    expect(
      Number(/chaingate_subscription_moves_total\{network="remote",reason="dropped"\} (\d+)/.exec(metrics)?.[1]),
    ).toBeGreaterThanOrEqual(1)
    expect(metrics).toMatch(/chaingate_upstream_subscriptions\{network="remote",kind="newHeads"\} 1\b/)
    await expectMovedWithoutClosing(s, other, cut, [c1, c2])
  }, 60_000)

  it('drop WS mid-stream while blocks keep coming and many subscriptions move: newHeads still sees every block once, in order', async () => {
    const {
      s,
      proxies: [a, b],
    } = g
    const c = await newHeadsClient(s)
    // More subscriptions to move: each is one more round trip while the new node's heads already flow.
    for (let i = 0; i < 15; i++)
      await c.ask(call('eth_subscribe', ['logs', { address: `0x${(i + 1).toString(16).padStart(40, '0')}` }], 100 + i))
    const first = await mineSeen([c])
    let mining = true
    const miner = (async () => {
      while (mining) await mineOne()
    })()
    await new Promise((r) => setTimeout(r, 200))
    const { current, other } = subscriptionProxies(s, a, b)
    await current.cut()
    await new Promise((r) => setTimeout(r, 1500))
    mining = false
    await miner
    const last = await head()
    await allHave([c], last, 30_000)
    expect(c.heads()).toEqual(range(first, last))
    await expectMovedWithoutClosing(s, other, current, [c])
  }, 60_000)

  it('drop WS mid-stream while logs keep coming: every log once, in order', async () => {
    const {
      s,
      proxies: [a, b],
    } = g
    const hub = s.parts.hubs.get('remote')!
    const c = await logsClient(s)
    const logs = () => c.logs().map((l) => l.transactionHash)
    const txs: string[] = []
    let sending = true
    const sender = (async () => {
      while (sending) txs.push((await emitLog()) as string)
    })()
    await waitFor(() => logs().length >= 3)
    const { current, other } = subscriptionProxies(s, a, b)
    await current.cut()
    await new Promise((r) => setTimeout(r, 1500))
    sending = false
    await sender
    await waitFor(() => logs().length >= txs.length, 30_000)
    await new Promise((r) => setTimeout(r, 500)) // a duplicate would arrive by now
    expect(logs()).toEqual(txs)
    expect(hub.upstream).toBe(other.wsUrl)
    await current.restore()
    c.ws.close()
  }, 60_000)

  it('drop WS mid-stream: logs moves to the other upstream and the missed blocks are filled by eth_getLogs, no duplicates', async () => {
    const {
      s,
      proxies: [a, b],
    } = g
    const c = await logsClient(s)
    const txs: string[] = []
    for (let i = 0; i < 2; i++) txs.push((await emitLog()) as string)
    await waitFor(() => c.logs().length >= 2)
    const { current, other } = subscriptionProxies(s, a, b)
    await current.cut()
    for (let i = 0; i < 3; i++) txs.push((await emitLog()) as string)
    await waitFor(() => c.logs().length >= 5)
    txs.push((await emitLog()) as string)
    await waitFor(() => c.logs().length >= 6)
    await new Promise((r) => setTimeout(r, 500)) // anything extra (a duplicate) would arrive by now
    expect(c.logs().map((l) => l.transactionHash)).toEqual(txs)
    const blocks = c.logs().map((l) => Number(l.blockNumber))
    expect(blocks).toEqual(range(blocks[0]!, blocks[0]! + 5))
    await expectMovedWithoutClosing(s, other, current, [c])
  }, 60_000)
})

describe('subscriptions with one upstream', () => {
  const g = gatewayOver(
    () => [anvil.url],
    (p) => remote(p, { subscriptionFailoverMs: 60_000 }),
  )

  it('the only upstream restarts: the gateway reconnects with back-off and sends the blocks made meanwhile, in order', async () => {
    const [p] = g.proxies
    const c = await newHeadsClient(g.s)
    const first = await mineSeen([c])
    await p.cut()
    await mine(4)
    await new Promise((r) => setTimeout(r, 1500)) // down for a while: several reconnection attempts refused
    expect(c.closedWith()).toBeUndefined()
    await p.restore()
    await allHave([c], first + 4)
    await mineOne()
    await allHave([c], first + 5)
    expect(c.heads()).toEqual(range(first, first + 5))
    expect(c.closedWith()).toBeUndefined()
    c.ws.close()
  }, 60_000)
})

describe('no upstream reachable', () => {
  const g = gatewayOver(
    () => [anvil.url],
    (p) => remote(p, { subscriptionFailoverMs: 1000 }),
  )

  it('after gateway.subscriptionFailoverMs without a node, clients are closed with 1013 and may subscribe again later', async () => {
    const {
      s,
      proxies: [p],
    } = g
    const c = await connect(s)
    await c.ask(call('eth_subscribe', ['newHeads'], 1))
    await p.cut()
    const closed = await Promise.race([c.closed, new Promise((r) => setTimeout(() => r('still open'), 30_000))])
    expect(closed).toMatchObject({ code: 1013 })
    expect((closed as { reason: string }).reason).toContain('subscribe again')
    expect(s.parts.hubs.get('remote')!.size).toBe(0)
    await p.restore()
    const again = await newHeadsClient(s)
    expect(typeof again.sub).toBe('string')
    await mineSeen([again])
    again.ws.close()
  }, 60_000)
})

describe('an upstream that hangs', () => {
  const g = gatewayOver(
    () => [anvil.url, anvil.url],
    (p) => remote(p, { subscriptionHeartbeatMs: 300 }),
  )

  it('hang mid-stream (socket open, nothing sent): found by the heartbeat, newHeads moves to the other upstream, every block once', async () => {
    const {
      s,
      proxies: [a, b],
    } = g
    const c = await newHeadsClient(s)
    const first = await mineSeen([c])
    const { current: hanging, other } = subscriptionProxies(s, a, b)
    hanging.freeze()
    await mine(3)
    await allHave([c], first + 3, 30_000)
    await mineOne()
    await allHave([c], first + 4)
    expect(c.heads()).toEqual(range(first, first + 4))
    expect(
      s.logs.some(
        (l) => l.msg === 'subscription node stopped answering: moving subscriptions' && l.upstream === hanging.wsUrl,
      ),
    ).toBe(true)
    await expectMovedWithoutClosing(s, other, hanging, [c])
  }, 60_000)
})

describe('upstreams at different heights', () => {
  let behind: RunningAnvil
  beforeAll(async () => {
    behind = await startChain()
  })
  afterAll(async () => behind?.stop())
  const g = gatewayOver(() => [anvil.url, behind.url])

  it('the next upstream is behind: heads the client already has are dropped, numbers go on once it passes them', async () => {
    const {
      s,
      proxies: [a, b],
    } = g
    const hub = s.parts.hubs.get('remote')!
    // Subscriptions start on the node that is ahead.
    await a.restore()
    const c = await newHeadsClientAvoiding(s, b)
    expect(hub.upstream).toBe(a.wsUrl)
    await mine(3)
    const top = await head()
    await allHave([c], top)
    await a.cut()
    await waitFor(() => hub.upstream === b.wsUrl)
    const mineBehind = (n: number) => rpcAt(behind.url, 'anvil_mine', [`0x${n.toString(16)}`])
    const behindHead = async () => Number(await rpcAt(behind.url, 'eth_blockNumber'))
    expect(await behindHead()).toBeLessThan(top)
    // The lagging node catches up block by block to the client's last head, then goes 3 beyond it.
    const gap = top - (await behindHead())
    if (gap > 3) await mineBehind(gap - 2) // heads the client has already: all dropped, however the node sends them
    while ((await behindHead()) < top + 3) await mineBehind(1)
    await allHave([c], top + 3, 30_000)
    const seen = c.heads()
    expect(seen).toEqual(range(seen[0]!, top + 3))
    expect(c.closedWith()).toBeUndefined()
    c.ws.close()
  }, 90_000)
})

describe('a subscription node the pool finds lagging', () => {
  // Two fresh chains (the shared anvil is far ahead after the tests above): the gap to replay stays small.
  let ahead: RunningAnvil
  let behind: RunningAnvil
  beforeAll(async () => {
    ;[ahead, behind] = await Promise.all([0, 1].map(() => startChain()))
  })
  afterAll(async () => {
    await behind?.stop()
    await ahead?.stop()
  })
  const g = gatewayOver(
    () => [ahead.url, behind.url],
    (p) => remote(p, { subscriptionHeartbeatMs: 300 }, { upstreamPolicy: { headPollMs: 1000 } }),
  )

  it('is left for a healthy node once the pool sees it lag; heads go on from the healthy node without a gap', async () => {
    const {
      s,
      proxies: [a, b],
    } = g
    const hub = s.parts.hubs.get('remote')!
    const onAhead = (method: string, params: unknown[] = []) => rpcAt(ahead.url, method, params)
    await onAhead('anvil_mine', ['0x14']) // well ahead (more than maxLagBlocks)
    // Subscriptions start on the lagging node.
    const c = await newHeadsClientAvoiding(s, a)
    expect(hub.upstream).toBe(b.wsUrl)
    await rpcAt(behind.url, 'anvil_mine', ['0x1'])
    await waitFor(() => c.heads().length > 0)
    // Calls make the pool poll the nodes' heads: it finds the subscription node behind the served tip.
    const deadline = Date.now() + 30_000
    while (hub.upstream !== a.wsUrl) {
      if (Date.now() > deadline)
        throw new Error(`still on ${hub.upstream}: ${JSON.stringify(s.parts.pools.get('remote')!.status())}`)
      await s.rpc(call('eth_blockNumber'), { network: 'remote' })
      await new Promise((r) => setTimeout(r, 200))
    }
    await onAhead('anvil_mine', ['0x1'])
    const top = Number(await onAhead('eth_blockNumber'))
    await allHave([c], top, 30_000)
    const seen = c.heads()
    expect(seen).toEqual(range(seen[0]!, top))
    expect(
      s.logs.some(
        (l) =>
          l.msg === 'subscription node lagging or failing for the pool: moving subscriptions' && l.upstream === b.wsUrl,
      ),
    ).toBe(true)
    expect(c.closedWith()).toBeUndefined()
    c.ws.close()
  }, 90_000)
})
