/**
 * Upstream usage (docs/upstream-usage.md) on the real gateway: two scripted fake upstreams, one of which fails
 * every read, so calls are retried on the other; the cache and in-flight dedup answer some calls themselves.
 * What is recorded must add up to what the upstreams actually received; the CLI and the operators' usage page
 * show it.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NO_UPSTREAM } from '../../src/usage/upstream-usage.ts'
import { queryUpstreamUsage } from '../../src/usage/upstream-usage-report.ts'
import { httpClient } from './helpers/dashboard.ts'
import { startFakeNode, type FakeNode } from '../support/fake-node.ts'
import { cleanupProcesses, runCli, tempDir } from './helpers/process.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

const CHAIN = '0x7a6d' // 31341
const ADDRESS = '0x00000000000000000000000000000000000000aa'
const PASSWORD = 'Tr0ub4dor&3-horse-staple'

let failing: FakeNode
let good: FakeNode
let s: TestServer
let dir: string

/** Requests of `method` an upstream received (each one an upstream attempt). */
const received = (node: FakeNode, method: string) =>
  node.requests.filter((r) => !Array.isArray(r.body) && r.body?.method === method).length
const label = (node: FakeNode) => node.url.replace(/\/$/, '')

beforeAll(async () => {
  // Answers its chain id (so it is in rotation) and a 503 to everything else.
  failing = await startFakeNode(CHAIN, (req) =>
    req.body?.method === 'eth_chainId' ? undefined : { status: 503, body: 'temporarily unavailable' },
  )
  good = await startFakeNode(CHAIN)
  dir = tempDir('chaingate-upstream-usage-')
  s = await startTestServer(
    {
      dataDir: join(dir, 'data'),
      networks: [
        {
          name: 'remote',
          chainId: 31341,
          upstreams: [{ url: failing.url }, { url: good.url }],
          // No hedges: every attempt is a request an upstream receives, so the counts can be compared exactly.
          upstreamPolicy: { hedge: { enabled: false } },
        },
      ],
    },
    { parts: { dashboard: true } },
  )
})
afterAll(async () => {
  await cleanupProcesses()
  await s?.stop()
  await failing?.close()
  await good?.close()
  rmSync(dir, { recursive: true, force: true })
})

const rpc = (method: string, params: unknown[] = []) => s.rpc(call(method, params), { network: 'remote' })

