/**
 * `npm run bench:solana-fanout` (part of `npm run bench`): issue 27's Solana fan-out case, built as the EVM one
 * (bench/fanout.bench.ts): one slot notification to BENCH_SUBSCRIBERS WebSocket clients, each subscribed with
 * `slotSubscribe`, in BENCH_CLIENT_PROCS processes of their own (bench/fanout-clients.ts). The node is the embedded
 * Solana devnet (LiteSVM, src/upstreams/devnet/solana/), whose slots advance on its clock (BENCH_SLOT_MS apart, 1,000
 * by default so that one slot's fan-out is over before the next); chaingate runs as in production
 * (bench/run-chaingate.ts: every layer, logging on) with one `family: solana` network, the devnet its upstream.
 *
 * A slot cannot be made on demand as anvil mines a block, so its start is when an observer in this process,
 * subscribed straight to the devnet, gets the slot's notification (the devnet writes it to the observer and to the
 * gateway in the same loop). For each of BENCH_SLOTS slots it measures, from there, when every subscriber had it
 * (p50, p99 and the last across subscribers), and the fan-out process's CPU from there until the last arrival, per
 * delivery. The reference is bench/minimal-fanout.ts in its `slot` mode (ws writing the same notification bytes to
 * every client in one loop, nothing else), in the same run; the issue's target: the last subscriber, median over the
 * slots, within 1.25× the reference's.
 *
 * With two or more cores the fan-out process (chaingate or the reference) is pinned to core 0 and the devnet, the
 * clients and this process to the others (taskset). BENCH_ROUNDS (1) runs reference and chaingate that many times,
 * the order alternating. BENCH_CPU_PROF=<dir>: a CPU profile of chaingate there (node --cpu-prof).
 */
import { execFileSync } from 'node:child_process'
import { availableParallelism, loadavg } from 'node:os'
import { createInterface } from 'node:readline'
import WebSocket from 'ws'
import { startSolanaDevnet } from '../src/upstreams/devnet/solana/devnet.ts'
import { cpuSeconds, envInt, spawnTarget, stopTargets, type Target } from './support.ts'

const SUBSCRIBERS = Math.max(1, envInt('BENCH_SUBSCRIBERS', 5000))
const SLOTS = Math.max(1, envInt('BENCH_SLOTS', 10))
const PROCS = Math.max(1, Math.min(SUBSCRIBERS, envInt('BENCH_CLIENT_PROCS', 2)))
const SLOT_MS = Math.max(50, envInt('BENCH_SLOT_MS', 1000))
const ROUNDS = Math.max(1, envInt('BENCH_ROUNDS', 1))
/** A slot not at every subscriber this long after the observer had it counts as missed. */
const MISSED_MS = Math.max(5_000, 10 * SLOT_MS)
const cores = availableParallelism()
const pin = (cpu: string) => (cores >= 2 ? ['taskset', '-c', cpu] : undefined)
const OTHERS = cores >= 2 ? `1-${cores - 1}` : '0'

const now = () => performance.timeOrigin + performance.now()
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

const devnet = await startSolanaDevnet({ port: 0, slotMs: SLOT_MS })
if (cores >= 2) {
  execFileSync('taskset', ['-a', '-cp', OTHERS, String(devnet.pid)], { stdio: 'ignore' })
  execFileSync('taskset', ['-cp', OTHERS, String(process.pid)], { stdio: 'ignore' })
}

/** The devnet's slots as they reach a subscriber of its own: each slot's start, and the next slot to come. */
const observed = new Map<number, number>()
let nextSlot: ((slot: number) => void) | undefined
const observer = new WebSocket(devnet.wsUrl)
await new Promise((r, j) => observer.once('open', r).once('error', j))
observer.on('message', (data) => {
  const t = now()
  const m = JSON.parse(data.toString()) as { method?: string; params?: { result: { slot: number } } }
  if (m.method !== 'slotNotification') return
  const slot = m.params!.result.slot
  observed.set(slot, t)
  nextSlot?.(slot)
})
observer.send('{"jsonrpc":"2.0","id":1,"method":"slotSubscribe"}')
const slotAfter = () => new Promise<number>((r) => (nextSlot = r))

interface Clients {
  target: Target
  /** Resolves with every socket's arrival time of slot `n`. */
  wait(n: number): Promise<number[]>
}

