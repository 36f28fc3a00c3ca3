/**
 * The request explorer's SQLite writer for a database file: a worker thread with its own connection runs the
 * inserts, so the gateway's event loop only hands over a batch (./batch.ts: a string table and two typed arrays,
 * transferred without a copy) — SQLite's own work per row (the table and its index) is several microseconds, too
 * much for the loop at thousands of calls a second. WAL lets the two connections share the file; each waits for
 * the other (busy_timeout) and the worker commits every 500 rows, so the main connection never waits long. Its page
 * cache is small (2 MiB, not better-sqlite3's 16): appends only touch the right edges of the B-trees.
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type { SqliteEngine } from '../../db/sqlite-driver.ts'
import { NONE, STRINGS } from './batch.ts'
import type { RequestWriter } from './recorder.ts'

/** Rows per transaction: the main connection (the usage ledger) waits at most one such commit. */
const SLICE = 500

// Plain CommonJS, run with `eval`: nothing to compile or resolve at run time (the engine's path is passed in).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const { file, engine, modulePath } = workerData
const emitWarning = process.emitWarning
process.emitWarning = (w, ...rest) =>
  /SQLite is an experimental feature/.test(String(typeof w === 'string' ? w : w && w.message))
    ? undefined : emitWarning.call(process, w, ...rest)
