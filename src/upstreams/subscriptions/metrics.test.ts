/**
 * The subscription hubs' /metrics (./metrics.ts) over fake nodes (real WebSocket servers): client and node
 * subscriptions by kind, read when scraped, and one fan-out observation per notification passed on.
 */
import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { subscriptionKinds } from '../../methods/catalog.ts'
import { hubHarness, until } from './hub.test-support.ts'
import { registerSubscriptionMetrics } from './metrics.ts'

const { fakeNode, hub } = hubHarness()
const PK = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T'
const noop = () => undefined

describe('subscription metrics', () => {
  it('Solana: clients and node subscriptions by kind (every kind listed), one fan-out per slot passed on', async () => {
    const node = await fakeNode()
    const h = hub([node.wsUrl], { family: 'solana' })
    const registry = new Registry()
    registerSubscriptionMetrics(registry, new Map([['sol', h]]))
    const value = async (series: string) => {
      const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${series} `))
      return line === undefined ? undefined : Number(line.slice(series.length + 1))
    }
    const clients = (kind: string) => value(`chaingate_client_subscriptions{network="sol",kind="${kind}"}`)
    const held = (kind: string) => value(`chaingate_upstream_subscriptions{network="sol",kind="${kind}"}`)
    const fanouts = () => value('chaingate_subscription_fanout_seconds_count{network="sol",kind="slot"}')

    for (const k of subscriptionKinds('solana')) expect(await clients(k.kind), k.kind).toBe(0)
    expect(await fanouts()).toBeUndefined()
    let got = 0
    const a = await h.subscribe(['slot'], () => got++, noop)
    const b = await h.subscribe(['slot'], () => got++, noop)
    const c = await h.subscribe(['account', PK], noop, noop)
    expect([await clients('slot'), await held('slot'), await clients('account'), await held('account')]).toEqual([
      2, 1, 1, 1,
    ])
    expect(await clients('signature')).toBe(0)
    expect(await fanouts()).toBe(0)

    node.notifySolana('slot', { parent: 6, root: 0, slot: 7 })
    await until(() => got === 2)
    // Two clients, one notification: one observation.
    expect(await fanouts()).toBe(1)
    // A slot already sent is dropped (not passed on, not observed); the next one is.
    node.notifySolana('slot', { parent: 6, root: 0, slot: 7 })
    node.notifySolana('slot', { parent: 7, root: 0, slot: 8 })
    await until(() => got === 4)
    expect(await fanouts()).toBe(2)

    await a.unsubscribe()
    expect([await clients('slot'), await held('slot')]).toEqual([1, 1])
    await b.unsubscribe()
    await c.unsubscribe()
    expect([await clients('slot'), await held('slot'), await clients('account'), await held('account')]).toEqual([
      0, 0, 0, 0,
    ])
    // The histogram stays (a counter of what happened), with every bucket cumulative up to +Inf.
    expect(await value('chaingate_subscription_fanout_seconds_bucket{le="+Inf",network="sol",kind="slot"}')).toBe(2)
  })
})
