/**
 * `npm run bench`: what chaingate costs on top of a bare forwarding proxy (issue 2, "Performance").
 *
 * One anvil node, three targets in front of it, measured one after another with autocannon:
 *   (a) anvil directly,
 *   (b) bench/minimal-proxy.ts — node:http + undici Pool, nothing else,
 *   (c) chaingate (bench/run-chaingate.ts) — key check, credits, limits, usage ledger, metrics, one log line per
 * request.
 * (b) and (c) each run in their own process; the load generator (this process) shares an event loop with neither.
 * Targets alternate order between rounds and the best round is reported, because a 2-core machine is noisy.
 *
 * Settings (environment): BENCH_CONNECTIONS (32), BENCH_DURATION seconds (7), BENCH_WARMUP seconds (2),
 * BENCH_ROUNDS (2), BENCH_TARGETS (a,b,c), BENCH_METHODS (comma-separated case names, default all),
 * BENCH_UPSTREAMS (2: chaingate's pool lists the node that many times under distinct URLs, so selection, retries,
 * hedging, heads, the cache and dedup all run as with several upstreams; 1: a single-node pool),
 * BENCH_LOG_FILE (chaingate's log lines; default /dev/null), BENCH_CPU_PROF (a folder: the proxy and chaingate run
 * with `node --cpu-prof` and write their profiles there).
 * See docs/benchmarks.md.
 */
import { execFileSync } from 'node:child_process'
import { availableParallelism, loadavg } from 'node:os'
import { join } from 'node:path'
import autocannon, { type Result } from 'autocannon'
import { startAnvil, type RunningAnvil } from '../src/upstreams/devnet/anvil.ts'
import {
  alignColumns,
  cpuTimes,
  envInt,
  fmt,
  loadSettings,
  pct,
  post,
  rpcBody,
  rpcResult,
  seedBlockOne,
  spawnTarget,
  stopTargets,
} from './support.ts'

const {
  connections: CONNECTIONS,
  duration: DURATION,
  warmup: WARMUP,
  rounds: ROUNDS,
} = loadSettings({ connections: 32, duration: 7 })
const LOG_FILE = process.env.BENCH_LOG_FILE || '/dev/null'
const CPU_PROF = process.env.BENCH_CPU_PROF
/** Extra node flags for (b) and (c), e.g. `--perf-basic-prof` to read their JavaScript frames with `perf`. */
const NODE_ARGS = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean)
/**
 * BENCH_PIN=1: the measured target runs alone on CPU 1, this process (autocannon) and anvil on CPU 0, with
 * `taskset`. Steadier figures on a 2-core machine (the scheduler no longer moves the three around), at the cost of
 * giving each target exactly one core.
 */
const PIN = process.env.BENCH_PIN === '1'
const CPUS = availableParallelism()
/**
 * Transactions put into block 1, so `["latest", false]` carries a realistic body (50 hashes, ~5 KB). A full
 * block of them (`["0x1", true]`) is not a case: anvil itself manages ~100 req/s on it, so it measures anvil only.
 */
const BLOCK_TXS = 50

interface Case {
  name: string
  label: string
  body: string
  /** A new body for every request (autocannon setupRequest): nothing the cache or in-flight dedup could answer. */
  vary?: (n: number) => string
}
/** eth_getBalance of a different address on each request: the uncached path through every layer. */
const balanceOf = (n: number) =>
  rpcBody('eth_getBalance', [`0x${(0x10000000 + n).toString(16).padStart(40, '0')}`, 'latest'])
