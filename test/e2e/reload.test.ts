/**
 * Reloading a running gateway in place (docs/config.md, "Reloading"): the app re-reads its config file
 * (`readConfig`, as `chaingate start` gives it) and applies networks, upstreams, credit prices and the log level
 * without a restart. Real anvils behind TCP proxies (so an upstream URL can be rotated to another proxy of the same
 * chain and the old one cut), real HTTP and WebSocket clients.
 */
import { writeFileSync } from 'node:fs'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { loadConfig } from '../../src/config/load.ts'
import { startAnvil, type RunningAnvil } from '../../src/upstreams/devnet/anvil.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'
import { type FakeNode, type FakeRequest, result, startFakeNode } from '../support/fake-node.ts'
import { newHeadsClient, range, rpcAt, waitFor } from './helpers/ws-subscribers.ts'

const CHAIN_A = 31361
const CHAIN_B = 31362
const CHAIN_C = 31363
let anvilA: RunningAnvil
let anvilB: RunningAnvil
let p1: TcpProxy
let p2: TcpProxy
let pB: TcpProxy
let s: TestServer
let dir: string
let file: string

const ADMIN_TOKEN = 'reload-test-admin-token-0123456789'
const PLANS = { team: { creditsPerDay: 1e12, creditsPerSecond: 1e9, maxKeys: null } }
const up = (p: TcpProxy) => ({ url: p.url, wsUrl: p.wsUrl })

/** The file's config: what startTestServer runs, with these networks, prices and log level. */
function configFile(o: {
  remote?: TcpProxy[]
  other?: boolean
  added?: boolean
  price?: number
  level?: string
  port?: number
  slow?: FakeNode
  plans?: Record<string, unknown>
}): Record<string, unknown> {
  const networks: Record<string, unknown>[] = [
    { name: 'remote', chainId: CHAIN_A, upstreams: (o.remote ?? [p1]).map(up) },
  ]
  if (o.slow) networks.push({ name: 'slow', chainId: CHAIN_C, upstreams: [{ url: o.slow.url }] })
  if (o.other ?? true) networks.push({ name: 'other', chainId: CHAIN_B, upstreams: [up(pB)] })
  if (o.added) networks.push({ name: 'added', chainId: CHAIN_B, upstreams: [up(pB)] })
  return {
    dataDir: join(dir, 'data'),
    database: { url: null },
    gateway: { port: o.port ?? 0, devAccount: null, usageFlushMs: 100, settingsPollMs: 100 },
    networks,
    plans: o.plans ?? PLANS,
    credits: o.price === undefined ? {} : { methods: { eth_blockNumber: o.price } },
    log: { level: o.level ?? 'info' },
    wallet: { enabled: false },
    admin: { token: ADMIN_TOKEN },
  }
}
const write = (raw: unknown) => writeFileSync(file, JSON.stringify(raw))

const mineA = () => rpcAt(anvilA.url, 'anvil_mine', ['0x1'])
const headA = async () => Number(await rpcAt(anvilA.url, 'eth_blockNumber'))

