/**
 * `chaingate reload` against real `chaingate start` processes (docs/config.md, "Reloading"): a single process
 * reached through its data dir (SIGHUP, outcome read back), and two `--workers 2` replicas on one Redis, where one
 * command reaches every process. Real anvils behind TCP proxies (an upstream URL rotated to another proxy of the
 * same chain, the old proxy then cut).
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAnvil, type RunningAnvil } from '../../src/upstreams/devnet/anvil.ts'
import {
  type Chaingate,
  cleanupProcesses,
  removeDirs,
  runCli,
  startChaingate,
  tempDir,
  waitFor,
  writeConfig,
} from './helpers/process.ts'
import { describeWithServices, redisUrl } from '../support/services.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'

const CHAIN_A = 31371
const CHAIN_B = 31372
let anvilA: RunningAnvil
let anvilB: RunningAnvil
let p1: TcpProxy
let p2: TcpProxy
let pB: TcpProxy
const dirs: string[] = []
const dataDirs: string[] = []
const started: Chaingate[] = []

beforeAll(async () => {
  ;[anvilA, anvilB] = await Promise.all([
    startAnvil({ chainId: CHAIN_A, port: 0, blockTimeSeconds: 0 }),
    startAnvil({ chainId: CHAIN_B, port: 0, blockTimeSeconds: 0 }),
  ])
  ;[p1, p2, pB] = await Promise.all([startTcpProxy(anvilA.url), startTcpProxy(anvilA.url), startTcpProxy(anvilB.url)])
}, 60_000)

afterAll(async () => {
  for (const cg of started) if (cg.child.exitCode === null) await cg.signal('SIGTERM', 30_000).catch(() => undefined)
  await cleanupProcesses(dataDirs)
  await Promise.all([p1, p2, pB].map((p) => p?.close()))
  await Promise.all([anvilA?.stop(), anvilB?.stop()])
  removeDirs(dirs)
}, 60_000)

const up = (p: TcpProxy) => ({ url: p.url, wsUrl: p.wsUrl })
function configOf(o: {
  remote?: TcpProxy[]
  other?: boolean
  added?: boolean
  price?: number
  port?: number
  redis?: { url: string; keyPrefix: string }
}) {
  const networks = [{ name: 'remote', chainId: CHAIN_A, upstreams: (o.remote ?? [p1]).map(up) }]
  if (o.other ?? true) networks.push({ name: 'other', chainId: CHAIN_B, upstreams: [up(pB)] })
  if (o.added) networks.push({ name: 'added', chainId: CHAIN_B, upstreams: [up(pB)] })
  return {
    gateway: { port: o.port ?? 0 },
    networks,
    plans: { dev: { creditsPerDay: 1e12, creditsPerSecond: 1e9, maxKeys: null } },
    credits: o.price === undefined ? {} : { methods: { eth_blockNumber: o.price } },
    wallet: { enabled: false },
    log: { requests: false },
    redis: o.redis ?? { url: null },
    admin: { token: ADMIN_TOKEN },
  }
}

const ADMIN_TOKEN = randomBytes(24).toString('hex')
/** `POST /admin/v1/reload` on one process (through a balancer: the replica it lands on). */
async function adminReload(base: string) {
  const res = await request(`${base}/admin/v1/reload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, connection: 'close' },
  })
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> }
}

async function rpc(url: string, method: string) {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
  })
  const text = await res.body.text()
  const body = res.statusCode === 200 ? JSON.parse(text) : text
  return { status: res.statusCode, body, credits: Number(res.headers['x-credits-charged']) }
}
async function version(base: string): Promise<string> {
  const res = await request(`${base}/healthz`)
  const text = await res.body.text()
  if (res.statusCode !== 200) throw new Error(`/healthz of ${base}: ${res.statusCode} ${text}`)
  return (JSON.parse(text) as { config: { version: string } }).config.version
}

describe('chaingate reload, one process', { timeout: 180_000 }, () => {
  it('applies prices, a rotated upstream, added and removed networks; refuses bad files', async () => {
    const dir = tempDir('chaingate-cli-reload-')
    dirs.push(dir)
    const data = join(dir, 'data')
    dataDirs.push(data)
    const file = writeConfig(dir, 'chaingate.yaml', configOf({}))
    const cg = await startChaingate(['--config', file, '--data-dir', data], { timeoutMs: 60_000 })
    started.push(cg)
    const { gatewayUrl: base, devKey: key } = cg.banner
    const at = (network: string) => `${base}/networks/${network}/v3/${key}`
    const reload = () => runCli(['reload', '--config', file, '--data-dir', data], { timeoutMs: 60_000 })
    const v0 = await version(base)
    expect((await rpc(at('remote'), 'eth_blockNumber')).credits).toBe(80)

    writeConfig(dir, 'chaingate.yaml', configOf({ price: 7, remote: [p2] }))
    const r1 = await reload()
    expect(r1.code, r1.stderr).toBe(0)
    const v1 =
      /\(single\): reloaded in \d+ ms, config ([0-9a-f]{12}) \(network remote changed \(upstreams\); credits/.exec(
        r1.stdout,
      )?.[1]
    expect(v1, r1.stdout).toBeDefined()
    expect(v1).not.toBe(v0)
    expect(await version(base)).toBe(v1)
    await p1.cut()
    const after = await rpc(at('remote'), 'eth_blockNumber')
    expect([after.status, after.credits, after.body.error]).toEqual([200, 7, undefined])
    await p1.restore()

    writeConfig(dir, 'chaingate.yaml', configOf({ price: 7, remote: [p2], other: false, added: true }))
    const r2 = await reload()
    expect(r2.code, r2.stderr).toBe(0)
    expect(r2.stdout).toContain('network added added; network other removed')
    expect((await rpc(at('other'), 'eth_chainId')).status).toBe(404)
    const enable = await runCli(['key', 'enable-network', key, 'added', '--config', file, '--data-dir', data])
    expect(enable.code, enable.stderr).toBe(0)
    await waitFor(async () => (await rpc(at('added'), 'eth_chainId')).status === 200, 10_000, 'the key on added')
    expect((await rpc(at('added'), 'eth_chainId')).body.result).toBe(`0x${CHAIN_B.toString(16)}`)
    const v2 = await version(base)

    // Invalid: one line naming the setting, exit 1, nothing sent; the old config serves.
    writeConfig(dir, 'chaingate.yaml', { ...configOf({ price: 9 }), plans: { dev: { creditsPerDay: -1 } } })
    const bad = await reload()
    expect(bad.code).toBe(1)
    expect(bad.stderr.trim().split('\n')).toHaveLength(1)
    expect(bad.stderr).toMatch(
      /^error: invalid config .*chaingate\.yaml: plans\.dev\.creditsPerDay: .*nothing was reloaded\n$/,
    )
    // A port change: refused by the process, naming the setting; nothing else applied (the price stays 7).
    writeConfig(dir, 'chaingate.yaml', configOf({ price: 9, remote: [p2], other: false, added: true, port: 1 }))
    const port = await reload()
    expect(port.code).toBe(1)
    expect(port.stderr).toContain(
      `(single): not reloaded, still config ${v2}: gateway.port: cannot change while chaingate runs (restart`,
    )
    expect(await version(base)).toBe(v2)
    expect((await rpc(at('remote'), 'eth_blockNumber')).credits).toBe(7)

    // SIGHUP by hand does the same as the command.
    writeConfig(dir, 'chaingate.yaml', configOf({ price: 11, remote: [p2], other: false, added: true }))
    process.kill(cg.pid, 'SIGHUP')
    await waitFor(async () => (await rpc(at('remote'), 'eth_blockNumber')).credits === 11, 10_000, 'the SIGHUP reload')
    expect(cg.child.exitCode).toBeNull()

    // The admin API's reload, without Redis: this process, its outcome listed as the CLI's.
    writeConfig(dir, 'chaingate.yaml', configOf({ price: 12, remote: [p2], other: false, added: true }))
    const viaApi = await adminReload(base)
    expect([viaApi.status, viaApi.body.ok, viaApi.body.expected], JSON.stringify(viaApi.body)).toEqual([200, true, 1])
    expect((await rpc(at('remote'), 'eth_blockNumber')).credits).toBe(12)
  })
})

describe('chaingate reload, nothing to reach', () => {
  it('no lock: exit 1 naming the data dir; the pid of another program in a stale lock is not signalled', async () => {
    const dir = tempDir('chaingate-cli-reload-none-')
    dirs.push(dir)
    const none = await runCli(['reload', '--data-dir', dir])
    expect([none.code, none.stderr]).toEqual([
      1,
      `error: no chaingate runs on the data dir ${dir} (no chaingate.lock); nothing was reloaded\n`,
    ])
    const other = spawn('sleep', ['30'])
    try {
      writeFileSync(join(dir, 'chaingate.lock'), `${other.pid}\n`)
      const stale = await runCli(['reload', '--data-dir', dir])
      expect(stale.code).toBe(1)
      expect(stale.stderr).toContain(`pid ${other.pid} in ${join(dir, 'chaingate.lock')} is not chaingate`)
      expect(other.exitCode).toBeNull()
      expect(other.signalCode).toBeNull()
    } finally {
      other.kill('SIGKILL')
    }
  })
})

describeWithServices(['redis'], 'chaingate reload, two replicas with --workers 2 on Redis', () => {
  it('one command reloads the primary and every worker of every replica, each reporting its config version', {
    timeout: 300_000,
  }, async () => {
    const redis = { url: redisUrl, keyPrefix: `test-reload-${randomBytes(4).toString('hex')}:` }
    const replicas = await Promise.all(
      [1, 2].map(async (n) => {
        const dir = tempDir(`chaingate-cli-reload-${n}-`)
        dirs.push(dir)
        const data = join(dir, 'data')
        dataDirs.push(data)
        const file = writeConfig(dir, 'chaingate.yaml', configOf({ redis }))
        const cg = await startChaingate(['--config', file, '--data-dir', data, '--workers', '2'], {
          timeoutMs: 120_000,
        })
        started.push(cg)
        return { dir, data, file, cg }
      }),
    )
    for (const r of replicas) writeConfig(r.dir, 'chaingate.yaml', configOf({ redis, price: 13 }))
    const began = Date.now()
    const out = await runCli(['reload', '--config', replicas[0]!.file, '--data-dir', replicas[0]!.data, '--json'], {
      timeoutMs: 60_000,
    })
    expect(out.code, out.stderr).toBe(0)
    type Processes = { process: string; version: string; afterMs: number }[]
    const result = out.json() as { ok: boolean; expected: number; processes: Processes }
    expect(result.expected).toBe(6)
    expect(result.processes.map((p) => p.process.replace(/^.* pid \d+ /, '')).sort()).toEqual([
      '(primary)',
      '(primary)',
      '(worker 1)',
      '(worker 1)',
      '(worker 2)',
      '(worker 2)',
    ])
    expect(new Set(result.processes.map((p) => p.version)).size).toBe(1)
    // Every process of both replicas applied it within a second of the request.
    for (const p of result.processes) expect(p.afterMs, p.process).toBeLessThan(1000)
    expect(Date.now() - began).toBeLessThan(10_000) // the CLI's own start included
    // Every worker of every replica charges the new price (fresh connections spread over the workers).
    for (const r of replicas)
      for (let i = 0; i < 8; i++) {
        const { gatewayUrl: base, devKey: key } = r.cg.banner
        expect((await rpc(`${base}/networks/remote/v3/${key}`, 'eth_blockNumber')).credits).toBe(13)
        expect(await version(base)).toBe(result.processes[0]!.version)
      }

    // POST /admin/v1/reload on one replica (as through the balancer) reaches every process of both, as the CLI.
    for (const r of replicas) writeConfig(r.dir, 'chaingate.yaml', configOf({ redis, price: 17 }))
    const viaApi = await adminReload(replicas[1]!.cg.banner.gatewayUrl)
    expect(viaApi.status, JSON.stringify(viaApi.body)).toBe(200)
    const answered = viaApi.body as { ok: boolean; expected: number; processes: Processes }
    expect([answered.ok, answered.expected, answered.processes.length]).toEqual([true, 6, 6])
    expect(new Set(answered.processes.map((p) => p.process)).size).toBe(6)
    for (const r of replicas)
      for (let i = 0; i < 8; i++) {
        const { gatewayUrl: base, devKey: key } = r.cg.banner
        expect((await rpc(`${base}/networks/remote/v3/${key}`, 'eth_blockNumber')).credits).toBe(17)
      }
  })
})