const ALL_CASES: Case[] = [
  { name: 'blockNumber', label: 'eth_blockNumber', body: rpcBody('eth_blockNumber', []) },
  {
    name: 'blockLatest',
    label: 'eth_getBlockByNumber ["latest",false]',
    body: rpcBody('eth_getBlockByNumber', ['latest', false]),
  },
  {
    name: 'genesisFull',
    label: 'eth_getBlockByNumber ["0x0",true]',
    body: rpcBody('eth_getBlockByNumber', ['0x0', true]),
  },
  { name: 'balanceUncached', label: 'eth_getBalance, new address each', body: balanceOf(0), vary: balanceOf },
]
const UPSTREAMS = Math.max(1, envInt('BENCH_UPSTREAMS', 2))
const wanted = process.env.BENCH_METHODS?.split(',')
  .map((s) => s.trim())
  .filter(Boolean)
const CASES = wanted ? ALL_CASES.filter((c) => wanted.includes(c.name)) : ALL_CASES
if (CASES.length === 0)
  throw new Error(`BENCH_METHODS matched no case; known: ${ALL_CASES.map((c) => c.name).join(', ')}`)

type TargetId = 'a' | 'b' | 'c'
const TARGET_NAMES: Record<TargetId, string> = { a: '(a) anvil', b: '(b) minimal proxy', c: '(c) chaingate' }
const TARGETS = (process.env.BENCH_TARGETS ?? 'a,b,c')
  .split(',')
  .map((s) => s.trim())
  .filter((s): s is TargetId => s in TARGET_NAMES)
if (TARGETS.length === 0) throw new Error('BENCH_TARGETS names no target (a, b, c)')

interface Measurement {
  rps: number
  p50: number
  p99: number
  /** CPU time the target process (all its threads) spent per answered request. */
  cpuUsPerRequest: number
  /** The part of it spent in the kernel (socket reads and writes). */
  systemUsPerRequest: number
  /** Cores the target and the load generator kept busy on average. */
  targetCpu: number
  loadCpu: number
  requests: number
  errors: number
  non2xx: number
  timeouts: number
}

/** Block 1 holds BLOCK_TXS transfers; automine stays on but nothing is sent afterwards, so "latest" stays block 1. */
async function seedChain(url: string): Promise<void> {
  await seedBlockOne(url, BLOCK_TXS)
  const block = (await rpcResult(url, 'eth_getBlockByNumber', ['0x1', false])) as { transactions: string[] }
  if (block.transactions.length !== BLOCK_TXS)
    throw new Error(`block 1 has ${block.transactions.length} transactions, expected ${BLOCK_TXS}`)
}

/**
 * Starts a target (bench/minimal-proxy.ts or bench/run-chaingate.ts) with this run's profiling, node flags and pinning.
 */
function startTarget(name: string, script: string, args: string[]) {
  const execArgv: string[] = []
  // one file per thread (tsx has a loader thread)
  if (CPU_PROF) execArgv.push('--cpu-prof', '--cpu-prof-dir', join(CPU_PROF, name))
  if (NODE_ARGS) execArgv.push(...NODE_ARGS)
  // Pinned: the target gets CPU 1 to itself; this process and anvil stay on CPU 0 (see PIN).
  return spawnTarget(name, script, args, { execArgv, prefix: PIN ? ['taskset', '-c', '1'] : undefined })
}

