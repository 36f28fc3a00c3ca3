import { describe, expect, it } from 'vitest'
import { rpcError } from '../../../test/e2e/helpers/fake-node.ts'
import { NodeRpcError, subscriptionKey } from './hub.ts'
import { hubHarness, sent, until } from './hub.test-support.ts'

const { fakeNode, hub } = hubHarness()

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
})

/** A newHeads event of the fake node for block `n` (its chain's hash), after moving its head there. */
