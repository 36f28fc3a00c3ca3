/**
 * The shipped Prometheus files with the real tools: `promtool check` and `promtool test rules` on
 * deploy/prometheus/, then a real Prometheus scraping a running chaingate (on Redis, so every metric the rules name
 * is there): the scrape is up, the rules load, and the series part of every alert expression returns series. The
 * Grafana dashboard (deploy/grafana/chaingate.json) names only metrics /metrics exposes, and every panel query
 * runs. Labels stay bounded: no key or account ids.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { request } from 'undici'
import WebSocket from 'ws'
import { parse } from 'yaml'
import { startAnvil, type RunningAnvil } from '../../src/upstreams/devnet/anvil.ts'
import { freePort } from './helpers/haproxy.ts'
import { ROOT, waitFor } from './helpers/process.ts'
import { startTestServer, call, type TestServer } from './helpers/server.ts'
import { programPath } from '../support/programs.ts'
import { describeWithServices, redisUrl } from '../support/services.ts'

const DIR = join(ROOT, 'deploy', 'prometheus')
/** gateway.operations.token: the shipped scrape config sends it from the file compose mounts beside it. */
const OPS_TOKEN = randomBytes(16).toString('hex')
const shipped = parse(readFileSync(join(DIR, 'prometheus.yml'), 'utf8'))

interface Rule {
  alert: string
  expr: string
}
const rules: Rule[] = parse(readFileSync(join(DIR, 'alerts.yaml'), 'utf8')).groups.flatMap((g: any) => g.rules)

/** `A > 1 and B == 1` → [A, B]: the series an alert compares, which must exist whatever their values. */
function seriesParts(expr: string): string[] {
  return expr
    .split(/\band\b/)
    .map((p) => p.trim().replace(/\s*(==|!=|>=|<=|>|<)\s*[0-9.e+-]+$/, ''))
    .filter(Boolean)
}

