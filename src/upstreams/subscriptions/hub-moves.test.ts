import { describe, expect, it } from 'vitest'
import { rpcError, type FakeNode } from '../../../test/support/fake-node.ts'
import { CHAIN, hubHarness, sent, until } from './hub.test-support.ts'

const { fakeNode, hub } = hubHarness()

const headAt = (node: FakeNode, n: number) => {
  node.setHead(n)
  node.notify('newHeads', { number: `0x${n.toString(16)}`, hash: node.hashOf(n) })
}
const numbers = (seen: unknown[]) => seen.map((r) => Number((r as { number: string }).number))

describe('subscription hub: planned moves, make before break', () => {
  it('after a failover, back to the node ranked first once it has answered for failbackMs: opened there before the old one closes; every head once, in order', async () => {
    const [a, b] = [await fakeNode(), await fakeNode()]
    const h = hub([a.wsUrl, b.wsUrl], { failbackMs: 300 })
    const seen: unknown[] = []
    await h.subscribe(
      ['newHeads'],
      (r) => seen.push(r),
      () => expect.fail('no client is told'),
    )
    expect(h.upstream).toBe(a.wsUrl)
    b.setHead(11)
    headAt(a, 11)
    await until(() => seen.length === 1)
    await a.kill()
    await until(() => h.upstream === b.wsUrl)
    headAt(b, 12)
    await until(() => seen.length === 2)
    // a comes back ahead: block 13, made while the subscriptions were on b, is sent from a at the switch.
    a.setHead(13)
    let oldOpenAtSubscribe: number | undefined
    a.answer((req) => {
      if (req.body?.method === 'eth_subscribe') oldOpenAtSubscribe = b.subscriptions
      return undefined
    })
    const revivedAt = Date.now()
    await a.revive()
    await until(() => h.upstream === a.wsUrl)
    expect(Date.now() - revivedAt).toBeGreaterThanOrEqual(300)
    expect(oldOpenAtSubscribe).toBe(1) // make before break
    await until(() => b.subscriptions === 0 && seen.length === 3) // then the old one is closed
    headAt(b, 14) // the old node's events after the switch are not passed on
    headAt(a, 14)
    await until(() => seen.length === 4)
    expect(numbers(seen)).toEqual([11, 12, 13, 14])
    expect(h.moves).toMatchObject({ dropped: 1, preferred: 1 })
  })

  it('the preferred node refuses a subscription on the way back: nothing moves and no client is told', async () => {
    const [a, b] = [await fakeNode(), await fakeNode()]
    const h = hub([a.wsUrl, b.wsUrl], { failbackMs: 200 })
    await a.kill()
    const lost: string[] = []
    await h.subscribe(
      ['newHeads'],
      () => undefined,
      (r) => lost.push(r),
    )
    await h.subscribe(
      ['newPendingTransactions'],
      () => undefined,
      (r) => lost.push(r),
    )
    expect(h.upstream).toBe(b.wsUrl)
    a.answer((req) =>
      req.body?.method === 'eth_subscribe' && req.body.params?.[0] === 'newPendingTransactions'
        ? { body: rpcError(req, -32601, 'no mempool') }
        : undefined,
    )
    await a.revive()
    // Two attempts, each after the node answered for failbackMs again.
    await until(() => sent(a, 'eth_subscribe').filter((r) => r.body.params[0] === 'newPendingTransactions').length >= 2)
    expect(h.upstream).toBe(b.wsUrl)
    expect(b.subscriptions).toBe(2)
    expect(lost).toEqual([])
    expect(h.moves.preferred).toBe(0)
  })

  it('a preferred node that fails its check is asked again only after failbackMs; once it answers, the subscriptions go back to it', async () => {
    const [a, b] = [await fakeNode(), await fakeNode()]
    let aChain = '0x1'
    a.answer((req) =>
      req.body?.method === 'eth_chainId' ? { body: { jsonrpc: '2.0', id: req.body.id, result: aChain } } : undefined,
    )
    const h = hub([a.wsUrl, b.wsUrl], { chainId: 31341, failbackMs: 400 })
    await h.subscribe(
      ['newHeads'],
      () => undefined,
      () => expect.fail('no client is told'),
    )
    expect(h.upstream).toBe(b.wsUrl) // a is on another chain
    const asked = () => sent(a, 'eth_chainId').length
    const before = asked()
    await new Promise((r) => setTimeout(r, 1000))
    // Checked every 100 ms (failbackMs / 4) while it answers; after a failed check, not before 400 ms.
    expect(asked() - before).toBeGreaterThanOrEqual(1)
    expect(asked() - before).toBeLessThanOrEqual(3)
    aChain = CHAIN
    await until(() => h.upstream === a.wsUrl)
    expect(h.moves.preferred).toBe(1)
  })

  it('a node the pool counts unhealthy (lagging, cordoned) is moved off to a healthy one, make before break; heads go on without a gap', async () => {
    const [a, b] = [await fakeNode(), await fakeNode()]
    let aHealthy = true
    const h = hub([a.wsUrl, b.wsUrl], { heartbeatMs: 100, isHealthy: (u) => u !== a.wsUrl || aHealthy })
    const seen: unknown[] = []
    await h.subscribe(
      ['newHeads'],
      (r) => seen.push(r),
      () => expect.fail('no client is told'),
    )
    headAt(a, 11)
    await until(() => seen.length === 1)
    b.setHead(12)
    let oldOpenAtSubscribe: number | undefined
    b.answer((req) => {
      if (req.body?.method === 'eth_subscribe') oldOpenAtSubscribe = a.subscriptions
      return undefined
    })
    aHealthy = false
    await until(() => h.upstream === b.wsUrl && seen.length === 2)
    expect(oldOpenAtSubscribe).toBe(1)
    headAt(b, 13)
    await until(() => seen.length === 3)
    expect(numbers(seen)).toEqual([11, 12, 13])
    expect(h.moves).toMatchObject({ unhealthy: 1, dropped: 0 })
  })

  it('a subscription node that answers another chain id at the heartbeat is moved off', async () => {
    const [a, b] = [await fakeNode(), await fakeNode()]
    const h = hub([a.wsUrl, b.wsUrl], { heartbeatMs: 100, chainId: 31341 })
    await h.subscribe(
      ['newHeads'],
      () => undefined,
      () => expect.fail('no client is told'),
    )
    expect(h.upstream).toBe(a.wsUrl)
    a.answer((req) =>
      req.body?.method === 'eth_chainId' ? { body: { jsonrpc: '2.0', id: req.body.id, result: '0x1' } } : undefined,
    )
    await until(() => h.upstream === b.wsUrl)
    expect(h.moves.unhealthy).toBe(1)
  })
})