/** The three targets must give the same answer before their speeds are compared. */
async function checkTargets(urls: Record<TargetId, string>): Promise<Record<string, number>> {
  const sizes: Record<string, number> = {}
  for (const c of CASES) {
    const answers: Partial<Record<TargetId, string>> = {}
    for (const id of ['a', 'b', 'c'] as const) {
      const res = await post(urls[id], c.body)
      if (res.status !== 200)
        throw new Error(`${TARGET_NAMES[id]} answered HTTP ${res.status} to ${c.label}: ${res.text.slice(0, 300)}`)
      const parsed = JSON.parse(res.text) as { result?: unknown; error?: unknown }
      if (parsed.error !== undefined || parsed.result === undefined)
        throw new Error(`${TARGET_NAMES[id]} gave no result for ${c.label}: ${res.text.slice(0, 300)}`)
      if (id === 'c' && !(Number(res.headers['x-credits-charged']) > 0))
        throw new Error(`chaingate charged no credits for ${c.label}`)
      answers[id] = JSON.stringify(parsed.result)
      if (id === 'a') sizes[c.name] = Buffer.byteLength(res.text)
    }
    if (answers.b !== answers.a || answers.c !== answers.a) throw new Error(`targets disagree on ${c.label}`)
  }
  return sizes
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

async function load(url: string, c: Case, seconds: number, record: boolean, pid: number): Promise<Measurement> {
  let latencies = new Float64Array(1 << 16)
  let n = 0
  let sent = 0
  const vary = c.vary
  const instance = autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: c.body,
    ...(vary
      ? { requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, body: vary(sent++) }) }] }
      : {}),
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
  })
  // autocannon's own histogram has 1 ms resolution; keep the exact times.
  if (record)
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status < 200 || status >= 300) return
      if (n === latencies.length) {
        const grown = new Float64Array(latencies.length * 2)
        grown.set(latencies)
        latencies = grown
      }
      latencies[n++] = ms
    })
  const cpuBefore = cpuTimes(pid)
  const selfBefore = process.cpuUsage()
  const result: Result = await instance
  const cpuAfter = cpuTimes(pid)
  const cpuUser = cpuAfter.user - cpuBefore.user
  const cpuSystem = cpuAfter.system - cpuBefore.system
  const cpu = cpuUser + cpuSystem
  const self = process.cpuUsage(selfBefore)
  const sorted = latencies.subarray(0, n).sort()
  return {
    rps: result.requests.total / result.duration,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    cpuUsPerRequest: (cpu * 1e6) / result.requests.total,
    systemUsPerRequest: (cpuSystem * 1e6) / result.requests.total,
    targetCpu: cpu / result.duration,
    loadCpu: (self.user + self.system) / 1e6 / result.duration,
    requests: result.requests.total,
    errors: result.errors,
    non2xx: result.non2xx,
    timeouts: result.timeouts,
  }
}

function table(rows: string[][]): string {
  const { widths, cells } = alignColumns(rows, 2)
  const line = (r: string[]) => `| ${r.join(' | ')} |`
  const rule = `|${widths.map((w, i) => (i < 2 ? `-${'-'.repeat(w)}-` : `-${'-'.repeat(w)}:`)).join('|')}|`
  return [line(cells[0]!), rule, ...cells.slice(1).map(line)].join('\n')
}

