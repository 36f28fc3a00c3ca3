/**
 * `node --import tsx bench/upstreams.bench.ts`: the upstream pool under faults (docs/upstreams.md, "Measured").
 * Two fake nodes (bench/fault-nodes.ts, own process) behind chaingate (bench/run-chaingate.ts, own process, all
 * layers on, default upstream settings unless a scenario says otherwise); this process is the load: BENCH_CONNECTIONS
 * closed loops sending eth_getBalance for a different address each time (nothing cached, nothing shared in flight).
 *
 *   failover  node 0 killed mid-run: failed reads (target 0) and time until throughput is back to 90 % of before
 *   hanging   node 0 accepts and never answers: share of client time spent waiting on it (target < 5 %), p99
 *   hedging   node 0 answers 200 ms late on 10 % of its calls: p99 with hedging (default) and without
 *
 * Settings (environment): BENCH_CONNECTIONS (16), BENCH_SECONDS per phase (6), BENCH_SCENARIOS
 * (failover,hanging,hedging).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { createInterface, type Interface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { Pool } from 'undici'

const here = dirname(fileURLToPath(import.meta.url))
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6)
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'failover,hanging,hedging').split(',').map((s) => s.trim())

interface Child {
  proc: ChildProcess
  lines: Interface
  next(): Promise<string>
}
function child(args: string[], env: Record<string, string> = {}): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: join(here, '..'),
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  })
  const lines = createInterface({ input: proc.stdout! })
  const queue: string[] = []
  const waiting: ((l: string) => void)[] = []
  lines.on('line', (l) => (waiting.length > 0 ? waiting.shift()!(l) : queue.push(l)))
  return {
    proc,
    lines,
    next: () => (queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise((r) => waiting.push(r))),
  }
}
const stop = (c: Child) =>
  new Promise<void>((r) => (c.proc.exitCode !== null ? r() : (c.proc.once('exit', () => r()), c.proc.stdin!.end())))

async function startNodes(): Promise<{ urls: string[]; command(line: string): Promise<void>; stop(): Promise<void> }> {
  const c = child([join(here, 'fault-nodes.ts'), '2'])
  const { urls } = JSON.parse(await c.next()) as { urls: string[] }
  return {
    urls,
    async command(line) {
      c.proc.stdin!.write(`${line}\n`)
      await c.next()
    },
    stop: () => stop(c),
  }
}

async function startGateway(
  urls: string[],
  policy: Record<string, unknown> = {},
): Promise<{ url: string; stop(): Promise<void> }> {
  const config = {
    networks: [{ name: 'bench', chainId: 31337, upstreams: urls.map((url) => ({ url })), upstreamPolicy: policy }],
  }
  const c = child([join(here, 'run-chaingate.ts'), urls[0]!], {
    BENCH_CHAINGATE_CONFIG: JSON.stringify(config),
    BENCH_NO_LOG: '1',
  })
  const { url } = JSON.parse(await c.next()) as { url: string }
  return { url, stop: () => stop(c) }
}

interface Sample {
  /** ms since the run started, at the answer. */
  at: number
  ms: number
  ok: boolean
}

let addressCounter = 0
/** Closed loops for `seconds`; `during` runs alongside (to inject a fault mid-run). */
async function drive(
  endpoint: string,
  seconds: number,
  during?: (startedAt: number) => Promise<void>,
): Promise<Sample[]> {
  const u = new URL(endpoint)
  const pool = new Pool(u.origin, { connections: CONNECTIONS })
  const samples: Sample[] = []
  const t0 = performance.now()
  const end = t0 + seconds * 1000
  const loop = async () => {
    while (performance.now() < end) {
      const address = `0x${(addressCounter++).toString(16).padStart(40, '0')}`
      const body = `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["${address}","latest"]}`
      const s = performance.now()
      let ok = false
      try {
        const res = await pool.request({
          method: 'POST',
          path: u.pathname,
          headers: { 'content-type': 'application/json' },
          body,
        })
        const text = await res.body.text()
        ok = res.statusCode === 200 && !text.includes('"error"')
      } catch {
        ok = false
      }
      const now = performance.now()
      samples.push({ at: now - t0, ms: now - s, ok })
    }
  }
  await Promise.all([...Array.from({ length: CONNECTIONS }, loop), during?.(t0)])
  await pool.close()
  return samples
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))]!
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
const f1 = (n: number) => n.toFixed(1)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function failover() {
  const nodes = await startNodes()
  const gw = await startGateway(nodes.urls)
  try {
    await drive(gw.url, 1) // warm-up
    const killAt = (SECONDS * 1000) / 3
    const samples = await drive(gw.url, SECONDS, async () => {
      await sleep(killAt)
      await nodes.command('kill 0')
    })
    const bucketMs = 250
    const buckets = new Map<number, number>()
    for (const s of samples)
      if (s.ok) buckets.set(Math.floor(s.at / bucketMs), (buckets.get(Math.floor(s.at / bucketMs)) ?? 0) + 1)
    const before = mean([...buckets].filter(([b]) => (b + 1) * bucketMs <= killAt && b > 0).map(([, n]) => n))
    const last = Math.floor((SECONDS * 1000) / bucketMs) - 1
    let back: number | undefined
    for (let b = Math.floor(killAt / bucketMs); b < last; b++)
      if ((buckets.get(b) ?? 0) >= 0.9 * before) {
        back = Math.max(0, Math.round(b * bucketMs - killAt))
        break
      }
    const failed = samples.filter((s) => !s.ok).length
    console.log(`failover: one of two nodes killed at ${(killAt / 1000).toFixed(1)} s, ${samples.length} reads`)
    console.log(`  failed reads: ${failed} (target 0)`)
    console.log(
      `  throughput before: ${f1((before * 1000) / bucketMs)} req/s; back to >= 90 % after ${
        back === undefined ? 'never (in this run)' : `${back} ms (250 ms buckets)`
      }`,
    )
    console.log(
      `  p99 after the kill: ${f1(
        quantile(
          samples.filter((s) => s.at > killAt).map((s) => s.ms),
          0.99,
        ),
      )} ms`,
    )
  } finally {
    await gw.stop()
    await nodes.stop()
  }
}