describe('subscription hub: logs across a planned move', () => {
  const log = (block: number, index = 0) => ({
    blockNumber: `0x${block.toString(16)}`,
    logIndex: `0x${index.toString(16)}`,
    transactionHash: `0x${block}${index}`,
  })

  it('moved to a node behind: the logs it sends again while catching up are dropped, the next pass', async () => {
    const [a, b] = [await fakeNode(), await fakeNode()]
    let aHealthy = true
    const h = hub([a.wsUrl, b.wsUrl], { heartbeatMs: 100, isHealthy: (u) => u !== a.wsUrl || aHealthy })
    a.setHead(9)
    b.setHead(9)
    for (const n of [a, b])
      n.answer((req) =>
        req.body?.method === 'eth_getLogs' ? { body: { jsonrpc: '2.0', id: req.body.id, result: [] } } : undefined,
      )
    const seen: { transactionHash: string }[] = []
    await h.subscribe(
      ['logs', {}],
      (r) => seen.push(r as never),
      () => expect.fail('no client is told'),
    )
    a.setHead(11)
    a.notify('logs', log(10))
    a.notify('logs', log(11))
    a.notify('logs', log(11, 1))
    await until(() => seen.length === 3)
    aHealthy = false // b, still at block 9, takes the subscription
    await until(() => h.upstream === b.wsUrl)
    b.setHead(11)
    b.notify('logs', log(10))
    b.notify('logs', log(11))
    b.notify('logs', log(11, 1))
    b.setHead(12)
    b.notify('logs', log(12))
    await until(() => seen.length >= 4)
    await new Promise((r) => setTimeout(r, 100)) // a duplicate would have come by now
    expect(seen.map((l) => l.transactionHash)).toEqual(['0x100', '0x110', '0x111', '0x120'])
    // Seven node notifications, four passed on: four fan-out times observed (a duplicate dropped sends nothing).
    expect(h.fanout.get('logs')?.count).toBe(4)
  })
})
