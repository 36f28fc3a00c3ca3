/**
 * `npm run bench:fanout`: one block to many WebSocket subscribers (docs/subscriptions.md, "Fan-out").
 * A real anvil; chaingate as in production (bench/run-chaingate.ts: every layer, logging on) with the anvil as its
 * upstream; BENCH_SUBSCRIBERS WebSocket clients subscribed to newHeads, in BENCH_CLIENT_PROCS processes of their own
 * (bench/fanout-clients.ts). For each of BENCH_BLOCKS blocks mined with evm_mine it measures, from the mine call:
 * when every subscriber had the block (p50, p99 and last across subscribers), and meanwhile the latency of an HTTP
 * eth_chainId sent every BENCH_PROBE_MS to the same gateway (max and p99: how long a call waits behind the fan-out).
 * With two or more cores, chaingate is pinned to core 0 and anvil, the clients and the probe to the others (taskset).
 * The same scenario runs first against bench/minimal-fanout.ts (the reference: ws writing one head to every client
 * in one loop, nothing else), so chaingate's figures come with the floor of this machine in the same run.
 *
 * Before/after in one run: BENCH_FANOUT_BEFORE=<a checkout of an older commit> (with node_modules) runs the same
 * scenario against that checkout's bench/run-chaingate.ts first, e.g.
 *   git worktree add /tmp/before main && ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   BENCH_FANOUT_BEFORE=/tmp/before npm run bench:fanout
 *
 * BENCH_FANOUT_WORKERS=N: chaingate runs as `chaingate start --workers N` (Redis at 127.0.0.1:6379, not pinned) and
 * the connections each worker holds are printed; CPU per delivery sums the workers.
 *
 * Settings (environment): BENCH_SUBSCRIBERS (5000; 10000 needs `ulimit -n` ≥ 11000 for the gateway), BENCH_BLOCKS
 * (10), BENCH_CLIENT_PROCS (2), BENCH_PROBE_MS (2); BENCH_CPU_PROF=<dir>: a CPU profile of chaingate (the current
 * checkout) there (node --cpu-prof).
 */
import { availableParallelism, loadavg } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { Agent, request } from 'undici'
import { startAnvil } from '../src/upstreams/devnet/anvil.ts'
import { connectionsPerProcess, type Gateway, startWorkers } from './fanout-workers.ts'
import { cpuSeconds, envInt, rpcResult, spawnTarget, stopTargets, type Target } from './support.ts'

const here = dirname(fileURLToPath(import.meta.url))
const SUBSCRIBERS = Math.max(1, envInt('BENCH_SUBSCRIBERS', 5000))
const BLOCKS = Math.max(1, envInt('BENCH_BLOCKS', 10))
const PROCS = Math.max(1, Math.min(SUBSCRIBERS, envInt('BENCH_CLIENT_PROCS', 2)))
const PROBE_MS = Math.max(1, envInt('BENCH_PROBE_MS', 2))
const BEFORE = process.env.BENCH_FANOUT_BEFORE
const WORKERS = envInt('BENCH_FANOUT_WORKERS', 0)
const cores = availableParallelism()
const pin = (cpu: string) => (cores >= 2 ? ['taskset', '-c', cpu] : undefined)
const OTHERS = cores >= 2 ? `1-${cores - 1}` : '0'

const now = () => performance.timeOrigin + performance.now()
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

const anvil = await startAnvil({ chainId: 31337, port: 0, blockTimeSeconds: 0 })
if (cores >= 2) {
  const { execFileSync } = await import('node:child_process')
  execFileSync('taskset', ['-a', '-cp', OTHERS, String(anvil.pid)], { stdio: 'ignore' })
  execFileSync('taskset', ['-cp', OTHERS, String(process.pid)], { stdio: 'ignore' })
}

interface Clients {
  target: Target
  /** Resolves with every socket's arrival time of block `n`. */
  wait(n: number): Promise<number[]>
}

async function clients(wsUrl: string, count: number): Promise<Clients> {
  const target = await spawnTarget('fanout clients', 'fanout-clients.ts', [wsUrl, String(count)], {
    prefix: pin(OTHERS),
    timeoutMs: 300_000,
  })
  const replies = new Map<number, (times: number[]) => void>()
  createInterface({ input: target.process.stdout! }).on('line', (line) => {
    const { n, times } = JSON.parse(line) as { n: number; times: number[] }
    replies.get(n)?.(times)
  })
  return {
    target,
    wait: (n) =>
      new Promise((resolve) => {
        replies.set(n, resolve)
        target.process.stdin!.write(`${JSON.stringify({ wait: n })}\n`)
      }),
  }
}

