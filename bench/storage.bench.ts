/**
 * `node --import tsx bench/storage.bench.ts`: the usage ledger's cost per engine (docs/storage.md).
 *
 * - record(): the per-call hot path (in-memory aggregation), the same code whatever the engine;
 * - flush: writing R distinct rows (hour × key × network × method) in one transaction, SQLite (a file in a temp
 *   dir, WAL) vs PostgreSQL (a fresh schema, dropped after); each flush adds to rows already stored (upsert).
 * Same run, same machine: compare the ratios, not the absolute numbers.
 *
 * Settings (environment): BENCH_ROWS (comma-separated row counts, default 100,1000,10000), BENCH_REPEAT (5),
 * CHAINGATE_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test; PostgreSQL is skipped if absent).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { createUsageLedger } from '../src/usage/ledger.ts'
import { usageWriterFor } from '../src/usage/writers.ts'
import { openDatabase, type OpenedDatabase } from '../src/db/database.ts'
import { createPgTestSchema, services } from '../test/support/services.ts'

const ROWS = (process.env.BENCH_ROWS ?? '100,1000,10000').split(',').map(Number)
const REPEAT = Number(process.env.BENCH_REPEAT ?? 5)
const NOW = Date.now()
const METHODS = ['eth_call', 'eth_blockNumber', 'eth_getBalance', 'eth_chainId', 'eth_getLogs']

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

function recordRows(ledger: ReturnType<typeof createUsageLedger>, rows: number, callsPerRow = 1) {
  for (let c = 0; c < callsPerRow; c++)
    for (let i = 0; i < rows; i++)
      ledger.record(
        {
          accountId: `acc${i % 50}`,
          keyId: `key${Math.floor(i / METHODS.length)}`,
          network: 'mainnet',
          method: METHODS[i % METHODS.length]!,
          calls: 1,
          credits: 80,
          errors: 0,
        },
        NOW,
      )
}

async function flushMs(opened: OpenedDatabase, rows: number): Promise<number> {
  const ledger = createUsageLedger(usageWriterFor(opened), 60_000, (err) => {
    throw err
  })
  const times: number[] = []
  for (let r = 0; r < REPEAT; r++) {
    recordRows(ledger, rows)
    const t0 = performance.now()
    await ledger.flush()
    times.push(performance.now() - t0)
  }
  return median(times)
}

async function main() {
  // The hot path: one record() per call, rows already present (the common case within an hour).
  const sink = createUsageLedger({ write() {} }, 60_000, () => {})
  recordRows(sink, 1000)
  const calls = 2_000_000
  const t0 = performance.now()
  recordRows(sink, 1000, calls / 1000)
  const recordNs = ((performance.now() - t0) * 1e6) / calls
  console.log(`record(): ${recordNs.toFixed(0)} ns per call (${calls.toLocaleString('en')} calls, 1000 rows)`)

  const dir = mkdtempSync(join(tmpdir(), 'chaingate-bench-'))
  const sqlite = await openDatabase(join(dir, 'chaingate.sqlite'))
  const schema = services.postgres ? await createPgTestSchema('bench') : undefined
  const pg = schema ? await openDatabase({ url: schema.url, file: ':memory:', poolSize: 2 }) : undefined
  if (!pg) console.log(`PostgreSQL not available (${services.problems.postgres}): SQLite only`)
  try {
    console.log(`\nflush (median of ${REPEAT}), rows written per flush:`)
    console.log('rows      SQLite ms   rows/s       PostgreSQL ms  rows/s      PG/SQLite time')
    for (const rows of ROWS) {
      const s = await flushMs(sqlite, rows)
      const p = pg ? await flushMs(pg, rows) : NaN
      const rate = (ms: number) => (Number.isNaN(ms) ? '-' : Math.round((rows / ms) * 1000).toLocaleString('en'))
      console.log(
        `${String(rows).padEnd(9)} ${s.toFixed(2).padStart(9)}   ${rate(s).padEnd(12)} ` +
          `${Number.isNaN(p) ? '        -' : p.toFixed(2).padStart(13)}  ${rate(p).padEnd(11)} ` +
          `${Number.isNaN(p) ? '-' : (p / s).toFixed(1)}`,
      )
    }
  } finally {
    await sqlite.close()
    await pg?.close()
    await schema?.drop()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
