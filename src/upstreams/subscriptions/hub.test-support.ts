/**
 * What the subscription hub's test files share: fake nodes (real WebSocket servers) on chain 0x7a6d and hubs over
 * them, all closed after each test, and small waits on what a node was sent.
 */
import { afterEach } from 'vitest'
import { startFakeNode, type FakeNode } from '../../../test/support/fake-node.ts'
import { createSubscriptionHub, type SubscriptionHub } from './hub.ts'
import type { HubOptions } from './types.ts'

export const CHAIN = '0x7a6d' // 31341

/** Fake nodes and hubs for one test file, closed after each test. */
export function hubHarness() {
  const nodes: FakeNode[] = []
  const hubs: SubscriptionHub[] = []
  afterEach(async () => {
    await Promise.all(hubs.splice(0).map((h) => h.close()))
    await Promise.all(nodes.splice(0).map((n) => n.close()))
  })
  async function fakeNode(chain = CHAIN) {
    const n = await startFakeNode(chain)
    nodes.push(n)
    return n
  }
  function hub(urls: string[], extra: Partial<HubOptions> = {}) {
    const h = createSubscriptionHub('net', { timeoutMs: 5000, wsUrls: () => urls, failoverMs: 2000, ...extra })
    hubs.push(h)
    return h
  }
  return { fakeNode, hub }
}

export const sent = (n: FakeNode, method: string) => n.wsRequests.filter((r) => r.body?.method === method)

export async function until(check: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 20))
  }
}