// On Redis: the metrics of its counters are among those the rules name.
const NEEDS = ['redis', 'prometheus', 'promtool'] as const
describeWithServices(NEEDS, 'Prometheus rules and the Grafana dashboard against a running chaingate', () => {
  let anvil: RunningAnvil
  let s: TestServer
  let prom: ChildProcess
  let promUrl: string
  let promOut = ''
  const dir = mkdtempSync(join(tmpdir(), 'chaingate-prom-'))
  const query = async (q: string) => {
    const res = await request(`${promUrl}/api/v1/query?query=${encodeURIComponent(q)}`)
    return (await res.body.json()) as { status: string; error?: string; data: { result: unknown[] } }
  }

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 4260, port: 0, blockTimeSeconds: 0 })
    s = await startTestServer({
      networks: [{ name: 'ext', chainId: 4260, upstreams: [{ url: anvil.url }] }],
      plans: { tiny: { creditsPerDay: 300, creditsPerSecond: 100_000, maxKeys: null } },
      redis: { url: redisUrl, keyPrefix: `test-prom-${randomBytes(4).toString('hex')}:` },
      gateway: { operations: { token: OPS_TOKEN } },
    })
    // Traffic of every kind the rules and panels look at: answers, a node error, a refusal for credits, a cached
    // read (a miss, then a hit), a subscription with one event fanned out.
    const tiny = await s.newKey('tiny')
    for (let i = 0; i < 20; i++) await s.rpc(call('eth_blockNumber'), { network: 'ext' })
    for (let i = 0; i < 2; i++) await s.rpc(call('eth_chainId'), { network: 'ext' })
    await subscribedToOneHead()
    await s.rpc(call('eth_getBalance', ['0xnot-an-address', 'latest']), { network: 'ext' })
    for (let i = 0; i < 40; i++) {
      const r = await s.rpc(call('eth_blockNumber'), { network: 'ext', key: tiny.key.key })
      if (r.status === 402) break
    }
    const port = await freePort()
    promUrl = `http://127.0.0.1:${port}`
    const target = new URL(s.url).host
    // The shipped files as compose mounts them: prometheus.yml and alerts.yaml with the token file beside them.
    for (const f of ['prometheus.yml', 'alerts.yaml', 'alerts.test.yaml']) copyFileSync(join(DIR, f), join(dir, f))
    writeFileSync(join(dir, 'operations-token'), OPS_TOKEN)
    // The shipped scrape config (its job name and bearer token), here at 1 s and aimed at this gateway.
    writeFileSync(
      join(dir, 'scrape.yml'),
      JSON.stringify({
        global: { scrape_interval: '1s', evaluation_interval: '1s' },
        rule_files: ['alerts.yaml'],
        scrape_configs: [{ ...shipped.scrape_configs[0], static_configs: [{ targets: [target] }] }],
      }),
    )
    prom = spawn(
      programPath('prometheus'),
      [
        `--config.file=${join(dir, 'scrape.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    prom.stderr!.on('data', (c: Buffer) => (promOut += c.toString()))
    await waitFor(
      async () => {
        if (prom.exitCode !== null) throw new Error(`prometheus exited: ${promOut}`)
        return (await request(`${promUrl}/-/ready`)).statusCode === 200
      },
      30_000,
      'prometheus ready',
      200,
    )
    // Three scrapes at least: rate() and delta() need two samples in their window.
    await waitFor(
      async () => (await query('count_over_time(up{job="chaingate"}[1m]) >= 3')).data.result.length === 1,
      30_000,
      'three scrapes',
      250,
    )
  }, 120_000)

  /** A client subscribed to newHeads on `ext` until it has the event of one mined block. */
  const subscribedToOneHead = async () => {
    const ws = new WebSocket(`${s.url.replace('http', 'ws')}/networks/ext/ws/v3/${s.key.key}`)
    const got = new Promise<void>((resolve) =>
      ws.on('message', (d) => {
        const m = JSON.parse(d.toString())
        if (m.id === 1)
          void request(anvil.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(call('evm_mine')),
          }).then((r) => r.body.dump())
        if (m.method === 'eth_subscription') resolve()
      }),
    )
    await new Promise((resolve) => ws.once('open', resolve))
    ws.send(JSON.stringify(call('eth_subscribe', ['newHeads'])))
    await got
    ws.close()
  }

  afterAll(async () => {
    if (prom && prom.exitCode === null) {
      const exited = new Promise((r) => prom.once('exit', r))
      prom.kill('SIGTERM')
      await exited
    }
    await s?.stop()
    await anvil?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('promtool: the rules and the compose Prometheus config check, and the rules unit tests pass', () => {
    for (const args of [
      ['check', 'rules', 'alerts.yaml'],
      ['check', 'config', 'prometheus.yml'],
      ['test', 'rules', 'alerts.test.yaml'],
    ]) {
      const r = spawnSync(programPath('promtool'), args, { cwd: dir, encoding: 'utf8' })
      expect(r.status, `promtool ${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0)
    }
  })

  it('the scrape is up and every rule is loaded and healthy', async () => {
    // On a loaded machine one scrape may time out (up 0 until the next) and a rule may not have run yet: the state
    // must be reached, within a few scrapes.
    const rulesNow = async () =>
      ((await (await request(`${promUrl}/api/v1/rules`)).body.json()) as any).data.groups.flatMap((g: any) => g.rules)
    let loaded: any[] = []
    await waitFor(
      async () => {
        const up = (await query('up{job="chaingate"}')).data.result as { value?: unknown[] }[]
        loaded = await rulesNow()
        return up[0]?.value?.[1] === '1' && loaded.length > 0 && loaded.every((r: any) => r.health === 'ok')
      },
      20_000,
      'the scrape up and every rule healthy',
      250,
    ).catch(() => undefined)
    expect((await query('up{job="chaingate"}')).data.result).toMatchObject([{ value: [expect.anything(), '1'] }])
    expect(loaded.map((r: any) => r.name).sort()).toEqual(rules.map((r) => r.alert).sort())
    for (const r of loaded) expect(r.health, `${r.name}: ${r.lastError}`).toBe('ok')
  })

  it.each(rules.map((r) => [r.alert, r.expr] as const))('%s: the series it compares exist', async (_name, expr) => {
    for (const part of seriesParts(expr)) {
      const r = await query(part)
      expect(r.status, r.error).toBe('success')
      expect(r.data.result.length, part).toBeGreaterThan(0)
    }
  })

  it('the Grafana dashboard names only metrics /metrics exposes, and every panel query runs', async () => {
    const exposed = await (
      await request(`${s.url}/metrics`, { headers: { authorization: `Bearer ${OPS_TOKEN}` } })
    ).body.text()
    const types = new Set([...exposed.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]))
    const dashboard = JSON.parse(readFileSync(join(ROOT, 'deploy', 'grafana', 'chaingate.json'), 'utf8'))
    const exprs: string[] = dashboard.panels.flatMap((p: any) => p.targets.map((t: any) => t.expr))
    expect(exprs.length).toBeGreaterThan(15)
    for (const expr of exprs) {
      const names = [...expr.matchAll(/\b((?:chaingate|process|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1]!)
      expect(names.length, expr).toBeGreaterThan(0)
      for (const name of names)
        expect(types.has(name.replace(/_(bucket|sum|count)$/, '')) || types.has(name), name).toBe(true)
      const q = expr.replaceAll('$__rate_interval', '1m').replaceAll('$network', '.*')
      const r = await query(q)
      expect(r.status, `${q}: ${r.error}`).toBe('success')
    }
  })

  it('label cardinality is bounded: no key, account or client labels', async () => {
    const exposed = await (
      await request(`${s.url}/metrics`, { headers: { authorization: `Bearer ${OPS_TOKEN}` } })
    ).body.text()
    const labels = new Set(
      [...exposed.matchAll(/^chaingate_\w+\{([^}]*)\}/gm)].flatMap((m) =>
        [...m[1]!.matchAll(/(\w+)="/g)].map((l) => l[1]),
      ),
    )
    expect([...labels].sort()).toEqual(expect.arrayContaining(['method', 'network', 'outcome', 'upstream']))
    for (const l of labels)
      expect([
        'kind',
        'le',
        'method',
        'method_class',
        'network',
        'outcome',
        'reason',
        'result',
        'rule',
        'source',
        'state',
        'tier',
        'upstream',
        'version',
      ]).toContain(l)
    expect(exposed).not.toContain(s.key.key)
    expect(exposed).not.toContain(s.account.id)
  })
})
