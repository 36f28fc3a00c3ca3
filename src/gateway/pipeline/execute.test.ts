/**
 * The pipeline on its own: a fake upstream node, a fake clock and the real memory limit store (no anvil). The
 * e2e tests (test/e2e/gateway-*.test.ts) cover the same rules through real sockets.
 */
import { describe, expect, it } from 'vitest'
import type { KeyEntry, KeySnapshot } from '../../keys/snapshot.ts'
import type { KeySecurity } from '../../keys/security/types.ts'
import { parseConfig } from '../../config/load.ts'
import { createCostTable } from '../../credits/costs.ts'
import { createMemoryLimitStore, type KeyLimits } from '../../credits/limits/memory.ts'
import type { UsageLedger, UsageRecord } from '../../usage/ledger.ts'
import { validateCall } from '../../jsonrpc/envelope.ts'
import { createNetworkRegistry } from '../../networks/registry.ts'
import { createMetrics } from '../../observability/metrics.ts'
import type { UpstreamPool } from '../../upstreams/pool/pool.ts'
import { createGateway } from './execute.ts'
import type { AccessCheck, CallContext } from './types.ts'

const KEY = '0123456789abcdef0123456789abcdef'
const config = parseConfig({ networks: [{ name: 'net', chainId: 1, upstreams: [{ url: 'http://node.invalid' }] }] })
const networks = createNetworkRegistry(config.networks)

function setup(
  opts: {
    perDay?: number
    perSecond?: number
    security?: KeySecurity | null
    denied?: Awaited<ReturnType<AccessCheck>>
    node?: (body: string) => Promise<string>
  } = {},
) {
  let now = Date.UTC(2026, 0, 1, 12)
  const clock = { now: () => now }
  const limits = createMemoryLimitStore()
  const rows: UsageRecord[] = []
  const ledger: UsageLedger = { record: (r) => void rows.push(r), flush() {}, start() {}, stop: async () => {} }
  const metrics = createMetrics(Object.keys(config.credits.methods))
  const sent: (string | Buffer)[] = []
  const answer = Buffer.from('{"jsonrpc":"2.0","id":1,"result":"0x10"}')
  const pool: UpstreamPool = {
    network: 'net',
    chain: 'eip155:1',
    wsUrls: [],
    heads: { latest: () => undefined, finalized: () => undefined, onHead: () => () => undefined },
    async send(body) {
      sent.push(body)
      if (opts.node)
        return { body: Buffer.from(await opts.node(body.toString())), latencyMs: 1, upstream: 'fake', attempts: 1 }
      return { body: answer, latencyMs: 1, upstream: 'fake', attempts: 1 }
    },
    verifyChainId: async () => {},
    status: () => [],
    close: async () => {},
  }
  const keyLimits: KeyLimits = {
    accountId: 'acc',
    keyId: 'key',
    accountCreditsPerDay: opts.perDay ?? 1_000_000,
    accountCreditsPerSecond: opts.perSecond ?? 1_000_000,
    keyCreditsPerDay: null,
    keyCreditsPerSecond: null,
  }
  const entry = {
    id: 'key',
    accountId: 'acc',
    name: 'k',
    networks: new Set(['net']),
    creditsPerSecond: null,
    creditsPerDay: null,
    plan: {
      creditsPerDay: keyLimits.accountCreditsPerDay,
      creditsPerSecond: keyLimits.accountCreditsPerSecond,
      maxKeys: null,
    },
    planName: 'p',
    security: opts.security ?? null,
    limits: keyLimits,
  } as KeyEntry
  const keys = {
    get: (k: string) => (k === KEY ? entry : undefined),
    byId: (id: string) => (id === 'key' ? entry : undefined),
  } as KeySnapshot
  let checks = 0
  const checkAccess: AccessCheck = async () => {
    checks++
    return opts.denied ?? null
  }
  const gateway = createGateway({
    networks,
    keys,
    pools: new Map([['net', pool]]),
    costs: createCostTable(config.credits, ['net']),
    limits,
    ledger,
    metrics,
    clock,
    maxBatchSize: 100,
    checkAccess,
  })
  const request = (body: string | undefined, key: string | undefined = KEY) =>
    gateway.handleHttp({
      network: networks.byName('net'),
      networkLabel: 'net',
      key,
      body: body === undefined ? undefined : Buffer.from(body),
    })
  const metricsText = () => metrics.registry.metrics()
  return {
    gateway,
    request,
    limits,
    rows,
    sent,
    answer,
    entry,
    pool,
    metricsText,
    used: () => limits.usedToday('acc', now),
    tick: (ms: number) => (now += ms),
    checks: () => checks,
  }
}

const call = (method: string, id: number | string = 1, params: unknown[] = []) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params })