async function hanging() {
  const nodes = await startNodes()
  const gw = await startGateway(nodes.urls)
  try {
    await drive(gw.url, 1)
    const base = await drive(gw.url, SECONDS)
    await nodes.command('hang 0')
    const hung = await drive(gw.url, SECONDS)
    const baseMean = mean(base.map((s) => s.ms))
    const hungMean = mean(hung.map((s) => s.ms))
    // Client time spent in calls that were held up (>= 100 ms: 20x a healthy call here), as a share of all client
    // time: the outside fault run's measure (calls stuck on the node). The mean's excess over the healthy phase is
    // shown too, but on a shared machine it moves with the load as much as with the fault.
    const heldShare = (xs: Sample[]) =>
      xs.filter((s) => s.ms >= 100).reduce((a, s) => a + s.ms, 0) / xs.reduce((a, s) => a + s.ms, 0)
    console.log(`hanging: one of two nodes accepts and never answers (default settings, upstream timeout 30 s)`)
    console.log(
      `  both healthy: ${base.length} reads, mean ${f1(baseMean)} ms, p99 ${f1(
        quantile(
          base.map((s) => s.ms),
          0.99,
        ),
      )} ms, time in calls >= 100 ms ${(heldShare(base) * 100).toFixed(2)} %`,
    )
    console.log(
      `  one hanging:  ${hung.length} reads, mean ${f1(hungMean)} ms, p99 ${f1(
        quantile(
          hung.map((s) => s.ms),
          0.99,
        ),
      )} ms, failed ${hung.filter((s) => !s.ok).length}, max ${f1(Math.max(...hung.map((s) => s.ms)))} ms`,
    )
    console.log(
      `  share of client time spent waiting (calls >= 100 ms): ${(heldShare(hung) * 100).toFixed(2)} % ` +
        `(target < 5 %); mean excess over healthy: ${(Math.max(0, (hungMean - baseMean) / hungMean) * 100).toFixed(
          1,
        )} %`,
    )
  } finally {
    await gw.stop()
    await nodes.stop()
  }
}

async function hedging() {
  const results: string[] = []
  for (const enabled of [true, false]) {
    const nodes = await startNodes()
    const gw = await startGateway(nodes.urls, { hedge: { enabled } })
    try {
      await drive(gw.url, 1)
      await nodes.command('slow 0 200 0.1')
      const samples = await drive(gw.url, SECONDS)
      const ms = samples.map((s) => s.ms)
      results.push(
        `  hedging ${enabled ? 'on ' : 'off'}: ${samples.length} reads, p50 ${f1(quantile(ms, 0.5))} ms, p99 ` +
          `${f1(quantile(ms, 0.99))} ms, p99.9 ${f1(quantile(ms, 0.999))} ms, failed ` +
          `${samples.filter((s) => !s.ok).length}`,
      )
    } finally {
      await gw.stop()
      await nodes.stop()
    }
  }
  console.log('hedging: node 0 of two answers 200 ms late on 10 % of its calls')
  for (const r of results) console.log(r)
}

console.log(`upstreams bench: ${CONNECTIONS} connections, ${SECONDS} s per phase`)
if (SCENARIOS.includes('failover')) await failover()
if (SCENARIOS.includes('hanging')) await hanging()
if (SCENARIOS.includes('hedging')) await hedging()