async function post(network: string, body: unknown) {
  const res = await request(s.endpoint(network), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const text = await res.body.text()
  return { status: res.statusCode, text, credits: Number(res.headers['x-credits-charged']) }
}

async function healthVersion(): Promise<string> {
  const res = await request(`${s.url}/healthz`)
  return ((await res.body.json()) as { config: { version: string } }).config.version
}

beforeAll(async () => {
  ;[anvilA, anvilB] = await Promise.all([
    startAnvil({ chainId: CHAIN_A, port: 0, blockTimeSeconds: 0 }),
    startAnvil({ chainId: CHAIN_B, port: 0, blockTimeSeconds: 0 }),
  ])
  ;[p1, p2, pB] = await Promise.all([startTcpProxy(anvilA.url), startTcpProxy(anvilA.url), startTcpProxy(anvilB.url)])
  dir = mkdtempSync(join(tmpdir(), 'chaingate-reload-'))
  file = join(dir, 'chaingate.json')
  const raw = configFile({})
  write(raw)
  s = await startTestServer(raw, { readConfig: () => loadConfig(file), parts: { admin: true } })
}, 60_000)

afterAll(async () => {
  await s?.stop()
  await Promise.all([p1, p2, pB].map((p) => p?.close()))
  await Promise.all([anvilA?.stop(), anvilB?.stop()])
  rmSync(dir, { recursive: true, force: true })
})

describe('reload in place', { timeout: 120_000 }, () => {
  it('reprices a method and changes the log level; /healthz shows the new config version', async () => {
    const before = await healthVersion()
    expect((await post('remote', call('eth_blockNumber'))).credits).toBe(80)
    write(configFile({ price: 7, level: 'debug' }))
    const r = await s.app.reload()
    expect(r).toMatchObject({
      ok: true,
      changes: ['credits changed (credits.methods.eth_blockNumber)', 'log.level info → debug'],
    })
    expect(r.version).not.toBe(before)
    expect(await healthVersion()).toBe(r.version)
    expect((await post('remote', call('eth_blockNumber'))).credits).toBe(7)
    expect(s.app.logger.level).toBe('debug')
    // The same file again: nothing changes, the version stays.
    expect(await s.app.reload()).toMatchObject({ ok: true, changes: [], version: r.version })
    write(configFile({}))
    expect((await s.app.reload()).ok).toBe(true)
    expect(s.app.logger.level).toBe('info')
  })

  it('an invalid file or a port change changes nothing: one line naming the setting', async () => {
    const version = await healthVersion()
    write({ ...configFile({ price: 7 }), plans: { team: { creditsPerDay: -1 } } })
    const invalid = await s.app.reload()
    expect(invalid.ok).toBe(false)
    expect(invalid.error).toMatch(
      /^invalid config .*chaingate\.json: plans\.team\.creditsPerDay: .*nothing was reloaded$/,
    )
    write(configFile({ price: 7, port: 1 }))
    const refused = await s.app.reload()
    expect(refused).toMatchObject({ ok: false, version })
    expect(refused.error).toBe(
      'gateway.port: cannot change while chaingate runs (restart to apply it); nothing was reloaded',
    )
    expect((await post('remote', call('eth_blockNumber'))).credits).toBe(80)
    expect(await healthVersion()).toBe(version)
    write(configFile({}))
  })

  it('rotates an upstream URL: newHeads moves make-before-break, no head lost or repeated', async () => {
    const c = await newHeadsClient(s)
    const start = await headA()
    for (let i = 0; i < 3; i++) await mineA()
    await waitFor(() => c.heads().includes(start + 3))
    // Cache look-ups are counted on across the reload that rebuilds the network's layers (the cache kept too).
    const lookups = async () => {
      const text = await (await request(`${s.url}/metrics`)).body.text()
      return ['hit', 'miss'].map((r) =>
        Number(
          new RegExp(
            `chaingate_cache_lookups_total\\{network="remote",rule="static",result="${r}",[^}]*\\} (\\d+)`,
          ).exec(text)?.[1],
        ),
      )
    }
    for (let i = 0; i < 2; i++) await post('remote', call('eth_chainId'))
    const [hits, misses] = await lookups()
    expect(misses).toBeGreaterThan(0)
    write(configFile({ remote: [p2] }))
    const r = await s.app.reload()
    expect(r).toMatchObject({ ok: true, changes: ['network remote changed (upstreams)'] })
    await post('remote', call('eth_chainId'))
    expect(await lookups()).toEqual([hits! + 1, misses])
    expect(s.parts.hubs.get('remote')!.upstream).toContain(`:${p2.port}`)
    expect(s.parts.hubs.get('remote')!.moves.removed).toBe(1)
    await p1.cut() // the rotated-out URL stops working: nothing may need it any more
    for (let i = 0; i < 3; i++) await mineA()
    expect(JSON.parse((await post('remote', call('eth_blockNumber'))).text).result).toBe(
      `0x${(start + 6).toString(16)}`,
    )
    await waitFor(() => c.heads().includes(start + 6))
    expect(c.heads().filter((n) => n > start)).toEqual(range(start + 1, start + 6))
    expect(c.closedWith()).toBeUndefined()
    c.ws.close()
    await p1.restore()
  })

  it('adds a network and removes one: its WebSocket clients close with 4004, its path answers 404', async () => {
    const ws = new WebSocket(s.endpoint('other').replace('http', 'ws').replace('/v3/', '/ws/v3/'))
    await new Promise((r, j) => ws.once('open', r).once('error', j))
    const closed = new Promise<{ code: number; reason: string }>((r) =>
      ws.on('close', (code, reason) => r({ code, reason: reason.toString() })),
    )
    write(configFile({ remote: [p2], other: false, added: true }))
    const r = await s.app.reload()
    expect(r).toMatchObject({ ok: true, changes: ['network added added', 'network other removed'] })
    expect(await closed).toEqual({ code: 4004, reason: 'network other was removed from this gateway' })
    const gone = await post('other', call('eth_chainId'))
    expect(gone.status).toBe(404)
    // A new network is enabled on a key like any network (here directly; `chaingate key enable-network`).
    await s.parts.keys.setNetwork(s.key.id, 'added', true)
    await s.parts.keySnapshot.reload()
    expect(JSON.parse((await post('added', call('eth_chainId'))).text).result).toBe(`0x${CHAIN_B.toString(16)}`)
    expect([...s.parts.pools.keys()]).toEqual(['remote', 'added'])
    write(configFile({ remote: [p2] }))
    expect((await s.app.reload()).ok).toBe(true)
  })

  it('POST /admin/v1/reload applies the file; a refused file answers 422 naming the setting', async () => {
    const admin = (path: string) =>
      request(`${s.url}/admin/v1${path}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    write(configFile({ remote: [p2], price: 9 }))
    const ok = await admin('/reload')
    type Outcome = { ok: boolean; version: string; changes: string[] }
    const body = (await ok.body.json()) as { ok: boolean; expected: number; processes: Outcome[] }
    expect(ok.statusCode).toBe(200)
    expect(body).toMatchObject({ ok: true, expected: 1 })
    expect(body.processes).toHaveLength(1)
    expect(body.processes[0]).toMatchObject({
      ok: true,
      changes: ['credits changed (credits.methods.eth_blockNumber)'],
    })
    expect(await healthVersion()).toBe(body.processes[0]!.version)
    expect((await post('remote', call('eth_blockNumber'))).credits).toBe(9)
    write(configFile({ remote: [p2], port: 2 }))
    const refused = await admin('/reload')
    expect(refused.statusCode).toBe(422)
    expect(JSON.stringify(await refused.body.json())).toContain('gateway.port: cannot change while chaingate runs')
    expect((await post('remote', call('eth_blockNumber'))).credits).toBe(9)
  })

  it('a call in flight when its upstream is rotated out finishes on the old node', async () => {
    const balance = (value: string) => (req: FakeRequest) =>
      req.body?.method === 'eth_getBalance' ? { body: result(req, value) } : undefined
    const [oldNode, newNode] = await Promise.all([
      startFakeNode(`0x${CHAIN_C.toString(16)}`, balance('0xa')),
      startFakeNode(`0x${CHAIN_C.toString(16)}`, balance('0xb')),
    ])
    try {
      write(configFile({ remote: [p2], slow: oldNode }))
      expect((await s.app.reload()).ok).toBe(true)
      await s.parts.keys.setNetwork(s.key.id, 'slow', true)
      await s.parts.keySnapshot.reload()
      oldNode.fault({ kind: 'slow', ms: 1500 })
      const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`
      const inFlight = post('slow', call('eth_getBalance', [address(1), 'latest']))
      await waitFor(() => oldNode.requests.some((r) => r.body?.method === 'eth_getBalance'))
      write(configFile({ remote: [p2], slow: newNode }))
      expect(await s.app.reload()).toMatchObject({ ok: true, changes: ['network slow changed (upstreams)'] })
      const next = await post('slow', call('eth_getBalance', [address(2), 'latest']))
      expect(JSON.parse(next.text).result, next.text).toBe('0xb')
      const first = await inFlight
      expect([first.status, JSON.parse(first.text).result]).toEqual([200, '0xa'])
    } finally {
      write(configFile({ remote: [p2] }))
      await s.app.reload()
      await Promise.all([oldNode.close(), newNode.close()])
    }
  })

  it('a new node answering another chain id refuses the reload (nothing applied), as it refuses a start', async () => {
    const version = await healthVersion()
    const raw = configFile({ remote: [p2], price: 5 }) as { networks: Record<string, unknown>[] }
    raw.networks.push({ name: 'wrong', chainId: CHAIN_C, upstreams: [up(pB)] })
    write(raw)
    const r = await s.app.reload()
    expect(r.ok).toBe(false)
    expect(r.error).toMatch(/^networks: network wrong: upstream .* answers chain id 31362 .*nothing was reloaded$/)
    expect(await healthVersion()).toBe(version)
    expect(s.parts.pools.has('wrong')).toBe(false)
    expect((await post('remote', call('eth_blockNumber'))).credits).not.toBe(5)
    write(configFile({ remote: [p2] }))
  })
})

describe('reload by snapshot', { timeout: 120_000 }, () => {
  const PRO = { ...PLANS, pro: { creditsPerDay: 5e12, creditsPerSecond: 1e9, maxKeys: null } }

  it('a step that fails before the swap leaves the old snapshot wholly in place: ok false, nothing applied', async () => {
    const before = s.parts.live.current
    const raw = configFile({ remote: [p2], price: 5, plans: PRO }) as { networks: Record<string, unknown>[] }
    raw.networks.push({ name: 'wrong', chainId: CHAIN_C, upstreams: [up(pB)] })
    write(raw)
    const r = await s.app.reload()
    expect(r).toMatchObject({ ok: false, changes: [], version: before.version.version })
    expect(r.error).toMatch(/nothing was reloaded$/)
    expect(s.parts.live.current).toBe(before)
    expect(s.app.config.plans).not.toHaveProperty('pro')
    expect((await post('remote', call('eth_blockNumber'))).credits).not.toBe(5)
    write(configFile({ remote: [p2] }))
  })

  it('readers in flight keep one snapshot; the app reads the new one; the answer lists what was applied', async () => {
    const held = s.parts.live.current
    const heldText = JSON.stringify(held.config)
    write(configFile({ remote: [p2], price: 6, plans: PRO }))
    const r = await s.app.reload()
    expect(r).toMatchObject({
      ok: true,
      changes: ['plans changed (plans.pro)', 'credits changed (credits.methods.eth_blockNumber)'],
    })
    expect(r.warnings).toBeUndefined()
    // The snapshot a reader held is not changed under it: the reload published a new one.
    expect(JSON.stringify(held.config)).toBe(heldText)
    expect(held.version.version).not.toBe(r.version)
    expect(s.parts.live.current.version.version).toBe(r.version)
    expect(s.parts.live.current.config.plans).toHaveProperty('pro', PRO.pro)
    // Parts that took the config at start read through to it: the accounts repository knows the new plan.
    const account = await s.parts.accounts.create({ email: `pro-${Date.now()}@example.com`, plan: 'pro' }, Date.now())
    expect(account.plan).toBe('pro')
    expect((await post('remote', call('eth_blockNumber'))).credits).toBe(6)
  })

  it('a step after the swap that fails does not hide what was applied: ok true, the list, a warning', async () => {
    write(configFile({ remote: [p2], plans: PRO }))
    expect((await s.app.reload()).ok).toBe(true)
    const hub = s.parts.hubs.get('other')!
    const close = hub.close.bind(hub)
    hub.close = async () => {
      await close()
      throw new Error('the hub did not close cleanly')
    }
    write(configFile({ remote: [p2], plans: PRO, other: false }))
    const r = await s.app.reload()
    expect(r).toMatchObject({
      ok: true,
      changes: ['network other removed'],
      warnings: ['network other: closing its subscriptions: the hub did not close cleanly'],
    })
    expect(await healthVersion()).toBe(r.version)
    expect((await post('other', call('eth_chainId'))).status).toBe(404)
    write(configFile({ remote: [p2], plans: PRO }))
    expect((await s.app.reload()).ok).toBe(true)
  })
})