/** eth_chainId every PROBE_MS until `stop` resolves; each call's latency. */
async function probe(url: string, agent: Agent, stop: Promise<unknown>): Promise<number[]> {
  let done = false
  void stop.then(() => (done = true))
  const body = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'
  const out: number[] = []
  while (!done) {
    const t = performance.now()
    const r = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      dispatcher: agent,
    })
    await r.body.text()
    out.push(performance.now() - t)
    await new Promise((r) => setTimeout(r, PROBE_MS))
  }
  return out
}

interface Outcome {
  p50: number
  p99: number
  last: number[]
  probeMax: number[]
  probeP99: number
  idleProbeMax: number
  probes: number
  /** chaingate's CPU time (user + system) over the measured blocks less the probes', per delivered notification. */
  cpuUsPerDelivery: number
  /** The client processes' CPU time per notification they received (on the other cores: what they cost there). */
  clientCpuUs: number
}

const NETWORKS = [{ name: 'bench', chainId: 31337, upstreams: [{ url: anvil.url, wsUrl: anvil.wsUrl }] }]

/**
 * `checkout`: the repository whose chaingate runs (this one, or BENCH_FANOUT_BEFORE); `reference`: the minimal
 * fan-out (bench/minimal-fanout.ts) instead, pinned the same way.
 */
async function startGateway(checkout: string | 'reference', execArgv: string[]): Promise<Gateway> {
  if (WORKERS > 0 && checkout !== 'reference') return startWorkers(checkout, WORKERS, NETWORKS)
  const target =
    checkout === 'reference'
      ? await spawnTarget<{ url: string }>('minimal fan-out', 'minimal-fanout.ts', [anvil.wsUrl], { prefix: pin('0') })
      : await spawnTarget<{ url: string }>(
          'chaingate',
          relative(here, join(checkout, 'bench', 'run-chaingate.ts')),
          [anvil.url],
          { prefix: pin('0'), execArgv, env: { BENCH_CHAINGATE_CONFIG: JSON.stringify({ networks: NETWORKS }) } },
        )
  return {
    url: target.info.url,
    pids: () => [target.process.pid!],
    stop: async () => {
      const exited = new Promise((r) => target.process.once('exit', r))
      target.process.stdin!.end()
      await exited
    },
  }
}

async function scenario(checkout: string | 'reference', execArgv: string[] = []): Promise<Outcome> {
  const gateway = await startGateway(checkout, execArgv)
  const httpUrl = gateway.url
  const wsUrl = httpUrl.replace(/^http/, 'ws').replace('/v3/', '/ws/v3/')
  const procs: Clients[] = []
  for (let i = 0; i < PROCS; i++)
    procs.push(await clients(wsUrl, Math.floor(SUBSCRIBERS / PROCS) + (i < SUBSCRIBERS % PROCS ? 1 : 0)))
  const pids = gateway.pids()
  const gatewayCpu = () => pids.reduce((t, pid) => t + cpuSeconds(pid), 0)
  const clientCpu = () => procs.reduce((t, p) => t + cpuSeconds(p.target.process.pid!), 0)
  if (WORKERS > 0) console.log(`connections per worker: ${connectionsPerProcess(httpUrl).join(', ')}`)
  const agent = new Agent({ connections: 1, pipelining: 1 })
  // Probes alone for a second: their CPU each, taken out of the fan-out's below (more of them are served during a
  // fan-out that yields than during one that does not).
  const idleCpu = gatewayCpu()
  const idle = await probe(httpUrl, agent, new Promise((r) => setTimeout(r, 1000)))
  const cpuPerProbe = (gatewayCpu() - idleCpu) / idle.length

  const deliveries: number[] = []
  const last: number[] = []
  const probes: number[] = []
  const probeMax: number[] = []
  // One block first (not counted): connections and code paths warm.
  let cpuStart = 0
  let clientStart = 0
  for (let b = -1; b < BLOCKS; b++) {
    if (b === 0) {
      cpuStart = gatewayCpu()
      clientStart = clientCpu()
    }
    const n = Number(await rpcResult(anvil.url, 'eth_blockNumber', [])) + 1
    const t0 = now()
    const all = Promise.all(procs.map((p) => p.wait(n)))
    const probing = probe(httpUrl, agent, all)
    await rpcResult(anvil.url, 'evm_mine', [])
    const times = (await all).flat()
    const p = await probing
    if (b < 0) continue
    const ms = times.map((t) => t - t0)
    deliveries.push(...ms)
    last.push(Math.max(...ms))
    probes.push(...p)
    probeMax.push(Math.max(...p))
    await new Promise((r) => setTimeout(r, 50))
  }
  const cpu = gatewayCpu() - cpuStart - probes.length * cpuPerProbe
  const clientUsed = clientCpu() - clientStart
  await agent.close()
  for (const p of procs) p.target.process.stdin!.end()
  await Promise.all(procs.map((p) => new Promise((r) => p.target.process.once('exit', r))))
  await gateway.stop()
  deliveries.sort((a, b) => a - b)
  probes.sort((a, b) => a - b)
  return {
    p50: quantile(deliveries, 0.5),
    p99: quantile(deliveries, 0.99),
    last: last.sort((a, b) => a - b),
    probeMax: probeMax.sort((a, b) => a - b),
    probeP99: quantile(probes, 0.99),
    idleProbeMax: Math.max(...idle),
    probes: probes.length,
    cpuUsPerDelivery: (cpu * 1e6) / deliveries.length,
    clientCpuUs: (clientUsed * 1e6) / deliveries.length,
  }
}

