/**
 * `node --import tsx bench/upstream-usage.bench.ts`: what recording a call's upstream usage adds per call
 * (src/usage/upstream-usage.ts), against the client usage ledger's record in the same run (the reference: both
 * run once per forwarded call in settle). In memory only: flushes are on a timer, off the call path.
 * Settings (environment): BENCH_CALLS (3,000,000), BENCH_ROUNDS (5).
 */
import { createUpstreamUsage } from '../src/usage/upstream-usage.ts'
import { createUsageLedger } from '../src/usage/ledger.ts'

const CALLS = Number(process.env.BENCH_CALLS ?? 3_000_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const methods = ['eth_call', 'eth_blockNumber', 'eth_getBalance', 'eth_getLogs']
const served = new Set(methods)
const upstreams = ['https://a.example', 'https://b.example']
const now = Date.now()

const usage = createUpstreamUsage({} as never, { flushMs: 1e9, onError: () => undefined, served })
const ledger = createUsageLedger({ write() {} }, 1e9, () => undefined, served)
const record = {
  accountId: 'acc',
  keyId: 'key',
  network: 'mainnet',
  method: 'eth_call',
  calls: 1,
  credits: 80,
  errors: 0,
}

const rows: string[] = []
for (let round = 0; round < ROUNDS; round++) {
  let t = performance.now()
  for (let i = 0; i < CALLS; i++)
    usage.record({
      network: 'mainnet',
      upstream: upstreams[i & 1]!,
      method: methods[i & 3]!,
      attempts: 1,
      source: undefined,
      credits: 80,
      failed: false,
      now,
    })
  const upstreamNs = ((performance.now() - t) * 1e6) / CALLS
  t = performance.now()
  for (let i = 0; i < CALLS; i++) {
    record.method = methods[i & 3]!
    ledger.record(record, now)
  }
  const ledgerNs = ((performance.now() - t) * 1e6) / CALLS
  rows.push(
    `| ${round + 1} | ${upstreamNs.toFixed(1)} | ${ledgerNs.toFixed(1)} | ${(upstreamNs / ledgerNs).toFixed(2)} |`,
  )
}
console.log(`\n${CALLS.toLocaleString('en-US')} calls per round\n`)
console.log('| round | upstream usage record, ns/call | usage ledger record, ns/call | ratio |')
console.log('|---|---|---|---|')
for (const r of rows) console.log(r)
process.exit(0)
