/**
 * `node --import tsx bench/limits.bench.ts`: the cost of one admission + settlement in each limit store, in
 * process, same run (docs/scale-out.md). Less sensitive to a loaded machine than the HTTP benchmark: it measures
 * the store alone. 32 concurrent callers admit 80 credits and refund 0 or 80 (a free 5xx every tenth call).
 * Needs Redis (BENCH_REDIS_URL, default redis://127.0.0.1:6379). BENCH_CALLS (200000).
 */
import { randomBytes } from 'node:crypto'
import { createMemoryLimitStore, type KeyLimits, type LimitStore } from '../src/credits/limits/memory.ts'
import { createRedisLimitStore } from '../src/credits/limits/redis/store.ts'
import { connectRedis } from '../src/redis/connection.ts'

const CALLS = Number(process.env.BENCH_CALLS || 200_000)
const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379'
const limits: KeyLimits = {
  accountId: 'bench',
  keyId: 'bench-key',
  accountCreditsPerDay: 1e12,
  accountCreditsPerSecond: 1e8,
  keyCreditsPerDay: null,
  keyCreditsPerSecond: null,
}

async function run(store: LimitStore): Promise<{ nsPerCall: number; syncShare: number; cpuNsPerCall: number }> {
  let left = CALLS
  let sync = 0
  const worker = async () => {
    while (left-- > 0) {
      const now = Date.now()
      const admitted = store.admit(limits, 80, now)
      if (admitted instanceof Promise) {
        if ((await admitted) !== null) throw new Error('refused')
      } else {
        if (admitted !== null) throw new Error('refused')
        sync++
      }
      if (left % 10 === 0) store.adjust(limits.accountId, limits.keyId, -80, now)
      // Yield now and then, like a server between requests.
      if (left % 64 === 0) await new Promise((resolve) => setImmediate(resolve))
    }
  }
  const cpu = process.cpuUsage()
  const t0 = process.hrtime.bigint()
  await Promise.all(Array.from({ length: 32 }, worker))
  const ns = Number(process.hrtime.bigint() - t0)
  const used = process.cpuUsage(cpu)
  return { nsPerCall: ns / CALLS, syncShare: sync / CALLS, cpuNsPerCall: ((used.user + used.system) * 1000) / CALLS }
}

const conn = await connectRedis({
  url: REDIS_URL,
  prefix: `bench:limits:${randomBytes(4).toString('hex')}:`,
  commandTimeoutMs: 2000,
})
const stores: [string, () => LimitStore & { stop?: () => Promise<void> }][] = [
  ['memory (embedded default)', () => createMemoryLimitStore()],
  [
    'Redis, leases of 1000 (default)',
    () => createRedisLimitStore({ connection: conn, leaseCredits: 1000, leaseSyncMs: 1000, insuranceShare: 0.5 }),
  ],
  [
    'Redis, leases of 10000',
    () => createRedisLimitStore({ connection: conn, leaseCredits: 10_000, leaseSyncMs: 1000, insuranceShare: 0.5 }),
  ],
  [
    'Redis, per call (leaseCredits 0)',
    () => createRedisLimitStore({ connection: conn, leaseCredits: 0, leaseSyncMs: 1000, insuranceShare: 0.5 }),
  ],
]
console.log(
  `limit stores: ${CALLS} admissions (80 credits, every tenth refunded), 32 concurrent callers, node ` +
    `${process.version}`,
)
console.log('| store | µs per call (wall) | CPU µs per call | answered without a round trip |\n|---|---:|---:|---:|')
for (const [name, make] of stores) {
  const store = make()
  await run(store) // warm-up
  const r = await run(store)
  await store.stop?.()
  console.log(
    `| ${name} | ${(r.nsPerCall / 1000).toFixed(2)} | ${(r.cpuNsPerCall / 1000).toFixed(2)} | ` +
      `${Math.round(r.syncShare * 100)}% |`,
  )
}
const left = await conn.client.keys(`${conn.prefix}*`)
if (left.length) await conn.client.del(...left)
await conn.close()