describe('gateway pipeline', () => {
  it('a single call: the client bytes go to the node, the node bytes come back untouched, charged once', async () => {
    const t = setup()
    const body = call('eth_blockNumber')
    const out = await t.request(body)
    expect(t.sent[0]!.toString()).toBe(body)
    expect(out.body).toBe(t.answer) // the same Buffer: never parsed or re-serialized
    expect(out).toMatchObject({ code: undefined, credits: 80, method: 'eth_blockNumber', calls: 1 })
    expect(t.used()).toBe(80)
    expect(t.rows).toEqual([expect.objectContaining({ method: 'eth_blockNumber', credits: 80, errors: 0 })])
  })

  it('a key without security settings is authorized without calling key security', async () => {
    const t = setup()
    await t.request(call('eth_blockNumber'))
    expect(t.checks()).toBe(0)
  })

  it('a key with security settings is always checked (fail closed)', async () => {
    const security = {
      secretHash: null,
      requireSecret: true,
      allowlists: { origins: [], userAgents: [], methods: [], addresses: [] },
      secretOverridesAllowlists: false,
      requireJwt: false,
      jwtKeys: [],
    }
    const t = setup({ security, denied: { code: 'SECRET_INVALID' } })
    const out = await t.request(call('eth_blockNumber'))
    expect(t.checks()).toBe(1)
    expect(out).toMatchObject({ code: 'SECRET_INVALID', body: undefined, credits: 5 })
    expect(t.sent).toHaveLength(0)
  })

  it('an allowlist refusal (403) is counted in chaingate_requests_total', async () => {
    const security = {
      secretHash: null,
      requireSecret: false,
      allowlists: { origins: ['https://a.example'], userAgents: [], methods: [], addresses: [] },
      secretOverridesAllowlists: false,
      requireJwt: false,
      jwtKeys: [],
    }
    const t = setup({ security, denied: { code: 'KEY_SETTINGS_REJECTED' } })
    expect(await t.request(call('eth_blockNumber'))).toMatchObject({ code: 'KEY_SETTINGS_REJECTED', credits: 5 })
    expect(await t.metricsText()).toMatch(
      /chaingate_requests_total\{network="net",method="\(refused\)",outcome="http_403"\} 1/,
    )
  })

  it('a batch refused by a limit is counted like single calls and recorded once', async () => {
    const t = setup({ perDay: 50 })
    const out = await t.request(`[${call('eth_blockNumber', 1)},${call('eth_chainId', 2)}]`)
    expect(out).toMatchObject({ code: 'DAILY_CREDITS_EXHAUSTED', ids: [1, 2], batch: true, credits: 0 })
    const text = await t.metricsText()
    expect(text).toMatch(/chaingate_requests_total\{network="net",method="eth_blockNumber",outcome="http_402"\} 1/)
    expect(text).toMatch(/chaingate_requests_total\{network="net",method="eth_chainId",outcome="http_402"\} 1/)
    expect(t.rows).toEqual([expect.objectContaining({ method: 'batch', calls: 2, credits: 0, errorKind: 'http:402' })])
  })

  it('a batch goes to the node with the gateway own ids and comes back with the client ids', async () => {
    const t = setup({
      node: async (b) =>
        JSON.stringify(
          (JSON.parse(b) as { id: number }[]).map((c) => ({ jsonrpc: '2.0', id: c.id, result: `r${c.id}` })),
        ),
    })
    const out = await t.request(`[${call('eth_blockNumber', 'x')},${call('eth_blockNumber', 'x')}]`)
    expect(JSON.parse(out.body!.toString())).toEqual([
      { jsonrpc: '2.0', id: 'x', result: 'r0' },
      { jsonrpc: '2.0', id: 'x', result: 'r1' },
    ])
    expect(out.credits).toBe(160)
  })

  it('input errors never cost more than what is left of the balance', async () => {
    const t = setup({ perDay: 8 })
    const fees = []
    for (let i = 0; i < 4; i++) fees.push((await t.request('not json')).credits)
    expect(fees).toEqual([5, 3, 0, 0])
    expect(t.used()).toBe(8)
  })

  it('a node that cannot be reached: the code says so and the call is free', async () => {
    const t = setup({ node: () => Promise.reject(new Error('ECONNREFUSED')) })
    const out = await t.request(call('eth_blockNumber'))
    expect(out.code).toBe('UPSTREAM_UNAVAILABLE')
    expect(JSON.parse(out.body!.toString()).error.code).toBe(-32603)
    expect(out.credits).toBe(0)
    expect(t.used()).toBe(0)
  })

  it('a WebSocket answer that cannot be delivered is not charged', async () => {
    const t = setup()
    const ctx: CallContext = {
      entry: t.entry,
      network: networks.byName('net')!,
      pool: t.pool,
      transport: 'ws',
      deliver: () => false,
    }
    const out = await t.gateway.handleMessage(ctx, call('eth_blockNumber'), {})
    expect(out.credits).toBe(0)
    expect(t.used()).toBe(0)
    const batch = await t.gateway.run(ctx, [validateCall(JSON.parse(call('eth_chainId')))], true, undefined)
    expect(batch.credits).toBe(0)
    expect(t.used()).toBe(0)
  })

  it('a WebSocket upgrade is refused while the daily balance is used up, until 00:00 UTC', async () => {
    const t = setup({ perDay: 80 })
    await t.request(call('eth_blockNumber'))
    const meta = { network: networks.byName('net'), networkLabel: 'net', key: KEY }
    expect((await t.gateway.connect(meta)).code).toBe('DAILY_CREDITS_EXHAUSTED')
    t.tick(12 * 3600_000)
    expect((await t.gateway.connect(meta)).ctx).toBeDefined()
  })

  it('key and network refusals are codes, worded at the edge', async () => {
    const t = setup()
    expect(
      (
        await t.gateway.handleHttp({
          network: networks.byName('net'),
          networkLabel: 'net',
          key: undefined,
          body: undefined,
        })
      ).code,
    ).toBe('KEY_REQUIRED')
    expect((await t.request(call('eth_blockNumber'), 'f'.repeat(32))).code).toBe('KEY_INVALID')
    const unknown = await t.gateway.handleHttp({ network: undefined, networkLabel: 'nope', key: KEY, body: undefined })
    expect(unknown).toMatchObject({
      code: 'NETWORK_UNKNOWN',
      detail: expect.stringContaining('unknown network "nope"'),
    })
  })
})