const db = engine === 'node:sqlite' ? new (require('node:sqlite').DatabaseSync)(file) : new (require(modulePath))(file)
db.exec('PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -2000')
const SLICE = ${SLICE}
const COLUMNS = 'time, key_id, account_id, network, method, status, latency_ms, credits, served, client'
const TUPLE = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'
const plain = (n) => ({
  rows: n,
  stmt: db.prepare('insert into request_log (' + COLUMNS + ') values ' + new Array(n).fill(TUPLE).join(', ')),
  params: new Array(n * 10),
})
const single = plain(1)
// A slice's string columns that hold one value in all its rows (bit c of \`same\`) are bound once, in the select list;
// the numbers and the other strings come from its VALUES rows, in order. One statement per rows and \`same\`, made
// when first needed. All different: the plain insert.
const STRINGS_AT = [1, 2, 3, 4, 5, 8, 9]
const shaped = new Map()
const statementFor = (n, same) => {
  const key = n * 128 + same
  let s = shaped.get(key)
  if (s !== undefined) return s
  if (same === 0) s = plain(n)
  else {
    const list = ['column1', '', '', '', '', '', 'column2', 'column3', '', '']
    let varying = 0
    for (let c = 0; c < ${STRINGS}; c++) list[STRINGS_AT[c]] = same & (1 << c) ? '?' : 'column' + (4 + varying++)
    const tuple = '(' + new Array(3 + varying).fill('?').join(', ') + ')'
    const sql = 'insert into request_log (' + COLUMNS + ') select ' + list.join(', ') + ' from (values ' +
      new Array(n).fill(tuple).join(', ') + ')'
    s = { rows: n, stmt: db.prepare(sql), params: new Array(${STRINGS} - varying + n * (3 + varying)), same }
  }
  shaped.set(key, s)
  return s
}
/** Bit c set: string column c is the same in rows [from, from + n). */
const sameOf = (refs, from, n) => {
  let same = (1 << ${STRINGS}) - 1
  const first = from * ${STRINGS}
  for (let r = 1; r < n && same !== 0; r++) {
    const a = (from + r) * ${STRINGS}
    for (let c = 0; c < ${STRINGS}; c++) if (refs[a + c] !== refs[first + c]) same &= ~(1 << c)
  }
  return same
}
const str = (strings, refs, k) => (refs[k] === ${NONE} ? null : strings[refs[k]])
// Outside the message handler, which runs once per batch: called per slice, these get optimized.
/** Binds rows [i, i + s.rows) of a batch to statement \`s\` and runs it. */
const insert = (s, strings, refs, nums, i) => {
  const p = s.params
  const same = s.same
  let k = 0
  if (same === undefined) {
    for (let r = i; r < i + s.rows; r++) {
      const a = r * ${STRINGS}
      p[k++] = nums[r * 3]
      for (let c = 0; c < 5; c++) p[k++] = str(strings, refs, a + c)
      p[k++] = nums[r * 3 + 1]
      p[k++] = nums[r * 3 + 2]
      p[k++] = str(strings, refs, a + 5)
      p[k++] = str(strings, refs, a + 6)
    }
  } else {
    for (let c = 0; c < ${STRINGS}; c++) if (same & (1 << c)) p[k++] = str(strings, refs, i * ${STRINGS} + c)
    for (let r = i; r < i + s.rows; r++) {
      p[k++] = nums[r * 3]
      p[k++] = nums[r * 3 + 1]
      p[k++] = nums[r * 3 + 2]
      for (let c = 0; c < ${STRINGS}; c++) if (!(same & (1 << c))) p[k++] = str(strings, refs, r * ${STRINGS} + c)
    }
  }
  s.stmt.run(...p)
}
parentPort.on('message', (m) => {
  const { id, strings, refs, nums, count } = m
  try {
    for (let from = 0; from < count; from += SLICE) {
      const to = Math.min(count, from + SLICE)
      db.exec('BEGIN IMMEDIATE')
      try {
        for (let i = from; i < to; ) {
          const n = to - i >= 100 ? 100 : to - i >= 10 ? 10 : 1
          insert(n === 1 ? single : statementFor(n, sameOf(refs, i, n)), strings, refs, nums, i)
          i += n
        }
        db.exec('COMMIT')
      } catch (err) {
        try { db.exec('ROLLBACK') } catch {}
        throw err
      }
    }
    parentPort.postMessage({ id })
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err) })
  }
})
`

/**
 * The array itself when it is the whole of its buffer (the recorder's own), else a copy that is: the buffer is
 * transferred to the thread, and a view on a shared one would detach it for everyone else. A batch relayed by a
 * `--workers` worker arrives over IPC as two views on the message's one buffer (or on Node's shared Buffer pool).
 */
function owned<T extends Uint32Array | Float64Array>(a: T): T {
  return a.byteOffset === 0 && a.byteLength === a.buffer.byteLength ? a : (a.slice() as T)
}

export function createSqliteWorkerWriter(file: string, engine: SqliteEngine): RequestWriter {
  const modulePath = engine === 'better-sqlite3' ? createRequire(import.meta.url).resolve('better-sqlite3') : ''
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, engine, modulePath },
    // Its garbage is a batch's parameters: a young generation of 4 MiB, not V8's 32, keeps ~4 MiB of RSS off.
    resourceLimits: { maxYoungGenerationSizeMb: 4 },
  })
  // Idle, the worker keeps nothing alive; while a write is in flight it does (a clean stop waits for it).
  worker.unref()
  const waiting = new Map<number, { resolve: () => void; reject: (err: Error) => void }>()
  const inFlight = new Set<Promise<void>>()
  let nextId = 0
  let dead: Error | undefined
  const settle = (id: number, err?: Error) => {
    const w = waiting.get(id)
    if (!w) return
    waiting.delete(id)
    if (waiting.size === 0) worker.unref()
    if (err) w.reject(err)
    else w.resolve()
  }
  const fail = (err: Error) => {
    dead ??= err
    for (const id of [...waiting.keys()]) settle(id, err)
  }
  worker.on('message', (m: { id: number; error?: string }) =>
    settle(m.id, m.error === undefined ? undefined : new Error(m.error)),
  )
  worker.on('error', fail)
  worker.on('exit', (code) => fail(new Error(`the request log's writer thread exited (code ${code})`)))

  return {
    write(msg) {
      if (dead) throw dead
      const id = nextId++
      const done = new Promise<void>((resolve, reject) => waiting.set(id, { resolve, reject }))
      worker.ref()
      const refs = owned(msg.refs)
      const nums = owned(msg.nums)
      try {
        worker.postMessage({ id, ...msg, refs, nums }, [refs.buffer as ArrayBuffer, nums.buffer as ArrayBuffer])
      } catch (err) {
        settle(id, err as Error) // not sent: nothing will answer it, and the thread must not be kept alive for it
      }
      inFlight.add(done)
      const forget = () => inFlight.delete(done)
      done.then(forget, forget)
      return done
    },
    async close() {
      await Promise.allSettled(inFlight)
      await worker.terminate()
    },
  }
}
