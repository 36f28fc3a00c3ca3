import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { rpcError, type FakeNode } from '../../../test/support/fake-node.ts'
import { NodeRpcError, subscriptionKey, type SubscriptionHub } from './hub.ts'
import { registerSubscriptionMetrics } from './metrics.ts'
import { hubHarness, sent, until } from './hub.test-support.ts'

const { fakeNode, hub } = hubHarness()

/** A newHeads event of the fake node for block `n` (its chain's hash), after moving its head there. */
const headAt = (node: FakeNode, n: number) => {
  node.setHead(n)
  node.notify('newHeads', { number: `0x${n.toString(16)}`, hash: node.hashOf(n) })
}
const numbers = (seen: unknown[]) => seen.map((r) => Number((r as { number: string }).number))
const ADDRESS = '0x00000000000000000000000000000000000000aa'
const log = (block: number, index: number) => ({
  address: ADDRESS,
  blockNumber: `0x${block.toString(16)}`,
  logIndex: `0x${index.toString(16)}`,
  topics: [],
  data: '0x',
  removed: false,
})
const never = () => expect.fail('no client is told')

describe('subscriptionKey', () => {
  it('the same filter gives the same key whatever its member order and hex case; another filter another key', () => {
    const a = subscriptionKey(['logs', { address: '0xAbC0000000000000000000000000000000000001', topics: [['0xDDF2']] }])
    const b = subscriptionKey(['logs', { topics: [['0xddf2']], address: '0xabc0000000000000000000000000000000000001' }])
    expect(a).toBe(b)
    expect(subscriptionKey(['logs', { address: '0xabc0000000000000000000000000000000000002' }])).not.toBe(a)
    expect(subscriptionKey(['newHeads'])).not.toBe(subscriptionKey(['newPendingTransactions']))
  })
})