async function clients(wsUrl: string, count: number): Promise<Clients> {
  const target = await spawnTarget('fanout clients', 'fanout-clients.ts', [wsUrl, String(count), 'slot'], {
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

interface Outcome {
  p50: number
  p99: number
  last: number[]
  missed: number
  /** The fan-out process's CPU (user + system) from each slot's start to its last arrival, per delivery. */
  cpuUsPerDelivery: number
  /** The client processes' CPU time per notification they received (on the other cores). */
  clientCpuUs: number
}

async function scenario(which: 'reference' | 'chaingate'): Promise<Outcome> {
  const networks = [{ name: 'bench', family: 'solana', upstreams: [{ url: devnet.url, wsUrl: devnet.wsUrl }] }]
  const prof = process.env.BENCH_CPU_PROF
  const target =
    which === 'reference'
      ? await spawnTarget('minimal fan-out', 'minimal-fanout.ts', [devnet.wsUrl, 'slot'], { prefix: pin('0') })
      : await spawnTarget('chaingate', 'run-chaingate.ts', [devnet.url], {
          prefix: pin('0'),
          execArgv: prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : [],
          env: { BENCH_CHAINGATE_CONFIG: JSON.stringify({ networks }) },
        })
  const wsUrl = target.info.url.replace(/^http/, 'ws').replace('/v3/', '/ws/v3/')
  const procs: Clients[] = []
  for (let i = 0; i < PROCS; i++)
    procs.push(await clients(wsUrl, Math.floor(SUBSCRIBERS / PROCS) + (i < SUBSCRIBERS % PROCS ? 1 : 0)))
  const pid = target.process.pid!
  const clientCpu = () => procs.reduce((t, p) => t + cpuSeconds(p.target.process.pid!), 0)

  const deliveries: number[] = []
  const last: number[] = []
  let cpu = 0
  let missed = 0
  let clientStart = 0
  // One slot first (not counted): connections and code paths warm.
  for (let s = -1; s < SLOTS; s++) {
    if (s === 0) clientStart = clientCpu()
    const n = await slotAfter()
    const cpuAtStart = cpuSeconds(pid)
    const t0 = observed.get(n)!
    const timeout = new Promise<undefined>((r) => setTimeout(() => r(undefined), MISSED_MS).unref())
    const times = await Promise.race([Promise.all(procs.map((p) => p.wait(n))), timeout])
    const cpuAtEnd = cpuSeconds(pid)
    if (s < 0) continue
    if (times === undefined) {
      missed++
      continue
    }
    const ms = times.flat().map((t) => t - t0)
    deliveries.push(...ms)
    last.push(Math.max(...ms))
    cpu += cpuAtEnd - cpuAtStart
  }
  const clientUsed = clientCpu() - clientStart
  for (const p of procs) p.target.process.stdin!.end()
  await Promise.all(procs.map((p) => new Promise((r) => p.target.process.once('exit', r))))
  const exited = new Promise((r) => target.process.once('exit', r))
  target.process.stdin!.end()
  await exited
  deliveries.sort((a, b) => a - b)
  return {
    p50: quantile(deliveries, 0.5),
    p99: quantile(deliveries, 0.99),
    last: last.sort((a, b) => a - b),
    missed,
    cpuUsPerDelivery: (cpu * 1e6) / deliveries.length,
    clientCpuUs: (clientUsed * 1e6) / deliveries.length,
  }
}

const range = (xs: number[]) => `${xs[0]!.toFixed(0)}–${xs[xs.length - 1]!.toFixed(0)}`
const row = (name: string, o: Outcome) =>
  `| ${name} | ${o.p50.toFixed(1)} ms | ${o.p99.toFixed(1)} ms | ` +
  `${quantile(o.last, 0.5).toFixed(1)} ms (${range(o.last)}) | ${o.missed} | ${o.cpuUsPerDelivery.toFixed(1)} µs | ` +
  `${o.clientCpuUs.toFixed(1)} µs |`

try {
  const results: [string, 'reference' | 'chaingate', Outcome][] = []
  const startLoad = loadavg()[0]!.toFixed(2)
  for (let round = 0; round < ROUNDS; round++) {
    const order: ('reference' | 'chaingate')[] =
      round % 2 === 0 ? ['reference', 'chaingate'] : ['chaingate', 'reference']
    for (const which of order) {
      const name = which === 'reference' ? 'minimal fan-out (reference)' : 'chaingate'
      results.push([`${name}${ROUNDS > 1 ? `, round ${round + 1}` : ''}`, which, await scenario(which)])
    }
  }
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
  console.log(
    `\n${SUBSCRIBERS} slotSubscribe subscribers in ${PROCS} client processes, ${SLOTS} slots ${SLOT_MS} ms apart ` +
      `per run; ${cores} cores (fan-out process pinned to core 0: ${cores >= 2}); load average ${startLoad} at the ` +
      `start, ${load} at the end\n`,
  )
  console.log(
    '| | slot → subscriber p50 | p99 | slot → last subscriber, median (range) | missed slots | CPU per delivery | ' +
      'client CPU |',
  )
  console.log('|---|---|---|---|---|---|---|')
  for (const [name, , o] of results) console.log(row(name, o))
  for (let round = 0; round < ROUNDS; round++) {
    const inRound = results.slice(2 * round, 2 * round + 2)
    const ref = inRound.find(([, w]) => w === 'reference')![2]
    const ours = inRound.find(([, w]) => w === 'chaingate')![2]
    console.log(
      `\n${ROUNDS > 1 ? `round ${round + 1}: ` : ''}chaingate / reference: last subscriber ` +
        `${(quantile(ours.last, 0.5) / quantile(ref.last, 0.5)).toFixed(2)}× (target ≤ 1.25), CPU per delivery ` +
        `${(ours.cpuUsPerDelivery / ref.cpuUsPerDelivery).toFixed(2)}×`,
    )
  }
  console.log(
    '\n(a slot starts when an observer subscribed straight to the devnet gets its notification; CPU per delivery: of ' +
      "the fan-out process from each slot's start to its last arrival; client CPU: of the client processes per " +
      'notification received)',
  )
} finally {
  observer.terminate()
  await stopTargets()
  await devnet.stop()
}
process.exit(0)