async function main(): Promise<void> {
  const started = Date.now()
  const budgetMs = (CASES.length * TARGETS.length * ROUNDS * (DURATION + WARMUP) + 120) * 1000
  let anvil: RunningAnvil | undefined
  const cleanup = async () => {
    await stopTargets()
    await anvil?.stop()
  }
  const deadline = setTimeout(() => {
    console.error(`benchmark exceeded its time budget (${Math.round(budgetMs / 1000)} s), stopping`)
    void cleanup().finally(() => process.exit(1))
  }, budgetMs)
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      void cleanup().finally(() => process.exit(130))
    })

  try {
    if (PIN) {
      if (CPUS < 2) throw new Error('BENCH_PIN=1 needs at least 2 CPUs')
      // anvil, started next, inherits it
      execFileSync('taskset', ['-a', '-cp', '0', String(process.pid)], { stdio: 'ignore' })
    }
    anvil = await startAnvil({ chainId: 31337, port: 0, blockTimeSeconds: 0 })
    await seedChain(anvil.url)
    const [proxy, gateway] = await Promise.all([
      startTarget('minimal-proxy', 'minimal-proxy.ts', [anvil.url]),
      // Several upstreams: the same node under distinct URLs (anvil ignores the query), so every answer agrees.
      startTarget('chaingate', 'run-chaingate.ts', [
        Array.from({ length: UPSTREAMS }, (_, i) => (i === 0 ? anvil!.url : `${anvil!.url}/?upstream=${i + 1}`)).join(
          ',',
        ),
        LOG_FILE,
      ]),
    ])
    const urls: Record<TargetId, string> = { a: anvil.url, b: proxy.info.url, c: gateway.info.url }
    const pids: Record<TargetId, number> = { a: anvil.pid, b: proxy.process.pid!, c: gateway.process.pid! }
    const sizes = await checkTargets(urls)

    console.log(
      `chaingate benchmark: node ${process.version}, ${CPUS} CPUs${
        PIN ? ' (target pinned to CPU 1, load and anvil to CPU 0)' : ''
      }, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; ` +
        `chaingate with ${UPSTREAMS} upstream(s), ${CONNECTIONS} connections, pipelining 1, ${WARMUP} s warm-up + ` +
        `${DURATION} s per run, ${ROUNDS} round(s), best round reported`,
    )
    console.log(`chaingate logs to ${LOG_FILE}${CPU_PROF ? `; CPU profiles in ${CPU_PROF}` : ''}`)

    const runs = new Map<string, Measurement[]>()
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? TARGETS : [...TARGETS].reverse()
      for (const c of CASES) {
        for (const id of order) {
          if (WARMUP > 0) await load(urls[id], c, WARMUP, false, pids[id])
          const m = await load(urls[id], c, DURATION, true, pids[id])
          const key = `${id}|${c.name}`
          runs.set(key, [...(runs.get(key) ?? []), m])
          const bad = m.errors + m.non2xx + m.timeouts
          console.log(
            `  round ${round + 1} ${TARGET_NAMES[id].padEnd(18)} ${c.label.padEnd(38)} ${fmt(m.rps).padStart(7)} ` +
              `req/s  p50 ${fmt(m.p50, 2)} ms  p99 ${fmt(m.p99, 2)} ms` +
              `  target ${fmt(m.cpuUsPerRequest)} µs CPU/req, ${fmt(m.systemUsPerRequest)} of them kernel ` +
              `(${pct(m.targetCpu)} of a core), autocannon ${pct(m.loadCpu)}` +
              (bad > 0 ? `  !! ${m.errors} errors, ${m.non2xx} non-2xx, ${m.timeouts} timeouts` : ''),
          )
        }
      }
    }

    const best = (id: TargetId, c: Case) => runs.get(`${id}|${c.name}`)?.reduce((x, y) => (y.rps > x.rps ? y : x))
    const rows = [['target', 'method', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'c/b', 'c/a']]
    const verdicts: string[] = []
    let failures = 0
    for (const c of CASES) {
      const [a, b, g] = (['a', 'b', 'c'] as const).map((id) => best(id, c))
      for (const id of TARGETS) {
        const m = best(id, c)!
        const ratio = (x: Measurement | undefined) => (id === 'c' && x ? fmt(g!.rps / x.rps, 2) : '')
        rows.push([
          TARGET_NAMES[id],
          c.label,
          fmt(m.rps),
          fmt(m.p50, 2),
          fmt(m.p99, 2),
          fmt(m.cpuUsPerRequest),
          ratio(b),
          ratio(a),
        ])
      }
      if (b && g) {
        const cb = g.rps / b.rps
        verdicts.push(
          `${c.label} (answer ${fmt(sizes[c.name]!)} bytes): c/b = ${cb.toFixed(2)} ` +
            `${cb >= 0.9 ? 'meets' : 'MISSES'} the 0.9 target`,
        )
      }
      for (const id of TARGETS)
        failures += runs.get(`${id}|${c.name}`)!.reduce((sum, m) => sum + m.errors + m.non2xx + m.timeouts, 0)
    }
    console.log(`\n${table(rows)}\n`)
    for (const v of verdicts) console.log(v)
    if (failures > 0)
      console.log(`WARNING: ${failures} failed requests during the runs; the numbers above are not trustworthy`)
    console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`)
  } finally {
    clearTimeout(deadline)
    await cleanup()
  }
}

await main()
