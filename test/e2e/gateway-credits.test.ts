import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, call, type TestServer } from './helpers/server.ts'
import { queryUsage } from '../../src/usage/queries.ts'

// A clock the test moves: daily balances reset at 00:00 UTC.
let nowMs = Date.parse('2026-11-25T23:59:50Z')
const clock = { now: () => nowMs }

let s: TestServer

beforeAll(async () => {
  s = await startTestServer(
    {
      plans: {
        team: { creditsPerDay: 75_000_000, creditsPerSecond: 40_000, maxKeys: null },
        tiny: { creditsPerDay: 300, creditsPerSecond: 100_000, maxKeys: null },
        slow: { creditsPerDay: 1_000_000, creditsPerSecond: 200, maxKeys: null },
      },
      networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }],
    },
    { clock },
  )
})
afterAll(async () => s?.stop())

const PAYMENT_REQUIRED = {
  code: 402,
  event: -33000,
  message: 'Payment Required',
  details:
    'You have reached your daily credit limit. To continue making requests, upgrade your plan or purchase additional ' +
    'credits',
}

describe('credits, plans and limits', () => {
  it('each response says what it cost, from the cost table (docs/config.md, credits)', async () => {
    expect((await s.rpc(call('eth_chainId'))).credits).toBe(5)
    expect((await s.rpc(call('eth_blockNumber'))).credits).toBe(80)
    expect((await s.rpc(call('eth_getBlockByNumber', ['latest', false]))).credits).toBe(80)
    expect((await s.rpc(call('eth_estimateGas', [{ to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }]))).credits).toBe(
      300,
    )
    // Served, but not in the cost table: the default cost.
    expect(
      (await s.rpc(call('eth_getAccount', ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', 'latest']))).credits,
    ).toBe(80)
    // Each call of a batch is charged.
    expect(
      (await s.rpc([call('eth_chainId', [], 1), call('eth_blockNumber', [], 2), call('net_version', [], 3)])).credits,
    ).toBe(90)
    // Input errors (4xx) cost 5.
    expect((await s.rpc('{oops')).credits).toBe(5)
  })

  it('the daily balance runs out with 402 / -33000 exactly as Infura, and 402 answers are free', async () => {
    const { account, key } = await s.newKey('tiny')
    const opts = { key: key.key }
    // 240 of 300
    for (let i = 0; i < 3; i++) expect((await s.rpc(call('eth_blockNumber', [], i), opts)).status).toBe(200)
    const refused = await s.rpc(call('eth_blockNumber', [], 9), opts)
    expect(refused.status).toBe(402)
    expect(refused.json()).toEqual({ jsonrpc: '2.0', id: 9, error: PAYMENT_REQUIRED })
    expect(refused.credits).toBe(0)
    // A cheaper call still fits in the remaining 60 credits.
    expect((await s.rpc(call('eth_chainId'), opts)).status).toBe(200)
    expect(s.parts.limits.usedToday(account.id, clock.now())).toBe(245)
    // A batch refused whole: every call gets the error with its id.
    const batch = await s.rpc([call('eth_blockNumber', [], 1), call('eth_blockNumber', [], 2)], opts)
    expect(batch.status).toBe(402)
    expect(batch.json().map((r: { id: number }) => r.id)).toEqual([1, 2])
  })

  it('the balance is shared by the keys of an account and resets at 00:00 UTC', async () => {
    const { account, key } = await s.newKey('tiny')
    const second = await s.parts.keys.create({ accountId: account.id, name: 'second' }, clock.now())
    await s.parts.keySnapshot.reload()
    for (let i = 0; i < 3; i++) await s.rpc(call('eth_blockNumber'), { key: key.key })
    expect((await s.rpc(call('eth_blockNumber'), { key: second.key })).status).toBe(402)
    const before = nowMs
    nowMs = Date.parse('2026-11-26T00:00:01Z')
    try {
      expect((await s.rpc(call('eth_blockNumber'), { key: second.key })).status).toBe(200)
      expect(s.parts.limits.usedToday(account.id, clock.now())).toBe(80)
    } finally {
      nowMs = before
    }
  })

  it('plan throughput: 429 / -33200, free', async () => {
    const { key } = await s.newKey('slow')
    // 200 credits/s and a frozen clock: the bucket holds 200, so the third 80-credit call is refused.
    const answers = []
    for (let i = 0; i < 3; i++) answers.push(await s.rpc(call('eth_blockNumber', [], i), { key: key.key }))
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429])
    expect(answers[2]!.json().error).toEqual({
      code: 429,
      event: -33200,
      message: 'Too Many Requests',
      details:
        'You have surpassed your allowed throughput limit. Reduce the amount of requests per second or upgrade for ' +
        'more capacity.',
    })
    expect(answers[2]!.credits).toBe(0)
    // Accepted again once the rate drops.
    nowMs += 1000
    expect((await s.rpc(call('eth_blockNumber'), { key: key.key })).status).toBe(200)
  })

  it('per-key limits: credits/s (-33300) and credits/day (-33400)', async () => {
    const { key } = await s.newKey('team')
    await s.parts.keys.setLimits(key.id, { creditsPerSecond: 100 })
    await s.parts.keySnapshot.reload()
    expect((await s.rpc(call('eth_blockNumber'), { key: key.key })).status).toBe(200)
    const perSecond = await s.rpc(call('eth_blockNumber'), { key: key.key })
    expect(perSecond.status).toBe(429)
    expect(perSecond.json().error.event).toBe(-33300)

    nowMs += 5000
    await s.parts.keys.setLimits(key.id, { creditsPerSecond: 0, creditsPerDay: 100 })
    await s.parts.keySnapshot.reload()
    // 80 used today already; 80 more would pass 100.
    const perDay = await s.rpc(call('eth_blockNumber'), { key: key.key })
    expect(perDay.status).toBe(429)
    expect(perDay.json().error).toEqual({
      code: 429,
      event: -33400,
      message: 'Too Many Requests',
      details:
        'You have surpassed your user-defined key daily credit limit setting. To make more requests, adjust your ' +
        'daily quota limit.',
    })
    expect((await s.rpc(call('eth_chainId'), { key: key.key })).status).toBe(200)
  })

  it('/metrics counts the refusals above by network and reason', async () => {
    const text = await (await fetch(`${s.url}/metrics`)).text()
    const refused = (reason: string) =>
      Number(
        new RegExp(`chaingate_credits_refused_total\\{network="devnet-a",reason="${reason}"\\} (\\d+)`).exec(text)?.[1],
      )
    // The day's balance: a call and a batch, then the second key of an account; one of each other limit.
    expect(refused('daily_credits_exhausted')).toBe(3)
    expect(refused('account_throughput_exceeded')).toBe(1)
    expect(refused('key_throughput_exceeded')).toBe(1)
    expect(refused('key_daily_credits_exhausted')).toBe(1)
  })

  it('under concurrent load the charged total equals the sum of what each answer cost, in memory and in the ledger', async () => {
    nowMs += 10_000
    const { account, key } = await s.newKey('team')
    const bodies: unknown[] = [
      call('eth_chainId'),
      call('eth_blockNumber'),
      call('eth_getBlockByNumber', ['latest', true]),
      [call('eth_chainId', [], 1), call('eth_gasPrice', [], 2)],
      call('eth_sign', []),
      '{not json',
      call('eth_getBlockByNumber', ['nope', false]),
    ]
    const replies = await Promise.all(
      Array.from({ length: 350 }, (_, i) => s.rpc(bodies[i % bodies.length], { key: key.key })),
    )
    const sum = replies.reduce((t, r) => t + r.credits, 0)
    expect(replies.every((r) => Number.isFinite(r.credits))).toBe(true)
    expect(sum).toBe(50 * (5 + 80 + 80 + 85 + 5 + 5 + 5))
    expect(s.parts.limits.usedToday(account.id, clock.now())).toBe(sum)
    await s.parts.ledger.flush()
    const day = new Date(nowMs).toISOString().slice(0, 10)
    const report = await queryUsage(s.parts.database.db, { day, by: 'method', accountId: account.id })
    expect(report.total.credits).toBe(sum)
    expect(report.total.calls).toBe(400)
    expect(report.rows.find((r) => r.group === 'eth_blockNumber')).toMatchObject({
      calls: 50,
      credits: 4000,
      errors: 0,
    })
    expect(report.rows.find((r) => r.group === 'eth_sign')).toMatchObject({ calls: 50, credits: 250, errors: 50 })
  })

  it("a restart keeps today's balance (seeded from the usage ledger)", async () => {
    const { account, key } = await s.newKey('tiny')
    await s.rpc(call('eth_blockNumber'), { key: key.key })
    await s.rpc(call('eth_blockNumber'), { key: key.key })
    await s.parts.ledger.flush()
    const { loadTodayUsage } = await import('../../src/usage/ledger.ts')
    const { createMemoryLimitStore } = await import('../../src/credits/limits/memory.ts')
    const today = await loadTodayUsage(s.parts.database.db, clock.now())
    const fresh = createMemoryLimitStore()
    fresh.seed(today.accounts, today.keys, clock.now())
    expect(fresh.usedToday(account.id, clock.now())).toBe(160)
  })
})