describe('subscription hub', () => {
  it('clients with the same subscription share one node subscription; each gets every event; the last to leave unsubscribes at the node', async () => {
    const node = await fakeNode()
    const h = hub([node.wsUrl])
    const seen1: unknown[] = []
    const seen2: string[] = []
    const s1 = await h.subscribe(
      ['newHeads'],
      (r) => seen1.push(r),
      () => undefined,
    )
    const s2 = await h.subscribe(
      ['newHeads'],
      (_r, json) => seen2.push(json),
      () => undefined,
    )
    expect(sent(node, 'eth_subscribe').length).toBe(1)
    expect(node.subscriptions).toBe(1)
    node.notify('newHeads', { number: '0x5', hash: '0x05' })
    await until(() => seen1.length === 1 && seen2.length === 1)
    expect(seen1).toEqual([{ number: '0x5', hash: '0x05' }])
    expect(seen2).toEqual(['{"number":"0x5","hash":"0x05"}'])
    await s1.unsubscribe()
    expect(sent(node, 'eth_unsubscribe').length).toBe(0)
    await s2.unsubscribe()
    // The node's own id for the one subscription it gave.
    expect(sent(node, 'eth_unsubscribe').map((r) => r.body.params)).toEqual([['0x1']])
    expect(node.subscriptions).toBe(0)
    expect(h.size).toBe(0)
  })

  it("a node's error answer to eth_subscribe reaches the caller; the next subscribe asks the node again", async () => {
    const node = await fakeNode()
    node.answer((req) =>
      req.body?.method === 'eth_subscribe' && req.body.params?.[0] === 'logs'
        ? { body: rpcError(req, -32602, 'invalid address') }
        : undefined,
    )
    const h = hub([node.wsUrl])
    const err = await h
      .subscribe(
        ['logs', { address: 'nope' }],
        () => undefined,
        () => undefined,
      )
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(NodeRpcError)
    expect((err as NodeRpcError).error).toEqual({ code: -32602, message: 'invalid address' })
    expect(h.size).toBe(0)
    await h
      .subscribe(
        ['logs', { address: 'nope' }],
        () => undefined,
        () => undefined,
      )
      .catch(() => undefined)
    expect(sent(node, 'eth_subscribe').length).toBe(2)
  })

  it('a node on another chain id is never used for subscriptions', async () => {
    const wrong = await fakeNode('0x1')
    const right = await fakeNode()
    const h = hub([wrong.wsUrl, right.wsUrl], { chainId: 31341 })
    await h.subscribe(
      ['newHeads'],
      () => undefined,
      () => undefined,
    )
    expect(h.upstream).toBe(right.wsUrl)
    expect(sent(wrong, 'eth_subscribe').length).toBe(0)
    expect(sent(right, 'eth_subscribe').length).toBe(1)
  })

  it('no node reachable: subscribe fails with the gateway error naming the network', async () => {
    const node = await fakeNode()
    await node.kill()
    const h = hub([node.wsUrl])
    const err = await h
      .subscribe(
        ['newHeads'],
        () => undefined,
        () => undefined,
      )
      .catch((e: unknown) => e)
    expect((err as { code?: string }).code).toBe('UPSTREAM_UNAVAILABLE')
    expect((err as Error).message).toContain('net')
  })

  it('different kinds and filters get their own node subscription, each with the hex id its node gave', async () => {
    const node = await fakeNode()
    const h = hub([node.wsUrl])
    const heads = await h.subscribe(['newHeads'], () => undefined, never)
    const logsA = await h.subscribe(['logs', { address: ADDRESS }], () => undefined, never)
    const logsB = await h.subscribe(['logs', { address: ADDRESS, topics: [] }], () => undefined, never)
    const pending = await h.subscribe(['newPendingTransactions'], () => undefined, never)
    expect(h.size).toBe(4)
    expect(new Set([heads.id, logsA.id, logsB.id, pending.id]).size).toBe(4)
    expect(node.subscriptions).toBe(4)
    // Each is ended with its own node id (0x1 … 0x4 in the order the node gave them).
    await logsB.unsubscribe()
    await heads.unsubscribe()
    expect(sent(node, 'eth_unsubscribe').map((r) => r.body.params)).toEqual([['0x3'], ['0x1']])
    // A client leaving twice does not end the subscription of the others.
    const again = await h.subscribe(['logs', { address: ADDRESS }], () => undefined, never)
    await logsA.unsubscribe()
    await logsA.unsubscribe()
    expect(sent(node, 'eth_unsubscribe').length).toBe(2)
    await again.unsubscribe()
    expect(
      sent(node, 'eth_unsubscribe')
        .map((r) => r.body.params)
        .at(-1),
    ).toEqual(['0x2'])
    expect(h.size).toBe(1)
  })

  it("a node's loss moves every subscription to the next node: the heads and logs missed are sent, each once and in order", async () => {
    const [a, b] = [await fakeNode(), await fakeNode()]
    a.setHead(5)
    const h = hub([a.wsUrl, b.wsUrl])
    const seen1: unknown[] = []
    const seen2: unknown[] = []
    const logs: unknown[] = []
    await h.subscribe(['newHeads'], (r) => seen1.push(r), never)
    await h.subscribe(['newHeads'], (r) => seen2.push(r), never)
    await h.subscribe(['logs', { address: ADDRESS }], (r) => logs.push(r), never)
    expect(h.upstream).toBe(a.wsUrl)
    headAt(a, 6)
    a.notify('logs', log(6, 0))
    await until(() => seen1.length === 1 && seen2.length === 1 && logs.length === 1)

    // b is ahead: blocks 7 and 8 were made while the subscriptions moved. Its logs include the one already sent.
    b.setHead(8)
    b.answer((req) =>
      req.body?.method === 'eth_getLogs'
        ? { body: { jsonrpc: '2.0', id: req.body.id, result: [log(6, 0), log(7, 0), log(8, 1)] } }
        : undefined,
    )
    await a.kill()
    await until(() => h.upstream === b.wsUrl && seen1.length === 3 && seen2.length === 3 && logs.length === 3)
    headAt(b, 9)
    await until(() => seen1.length === 4 && seen2.length === 4)
    expect(numbers(seen1)).toEqual([6, 7, 8, 9])
    expect(numbers(seen2)).toEqual([6, 7, 8, 9])
    // The heads filled from blocks carry header fields only, the new node's own hashes.
    expect(seen1[1]).toMatchObject({ number: '0x7', hash: b.hashOf(7) })
    expect(seen1[1]).not.toHaveProperty('transactions')
    expect(logs.map((l) => (l as { blockNumber: string }).blockNumber)).toEqual(['0x6', '0x7', '0x8'])
    // Asked again at b: one node subscription per shared one.
    expect(
      sent(b, 'eth_subscribe')
        .map((r) => r.body.params[0])
        .sort(),
    ).toEqual(['logs', 'newHeads'])
    expect(h.size).toBe(2)
    expect(h.moves).toMatchObject({ dropped: 1, 'gave-up': 0 })
  })

  it('no node within failoverMs: every client is told, the subscriptions are gone; a later subscribe starts afresh', async () => {
    const node = await fakeNode()
    const h = hub([node.wsUrl], { failoverMs: 300 })
    const lost: string[] = []
    await h.subscribe(
      ['newHeads'],
      () => undefined,
      (why) => lost.push(why),
    )
    await h.subscribe(
      ['logs', { address: ADDRESS }],
      () => undefined,
      (why) => lost.push(why),
    )
    await node.kill()
    await until(() => lost.length === 2)
    expect(lost[0]).toBe('no node of network net reachable for subscriptions within 300 ms; subscribe again')
    expect(h.moves).toMatchObject({ dropped: 1, 'gave-up': 1 })
    expect(h.size).toBe(0)
    await node.revive()
    const seen: unknown[] = []
    await h.subscribe(['newHeads'], (r) => seen.push(r), never)
    headAt(node, 3)
    await until(() => seen.length === 1)
    expect(h.size).toBe(1)
  })

  it('maxSubscriptions caps distinct node subscriptions; joining one held is never refused; the operator hears once', async () => {
    const node = await fakeNode()
    const warnings: string[] = []
    const h = hub([node.wsUrl], {
      maxSubscriptions: 2,
      log: { info: () => undefined, warn: (_o, msg) => void warnings.push(msg) },
    })
    const heads = await h.subscribe(['newHeads'], () => undefined, never)
    await h.subscribe(['logs', { address: ADDRESS }], () => undefined, never)
    const refused = async () =>
      h.subscribe(['newPendingTransactions'], () => undefined, never).catch((e: { code?: string }) => e.code)
    expect(await refused()).toBe('UPSTREAM_SUBSCRIPTION_LIMIT')
    expect(await refused()).toBe('UPSTREAM_SUBSCRIPTION_LIMIT')
    expect(warnings).toEqual(['node subscriptions at gateway.maxUpstreamSubscriptionsPerNetwork'])
    await h.subscribe(['newHeads'], () => undefined, never) // joins: allowed
    expect(sent(node, 'eth_subscribe').length).toBe(2)
    await heads.unsubscribe() // another client still holds newHeads: still two
    expect(await refused()).toBe('UPSTREAM_SUBSCRIPTION_LIMIT')
  })

  it('after close a subscribe is refused; the metrics show subscriptions held and moves per network', async () => {
    const node = await fakeNode()
    const h = hub([node.wsUrl])
    await h.subscribe(
      ['newHeads'],
      () => undefined,
      () => undefined,
    )
    await h.subscribe(
      ['newPendingTransactions'],
      () => undefined,
      () => undefined,
    )
    const registry = new Registry()
    registerSubscriptionMetrics(registry, new Map<string, SubscriptionHub>([['net', h]]))
    const text = await registry.metrics()
    expect(text).toContain('chaingate_upstream_subscriptions{network="net",kind="newHeads"} 1')
    expect(text).toContain('chaingate_upstream_subscriptions{network="net",kind="newPendingTransactions"} 1')
    expect(text).toContain('chaingate_upstream_subscriptions{network="net",kind="logs"} 0')
    expect(text).toContain('chaingate_subscription_moves_total{network="net",reason="dropped"} 0')
    await h.close()
    const err = await h
      .subscribe(
        ['newHeads'],
        () => undefined,
        () => undefined,
      )
      .catch((e: unknown) => e)
    expect((err as { code?: string }).code).toBe('UPSTREAM_UNAVAILABLE')
    expect((err as Error).message).toContain('shutting down')
  })
})
