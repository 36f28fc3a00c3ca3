import { describe, expect, it } from 'vitest'
import { rpcError, type FakeNode } from '../../../test/support/fake-node.ts'
import { hubHarness, sent, until } from './hub.test-support.ts'
import { SOLANA_PROTOCOL } from './protocol.ts'

const { fakeNode, hub: evmHub } = hubHarness()
const hub = (urls: string[], extra: Parameters<typeof evmHub>[1] = {}) => evmHub(urls, { family: 'solana', ...extra })

const PK = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T'
const SIG = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW'
const slots = (seen: unknown[]) => seen.map((r) => (r as { slot: number }).slot)
const slotAt = (node: FakeNode, slot: number) => node.notifySolana('slot', { parent: slot - 1, root: 0, slot })
const noop = () => undefined

describe('subscription hub, Solana', () => {
  it('one node subscription per kind and params, integer node ids; the last client to leave unsubscribes with the id as a number', async () => {
    const node = await fakeNode()
    const h = hub([node.wsUrl])
    const seen1: unknown[] = []
    const seen2: string[] = []
    const s1 = await h.subscribe(['slot'], (r) => seen1.push(r), noop)
    const s2 = await h.subscribe(['slot'], (_r, json) => seen2.push(json), noop)
    expect(sent(node, 'slotSubscribe').map((r) => r.body.params)).toEqual([[]])
    slotAt(node, 7)
    await until(() => seen1.length === 1 && seen2.length === 1)
    expect(seen1).toEqual([{ parent: 6, root: 0, slot: 7 }])
    expect(seen2).toEqual(['{"parent":6,"root":0,"slot":7}'])
    await s1.unsubscribe()
    expect(sent(node, 'slotUnsubscribe')).toEqual([])
    await s2.unsubscribe()
    expect(sent(node, 'slotUnsubscribe').map((r) => r.body.params)).toEqual([[0]])
    expect(h.size).toBe(0)
    // No EVM call was ever made to a Solana node.
    expect(node.wsRequests.filter((r) => String(r.body?.method).startsWith('eth_'))).toEqual([])
  })

  it("params a validator counts as the same (its defaults written or not, members in any order) share one node subscription; others don't", async () => {
    const node = await fakeNode()
    const h = hub([node.wsUrl])
    await h.subscribe(['account', PK], noop, noop)
    await h.subscribe(['account', PK, { commitment: 'finalized' }], noop, noop)
    await h.subscribe(['account', PK, { encoding: 'binary', commitment: 'finalized', minContextSlot: 5 }], noop, noop)
    expect(sent(node, 'accountSubscribe').length).toBe(1)
    await h.subscribe(['account', PK, { commitment: 'confirmed' }], noop, noop)
    await h.subscribe(['account', PK, { encoding: 'base64' }], noop, noop)
    expect(sent(node, 'accountSubscribe').map((r) => r.body.params)).toEqual([
      [PK],
      [PK, { commitment: 'confirmed' }],
      [PK, { encoding: 'base64' }],
    ])
    expect(SOLANA_PROTOCOL.key(['logs', 'all'])).toBe(SOLANA_PROTOCOL.key(['logs', 'all', { commitment: 'finalized' }]))
    expect(SOLANA_PROTOCOL.key(['logs', 'all'])).not.toBe(SOLANA_PROTOCOL.key(['logs', 'allWithVotes']))
  })

  it('slots and roots at or below the last one sent are dropped: never twice, never backwards', async () => {
    const node = await fakeNode()
    const h = hub([node.wsUrl])
    const seen: unknown[] = []
    const roots: unknown[] = []
    await h.subscribe(['slot'], (r) => seen.push(r), noop)
    await h.subscribe(['root'], (r) => roots.push(r), noop)
    for (const n of [5, 5, 4, 6, 8]) slotAt(node, n)
    for (const n of [3, 3, 2, 4]) node.notifySolana('root', n)
    await until(() => seen.length === 3 && roots.length === 2)
    await new Promise((r) => setTimeout(r, 50))
    expect(slots(seen)).toEqual([5, 6, 8])
    expect(roots).toEqual([3, 4])
  })

  it('signature: ends with its notification (no unsubscribe sent, gone from the hub); receivedSignature first, once', async () => {
    const node = await fakeNode()
    const h = hub([node.wsUrl])
    const seen: unknown[] = []
    await h.subscribe(
      ['signature', SIG, { commitment: 'confirmed', enableReceivedNotification: true }],
      (r) => seen.push(r),
      noop,
    )
    const received = { context: { slot: 3 }, value: 'receivedSignature' }
    node.notifySolana('signature', received)
    node.notifySolana('signature', received)
    node.notifySolana('signature', { context: { slot: 4 }, value: { err: null } })
    await until(() => seen.length === 2)
    expect(seen).toEqual([received, { context: { slot: 4 }, value: { err: null } }])
    expect(h.size).toBe(0)
    expect(node.subscriptions).toBe(0)
    expect(sent(node, 'signatureUnsubscribe')).toEqual([])
    // A new client of the same signature gets a new node subscription (the node answers at once if it is there).
    await h.subscribe(['signature', SIG, { commitment: 'confirmed' }], noop, noop)
    expect(sent(node, 'signatureSubscribe').length).toBe(2)
  })

  it('a notification sent right after the subscribe answer (a signature already confirmed) reaches the client', async () => {
    const node = await fakeNode()
    // In the same turn as the answer: the notification arrives before the hub has read the answer.
    node.afterSubscribe = (kind) => (kind === 'signature' ? { context: { slot: 9 }, value: { err: null } } : undefined)
    const h = hub([node.wsUrl])
    const seen: unknown[] = []
    const sub = h.subscribe(['signature', SIG], (r) => seen.push(r), noop)
    await until(() => sent(node, 'signatureSubscribe').length === 1)
    await sub
    await until(() => seen.length === 1)
    expect(h.size).toBe(0)
  })

  it('failover: every subscription is asked again at the next node (no replay, no EVM call); its older slots are dropped', async () => {
    const [a, b] = [await fakeNode(), await fakeNode()]
    const h = hub([a.wsUrl, b.wsUrl])
    const seen: unknown[] = []
    const accounts: unknown[] = []
    const lost: string[] = []
    await h.subscribe(
      ['slot'],
      (r) => seen.push(r),
      (r) => lost.push(r),
    )
    await h.subscribe(
      ['account', PK, { commitment: 'confirmed' }],
      (r) => accounts.push(r),
      (r) => lost.push(r),
    )
    slotAt(a, 10)
    await until(() => seen.length === 1)
    await a.kill()
    await until(() => h.upstream === b.wsUrl && b.subscriptions === 2)
    expect(sent(b, 'accountSubscribe').map((r) => r.body.params)).toEqual([[PK, { commitment: 'confirmed' }]])
    // b is behind: its slots up to 10 were sent already.
    for (const n of [9, 10, 11]) slotAt(b, n)
    b.notifySolana('account', { context: { slot: 11 }, value: { lamports: 5 } })
    await until(() => seen.length === 2 && accounts.length === 1)
    expect(slots(seen)).toEqual([10, 11])
    expect(lost).toEqual([])
    expect(b.wsRequests.filter((r) => String(r.body?.method).startsWith('eth_'))).toEqual([])
    expect(sent(b, 'getVersion').length).toBe(1)
  })

  it('after a move, what the new node sends again for slots already notified is dropped, until it passes them', async () => {
    const [a, b] = [await fakeNode(), await fakeNode()]
    const h = hub([a.wsUrl, b.wsUrl])
    const accounts: unknown[] = []
    const logs: unknown[] = []
    await h.subscribe(['account', PK], (r) => accounts.push(r), noop)
    await h.subscribe(['logs', { mentions: [PK] }], (r) => logs.push(r), noop)
    const account = (slot: number, lamports: number) => ({ context: { slot }, value: { lamports } })
    const log = (slot: number, signature: string) => ({ context: { slot }, value: { signature, err: null, logs: [] } })
    a.notifySolana('account', account(11, 5))
    a.notifySolana('logs', log(11, 'X'))
    await until(() => accounts.length === 1 && logs.length === 1)
    await a.kill()
    await until(() => h.upstream === b.wsUrl && b.subscriptions === 2)
    b.notifySolana('account', account(10, 4))
    b.notifySolana('account', account(11, 5))
    b.notifySolana('account', account(12, 6))
    for (const [slot, sig] of [
      [10, 'W'],
      [11, 'X'],
      [11, 'Y'],
      [12, 'Z'],
    ] as const)
      b.notifySolana('logs', log(slot, sig))
    await until(() => accounts.length === 2 && logs.length === 3)
    await new Promise((r) => setTimeout(r, 50))
    expect(accounts).toEqual([account(11, 5), account(12, 6)])
    expect(logs).toEqual([log(11, 'X'), log(11, 'Y'), log(12, 'Z')])
  })

  it("a node the pool found on another cluster is never used; the socket is asked getVersion (a validator's PubSub answers no getGenesisHash)", async () => {
    const other = await fakeNode()
    const right = await fakeNode()
    const h = hub([other.wsUrl, right.wsUrl], { wrongChain: (url) => url === other.wsUrl })
    await h.subscribe(['slot'], noop, noop)
    expect(h.upstream).toBe(right.wsUrl)
    expect(sent(other, 'slotSubscribe')).toEqual([])
    expect(sent(right, 'getVersion').length).toBe(1)
    expect(sent(right, 'getGenesisHash')).toEqual([])
  })

  it('the heartbeat asks getVersion; an error answer shows the node is there too', async () => {
    const node = await fakeNode()
    node.answer((req) =>
      req.body?.method === 'getVersion' ? { body: rpcError(req, -32601, 'Method not found') } : undefined,
    )
    const h = hub([node.wsUrl], { heartbeatMs: 50 })
    await h.subscribe(['slot'], noop, noop)
    await until(() => sent(node, 'getVersion').length >= 4)
    expect(h.moves.hung).toBe(0)
    expect(sent(node, 'eth_chainId')).toEqual([])
  })
})
