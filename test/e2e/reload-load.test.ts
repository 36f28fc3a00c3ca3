/**
 * Reloading under load (docs/config.md, "Reloading"): a reload every second (RELOAD_LOAD_SECONDS, 20 by default;
 * 60 for the minute) that rotates the upstream URLs of the network and reprices eth_blockNumber, while
 * HTTP clients send single calls and batches and WebSocket clients follow newHeads on a chain mining all along.
 * No call may fail, no head may be lost or repeated, and the new price must be charged from the first call after
 * each reload returns.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/load.ts'
import { startAnvil, type RunningAnvil } from '../../src/upstreams/devnet/anvil.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'
import { newHeadsClient, range, rpcAt, waitFor, type HeadsClient } from './helpers/ws-subscribers.ts'

const CHAIN = 31381
const SECONDS = Number(process.env.RELOAD_LOAD_SECONDS ?? 20)
let anvil: RunningAnvil
let proxies: TcpProxy[]
let s: TestServer
let dir: string
let file: string

/** Round `i`: the network on one, the other or both proxies (weights change too), eth_blockNumber at 7 + i % 3. */
function round(i: number): { raw: Record<string, unknown>; price: number } {
  const ups = [[proxies[0]!], [proxies[1]!], proxies][i % 3]!.map((p, j) => ({
    url: p.url,
    wsUrl: p.wsUrl,
    weight: 1 + ((i + j) % 4),
  }))
  const price = 7 + (i % 3)
  const raw = {
    dataDir: join(dir, 'data'),
    database: { url: null },
    gateway: { port: 0, devAccount: null, usageFlushMs: 100, settingsPollMs: 100, subscriptionFailbackMs: 0 },
    networks: [{ name: 'remote', chainId: CHAIN, upstreams: ups }],
    plans: { team: { creditsPerDay: 1e12, creditsPerSecond: 1e9, maxKeys: null } },
    credits: { methods: { eth_blockNumber: price } },
    wallet: { enabled: false },
  }
  return { raw, price }
}

async function post(body: unknown) {
  const res = await request(s.endpoint('remote'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.statusCode, text: await res.body.text(), credits: Number(res.headers['x-credits-charged']) }
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN, port: 0, blockTimeSeconds: 0 })
  proxies = await Promise.all([startTcpProxy(anvil.url), startTcpProxy(anvil.url)])
  dir = mkdtempSync(join(tmpdir(), 'chaingate-reload-load-'))
  file = join(dir, 'chaingate.json')
  const first = round(0).raw
  writeFileSync(file, JSON.stringify(first))
  s = await startTestServer(first, { readConfig: () => loadConfig(file) })
}, 60_000)

afterAll(async () => {
  await s?.stop()
  await Promise.all((proxies ?? []).map((p) => p.close()))
  await anvil?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('reload under load', () => {
  it(`a reload every second for ${SECONDS} s: no failed call, no lost or repeated head, new prices at once`, {
    timeout: (SECONDS + 120) * 1000,
  }, async () => {
    const clients: HeadsClient[] = await Promise.all([newHeadsClient(s), newHeadsClient(s), newHeadsClient(s)])
    const start = Number(await rpcAt(anvil.url, 'eth_blockNumber'))
    let stop = false
    const failures: string[] = []
    let calls = 0
    const check = (r: { status: number; text: string }, what: string) => {
      calls++
      const bodies = [JSON.parse(r.text)].flat() as { error?: unknown }[]
      if (r.status !== 200 || bodies.some((b) => b.error !== undefined)) failures.push(`${what}: ${r.status} ${r.text}`)
    }
    const miner = (async () => {
      while (!stop) {
        await rpcAt(anvil.url, 'anvil_mine', ['0x1'])
        await new Promise((r) => setTimeout(r, 150))
      }
    })()
    const singles = Array.from({ length: 4 }, async (_, k) => {
      while (!stop) {
        const method = k % 2 ? 'eth_blockNumber' : 'eth_getBlockByNumber'
        check(await post(call(method, k % 2 ? [] : ['latest', false], k)), method)
      }
    })
    const batches = Array.from({ length: 2 }, async () => {
      while (!stop)
        check(
          await post([call('eth_chainId', [], 1), call('eth_blockNumber', [], 2), call('net_version', [], 3)]),
          'batch',
        )
    })
    const versions = new Set<string>()
    const lateReloads: number[] = []
    for (let i = 1; i <= SECONDS; i++) {
      const { raw, price } = round(i)
      writeFileSync(file, JSON.stringify(raw))
      const began = Date.now()
      const r = await s.app.reload()
      expect(r, r.error).toMatchObject({ ok: true })
      if (Date.now() - began > 1000) lateReloads.push(Date.now() - began)
      versions.add(r.version)
      // The new price from the first call after the reload returned.
      expect((await post(call('eth_blockNumber', [], 'after'))).credits).toBe(price)
      await new Promise((res) => setTimeout(res, Math.max(0, 1000 - (Date.now() - began))))
    }
    stop = true
    await Promise.all([miner, ...singles, ...batches])
    const end = Number(await rpcAt(anvil.url, 'eth_blockNumber'))
    await waitFor(() => clients.every((c) => c.heads().includes(end)), 30_000)
    expect(failures).toEqual([])
    expect(lateReloads).toEqual([])
    expect(calls).toBeGreaterThan(SECONDS * 20)
    expect(versions.size).toBeGreaterThanOrEqual(3)
    for (const c of clients) {
      expect(c.closedWith()).toBeUndefined()
      expect(c.heads().filter((n) => n > start)).toEqual(range(start + 1, end))
    }
    expect(s.parts.hubs.get('remote')!.moves.removed).toBeGreaterThan(0)
    for (const c of clients) c.ws.close()
  })
})