describe('upstream usage', () => {
  it('records which upstream answered each call and every upstream attempt, retries included', async () => {
    for (let i = 0; i < 8; i++) expect((await rpc('eth_getBalance', [ADDRESS, 'latest'])).json().result).toBe('0x1')
    await s.parts.upstreamUsage.flush()
    const report = await queryUpstreamUsage(s.parts.database.db, { fromSec: 0, toSec: 2 ** 40, byMethod: true })
    const rows = report.rows.filter((r) => r.method === 'eth_getBalance')
    // Only the good upstream ever answered.
    expect(rows.map((r) => r.upstream)).toEqual([label(good)])
    expect(rows[0]).toMatchObject({ network: 'remote', calls: 8, cacheHits: 0, dedupHits: 0, failures: 0 })
    expect(rows[0]!.credits).toBeGreaterThan(0)
    // Every request an upstream received for these calls is an attempt: the failing one's 503s are retried ones.
    expect(rows[0]!.attempts).toBe(received(good, 'eth_getBalance') + received(failing, 'eth_getBalance'))
    expect(rows[0]!.attempts).toBeGreaterThanOrEqual(8)
  })

  it("a batch sent as one upstream body: each call in it counts the batch's upstream requests", async () => {
    const batch = [0, 1, 2].map((i) => call('eth_getTransactionCount', [ADDRESS, 'latest'], i + 1))
    const res = await s.rpc(batch, { network: 'remote' })
    expect(res.json().map((a: { result: unknown }) => a.result)).toEqual(['0x1', '0x1', '0x1'])
    await s.parts.upstreamUsage.flush()
    const report = await queryUpstreamUsage(s.parts.database.db, { fromSec: 0, toSec: 2 ** 40, byMethod: true })
    const rows = report.rows.filter((r) => r.method === 'eth_getTransactionCount')
    const batches = (n: FakeNode) =>
      n.requests.filter(
        (r) => Array.isArray(r.body) && r.body.some((c: { method?: string }) => c.method === 'eth_getTransactionCount'),
      ).length
    expect(rows.map((r) => [r.upstream, r.calls])).toEqual([[label(good), 3]])
    expect(rows[0]!.attempts).toBe(3 * (batches(good) + batches(failing)))
  })

  it('cache hits and calls sharing one in-flight request are counted as saved upstream requests', async () => {
    for (let i = 0; i < 3; i++) expect((await rpc('eth_chainId')).json().result).toBe(CHAIN)
    // Five identical reads at once while the good upstream is slow: one upstream request, the others share it.
    good.fault({ kind: 'slow', ms: 800 })
    const answers = await Promise.all(Array.from({ length: 5 }, () => rpc('eth_gasPrice')))
    good.fault(undefined)
    for (const a of answers) expect(a.json().result).toBe('0x1')
    await s.parts.upstreamUsage.flush()
    const report = await queryUpstreamUsage(s.parts.database.db, { fromSec: 0, toSec: 2 ** 40, byMethod: true })
    const chainId = report.rows.filter((r) => r.method === 'eth_chainId')
    expect(chainId.reduce((n, r) => n + r.calls, 0)).toBe(3)
    expect(chainId.reduce((n, r) => n + r.cacheHits, 0)).toBeGreaterThanOrEqual(2)
    for (const r of chainId) if (r.cacheHits > 0) expect(r.upstream).toBe('cache')
    const gasPrice = report.rows.filter((r) => r.method === 'eth_gasPrice')
    expect(gasPrice.reduce((n, r) => n + r.calls, 0)).toBe(5)
    expect(gasPrice.reduce((n, r) => n + r.dedupHits, 0)).toBeGreaterThanOrEqual(1)
    expect(gasPrice.reduce((n, r) => n + r.attempts, 0)).toBe(
      received(good, 'eth_gasPrice') + received(failing, 'eth_gasPrice'),
    )
  })

  it('a call no upstream answers is recorded under (none), uncharged', async () => {
    good.fault({ kind: 'status', status: 503 })
    const res = await rpc('eth_getCode', [ADDRESS, 'latest'])
    good.fault(undefined)
    expect(res.status).toBeGreaterThanOrEqual(500)
    await s.parts.upstreamUsage.flush()
    const report = await queryUpstreamUsage(s.parts.database.db, { fromSec: 0, toSec: 2 ** 40, byMethod: true })
    const none = report.rows.filter((r) => r.method === 'eth_getCode')
    expect(none.map((r) => [r.upstream, r.calls, r.credits, r.failures])).toEqual([[NO_UPSTREAM, 1, 0, 1]])
    // The pool says how many upstream requests the failed call made: both upstreams were asked.
    expect(none[0]!.attempts).toBe(received(good, 'eth_getCode') + received(failing, 'eth_getCode'))
    expect(none[0]!.attempts).toBeGreaterThanOrEqual(1)
  })

  it('chaingate usage --by upstream prints the same totals (text and --json); --account does not apply', async () => {
    await s.parts.upstreamUsage.flush()
    const day = new Date().toISOString().slice(0, 10)
    const expected = await queryUpstreamUsage(s.parts.database.db, {
      fromSec: Date.parse(`${day}T00:00:00Z`) / 1000,
      toSec: Date.parse(`${day}T00:00:00Z`) / 1000 + 86_400,
    })
    const json = await runCli(['usage', '--by', 'upstream', '--json', '--data-dir', join(dir, 'data')], {
      timeoutMs: 60_000,
    })
    expect(json.code, json.stderr).toBe(0)
    const parsed = JSON.parse(json.stdout)
    expect(parsed.day).toBe(day)
    expect(parsed.rows).toEqual(expected.rows)
    expect(parsed.total).toEqual(expected.total)
    const text = await runCli(['usage', '--by', 'upstream', '--data-dir', join(dir, 'data')], { timeoutMs: 60_000 })
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain(`upstream usage on ${day} (UTC)`)
    expect(text.stdout).toMatch(new RegExp(`remote\\s+${label(good).replace(/[.]/g, '\\.')}\\s+\\d+`))
    expect(text.stdout).toContain(
      `upstream requests saved (cache + in-flight dedup): ${expected.total.saved} of ${expected.total.calls} calls`,
    )
    const wrong = await runCli(
      ['usage', '--by', 'upstream', '--account', 'someone@example.com', '--data-dir', join(dir, 'data')],
      { timeoutMs: 60_000 },
    )
    expect([wrong.code, wrong.stderr]).toEqual([
      2,
      'error: --by upstream reports the whole gateway: --account and --key do not apply\n',
    ])
  }, 120_000)

  it('the usage page shows the upstream section to operators only', async () => {
    const email = `op-${Date.now()}@example.com`
    const c = httpClient(s.url)
    expect((await c.signup(email, PASSWORD)).statusCode).toBe(303)
    const before = await c.get('/usage')
    expect(before.statusCode).toBe(200)
    expect(before.body).not.toContain('id="upstream-usage"')
    expect(before.body).not.toContain(label(good))
    const account = (await s.parts.accounts.findByEmail(email))!
    await s.parts.database.db.updateTable('accounts').set({ role: 'operator' }).where('id', '=', account.id).execute()
    const after = await c.get('/usage')
    expect(after.statusCode).toBe(200)
    expect(after.body).toContain('id="upstream-usage"')
    expect(after.body).toContain(`<code>${label(good)}</code>`)
    expect(after.body).toContain('<code>cache</code>')
  })
})
