/**
 * Drives the request explorer's recorder and SQLite writer directly at a steady rate (no gateway), printing RSS,
 * V8 heap and the process's CPU per record each second:
 * `node --import tsx bench/request-explorer-writer.ts [rate] [seconds] [off]`.
 * With `off` the records are pushed but never written (the explorer's baseline). docs/benchmarks.md
 * ("Request explorer") has the figures.
 */
import { mkdtempSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { openDatabase } from '../src/db/database.ts'
import { createRequestRecorder } from '../src/usage/requests/recorder.ts'
import { requestWriterFor } from '../src/usage/requests/writers.ts'

const rate = Number(process.argv[2] ?? 7000)
const seconds = Number(process.argv[3] ?? 30)
const off = process.argv[4] === 'off'
const dir = mkdtempSync(join(tmpdir(), 'chaingate-reqlog-'))
const database = await openDatabase(join(dir, 'chaingate.db'))
const writer = requestWriterFor(database)
let written = 0
const timed = {
  write(batch: Parameters<typeof writer.write>[0]) {
    written += batch.count
    return off ? undefined : writer.write(batch)
  },
  // The recorder's stop releases the writer's thread through this, as in the app.
  close: async () => writer.close?.(),
}
const recorder = createRequestRecorder(timed, {
  flushMs: 1000,
  bufferRows: 100_000,
  clock: () => Date.now(),
  onError: (err) => console.error(err),
})
recorder.start()
const keys = Array.from({ length: 20 }, (_, i) => ({ id: `key${i}`, accountId: `acct${i % 5}` }))
const MiB = 1024 * 1024
let n = 0
const perTick = Math.round(rate / 100)
const tick = setInterval(() => {
  for (let i = 0; i < perTick; i++, n++) {
    const entry = keys[n % keys.length]!
    const ctx = { entry, network: { name: 'eth-mainnet' }, client: { remoteAddress: `10.0.${n % 250}.1` } }
    recorder.push(ctx, 'eth_getBalance', undefined, 80, { upstream: 'anvil' }, Date.now() - 2)
  }
}, 10)
const cpuAt = (): number => {
  const c = process.cpuUsage()
  return c.user + c.system
}
const cpu0 = cpuAt()
// The main thread's busy time (event loop utilization): what the gateway's calls would wait behind.
const elu0 = performance.eventLoopUtilization()
let lastCpu = cpu0
let lastN = 0
for (let s = 1; s <= seconds; s++) {
  await new Promise((r) => setTimeout(r, 1000))
  const m = process.memoryUsage()
  const cpu = cpuAt()
  const perRow = written > lastN ? (cpu - lastCpu) / (written - lastN) : 0
  console.log(
    `${s}s rss ${(m.rss / MiB).toFixed(0)} MiB heap ${(m.heapUsed / MiB).toFixed(0)} MiB` +
      ` ext ${(m.external / MiB).toFixed(1)} MiB` +
      ` written ${written} process CPU ${perRow.toFixed(2)} µs/record`,
  )
  lastCpu = cpu
  lastN = written
}
clearInterval(tick)
await recorder.stop()
const m = process.memoryUsage()
const loopUs = performance.eventLoopUtilization(elu0).active * 1000
console.log(
  `total ${written} records, process CPU ${((cpuAt() - cpu0) / Math.max(1, written)).toFixed(2)} µs/record,` +
    ` event loop busy ${(loopUs / Math.max(1, written)).toFixed(2)} µs/record,` +
    ` rss ${(m.rss / MiB).toFixed(0)} MiB,` +
    ` WAL ${(statSync(join(dir, 'chaingate.db-wal')).size / MiB).toFixed(1)} MiB,` +
    ` load average ${(await import('node:os')).loadavg()[0]!.toFixed(1)}`,
)
await database.close()
