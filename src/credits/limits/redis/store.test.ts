import { expect, it } from 'vitest'
import { describeWithServices } from '../../../../test/support/services.ts'
import type { RedisLimitStore } from './store.ts'
import { hammer, limits, redisReplicas, redisUsed } from './store.test-support.ts'

const { newPrefix, replica } = redisReplicas()

describeWithServices(['redis'], 'Redis limit store', () => {
  for (const leaseCredits of [0, 1000]) {
    const mode = leaseCredits === 0 ? 'one round trip per call' : 'leases of 1000'
    it(`two replicas hammering one account concurrently charge exactly its daily balance (${mode})`, async () => {
      const prefix = newPrefix()
      const a = await replica(prefix, { leaseCredits })
      const b = await replica(prefix, { leaseCredits })
      const r = limits({ accountCreditsPerDay: 50_000 })
      const now = () => Date.now()
      // Eight concurrent clients per replica, 10 credits a call.
      const runs = [a, b].flatMap(({ store }) => Array.from({ length: 8 }, () => hammer(store, r, () => 10, now)))
      const charged = await Promise.all(runs)
      const total = charged.reduce((s, c) => s + c, 0)
      expect(total).toBe(50_000)
      expect(charged.slice(0, 8).reduce((s, c) => s + c, 0)).toBeGreaterThan(0)
      expect(charged.slice(8).reduce((s, c) => s + c, 0)).toBeGreaterThan(0)
      await a.store.stop()
      await b.store.stop()
      expect(await redisUsed(a.conn, 'acc', now())).toBe(50_000)
    })
  }

  it('mixed prices and refunds across two replicas: never past the balance; Redis ends equal to what was charged', async () => {
    const prefix = newPrefix()
    const a = await replica(prefix)
    const b = await replica(prefix)
    const r = limits({ accountCreditsPerDay: 30_000 })
    let seed = 7
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed)
    const run = async (store: RedisLimitStore) => {
      let net = 0
      let refusals = 0
      while (refusals < 30) {
        const price = [10, 20, 80, 300][rand() % 4]!
        const code = await store.admit(r, price, Date.now())
        if (code !== null) {
          refusals++
          continue
        }
        refusals = 0
        // One call in five fails at the node and is refunded (free), like settle.finish does.
        const cost = rand() % 5 === 0 ? 0 : price
        if (cost !== price) store.adjust('acc', 'key', cost - price, Date.now())
        net += cost
        await new Promise((resolve) => setImmediate(resolve))
      }
      return net
    }
    const nets = await Promise.all([run(a.store), run(a.store), run(b.store), run(b.store)])
    const total = nets.reduce((s, c) => s + c, 0)
    expect(total).toBeLessThanOrEqual(30_000)
    // Within one largest price of the balance: refusals near the end are exact, not an early stop.
    expect(total).toBeGreaterThan(30_000 - 300)
    await a.store.stop()
    await b.store.stop()
    expect(await redisUsed(a.conn, 'acc', Date.now())).toBe(total)
  })

  it('key daily limit and credits/s buckets are shared: the second replica sees what the first used', async () => {
    const prefix = newPrefix()
    const a = await replica(prefix, { leaseCredits: 0 })
    const b = await replica(prefix, { leaseCredits: 0 })
    const t0 = Date.now()
    const keyed = limits({ keyCreditsPerDay: 100 })
    expect(await a.store.admit(keyed, 60, t0)).toBeNull()
    expect(await b.store.admit(keyed, 60, t0)).toBe('KEY_DAILY_CREDITS_EXHAUSTED')
    expect(await b.store.admit(keyed, 40, t0)).toBeNull()

    const fast = limits({ accountId: 'acc2', keyId: 'key2', accountCreditsPerSecond: 100 })
    expect(await a.store.admit(fast, 80, t0)).toBeNull()
    expect(await b.store.admit(fast, 80, t0)).toBe('ACCOUNT_THROUGHPUT_EXCEEDED')
    expect(await b.store.admit(fast, 80, t0 + 700)).toBeNull() // 70 credits back, 90 in the bucket

    const keySec = limits({ accountId: 'acc3', keyId: 'key3', keyCreditsPerSecond: 50 })
    expect(await a.store.admit(keySec, 50, t0)).toBeNull()
    expect(await b.store.admit(keySec, 10, t0)).toBe('KEY_THROUGHPUT_EXCEEDED')
  })

  it('a lease is spent locally: most admissions answer synchronously, without a round trip', async () => {
    const { store } = await replica(newPrefix(), { leaseCredits: 1000 })
    const r = limits()
    const first = store.admit(r, 10, Date.now())
    expect(first).toBeInstanceOf(Promise)
    expect(await first).toBeNull()
    let sync = 0
    for (let i = 0; i < 50; i++) {
      const res = store.admit(r, 10, Date.now())
      if (!(res instanceof Promise)) sync++
      else await res
    }
    expect(sync).toBeGreaterThanOrEqual(45)
    expect(store.usedToday('acc', Date.now())).toBe(510)
  })

  it('input-error fees and events (chargeWithin) never go past the balance, across replicas', async () => {
    const prefix = newPrefix()
    const a = await replica(prefix, { leaseCredits: 0 })
    const b = await replica(prefix, { leaseCredits: 0 })
    const r = limits({ accountCreditsPerDay: 12 })
    expect(await a.store.chargeWithin(r, 5, Date.now())).toBe(5)
    expect(await b.store.chargeWithin(r, 5, Date.now())).toBe(5)
    expect(await a.store.chargeWithin(r, 5, Date.now())).toBe(2)
    expect(await b.store.chargeWithin(r, 5, Date.now())).toBe(0)
    expect(await redisUsed(a.conn, 'acc', Date.now())).toBe(12)
  })

  it('seed writes the ledger total only where Redis has no count for today', async () => {
    const prefix = newPrefix()
    const a = await replica(prefix)
    const now = Date.now()
    await a.store.seed(new Map([['acc', 700]]), new Map([['key', 700]]), now)
    await a.store.seed(new Map([['acc', 50]]), new Map([['key', 50]]), now)
    expect(await redisUsed(a.conn, 'acc', now)).toBe(700)
  })
})