const range = (xs: number[]) => `${xs[0]!.toFixed(0)}–${xs[xs.length - 1]!.toFixed(0)}`
const row = (name: string, o: Outcome) =>
  `| ${name} | ${o.p50.toFixed(1)} ms | ${o.p99.toFixed(1)} ms | ` +
  `${quantile(o.last, 0.5).toFixed(1)} ms (${range(o.last)}) | ` +
  `${quantile(o.probeMax, 0.5).toFixed(1)} ms (${range(o.probeMax)}) | ${o.probeP99.toFixed(1)} ms | ` +
  `${o.idleProbeMax.toFixed(1)} ms | ${o.cpuUsPerDelivery.toFixed(1)} µs | ${o.clientCpuUs.toFixed(1)} µs |`

try {
  const results: [string, Outcome][] = [['minimal fan-out (reference)', await scenario('reference')]]
  if (BEFORE) results.push(['before', await scenario(BEFORE)])
  const prof = process.env.BENCH_CPU_PROF
  results.push([
    BEFORE ? 'after' : 'chaingate',
    await scenario(join(here, '..'), prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : []),
  ])
  const mode = WORKERS > 0 ? `--workers ${WORKERS}, not pinned` : `chaingate pinned to core 0: ${cores >= 2}`
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
  console.log(
    `\n${SUBSCRIBERS} newHeads subscribers in ${PROCS} client processes, ${BLOCKS} blocks; ${cores} cores ` +
      `(${mode}); load average ${load}\n`,
  )
  console.log(
    '| | mine → subscriber p50 | p99 | mine → last subscriber, median (range) | ' +
      'HTTP probe max per block, median (range) | probe p99 | probe max idle | CPU per delivery | client CPU |',
  )
  console.log('|---|---|---|---|---|---|---|---|---|')
  for (const [name, o] of results) console.log(row(name, o))
  const ref = results[0]![1]
  const ours = results[results.length - 1]![1]
  console.log(
    `\nchaingate / reference: last subscriber ${(quantile(ours.last, 0.5) / quantile(ref.last, 0.5)).toFixed(2)}×, ` +
      `CPU per delivery ${(ours.cpuUsPerDelivery / ref.cpuUsPerDelivery).toFixed(2)}×`,
  )
  console.log(
    `\n(probe: eth_chainId every ${PROBE_MS} ms over one keep-alive connection while a block fans out; CPU per ` +
      'delivery: of the fan-out process over the measured blocks, less the probes (their CPU each measured alone); ' +
      'client CPU: of the client processes per notification received)',
  )
} finally {
  await stopTargets()
  await anvil.stop()
}
process.exit(0)
