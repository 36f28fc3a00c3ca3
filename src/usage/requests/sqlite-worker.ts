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
import { NONE, NUMBERS, STRINGS } from './batch.ts'
import { INSERT_INTO } from '../../db/request-log-columns.ts'
import type { RequestWriter } from './recorder.ts'
import type { BatchMessage, WriterThreadData, WriterThreadReply } from './sqlite-writer-thread.js'

/** Rows per transaction: the main connection (the usage ledger) waits at most one such commit. */
const SLICE = 500
/**
 * The thread's module: plain JavaScript beside this file, in src/ and (emitted by tsc) in dist/ alike, so it runs
 * under tsx, in test processes and from the built package without a loader.
 */
const THREAD = new URL('./sqlite-writer-thread.js', import.meta.url)

/**
 * The array itself when it is the whole of its buffer (the recorder's own), else a copy that is: the buffer is
 * transferred to the thread, and a view on a shared one would detach it for everyone else. A batch relayed by a
 * `--workers` worker arrives over IPC as two views on the message's one buffer (or on Node's shared Buffer pool).
 */
function owned<T extends Uint32Array | Float64Array>(a: T): T {
  return a.byteOffset === 0 && a.byteLength === a.buffer.byteLength ? a : (a.slice() as T)
}

/** The node flags the writer thread keeps (the rest are not its business, and some a worker refuses). */
const THREAD_FLAGS = /^--(?:no-)?(?:experimental-sqlite|warnings|disable-warning)\b/

export function threadFlags(execArgv: readonly string[]): string[] {
  const kept: string[] = []
  for (let i = 0; i < execArgv.length; i++) {
    if (!THREAD_FLAGS.test(execArgv[i]!)) continue
    kept.push(execArgv[i]!)
    // `--disable-warning X` given as two arguments keeps its value.
    if (execArgv[i] === '--disable-warning' && i + 1 < execArgv.length) kept.push(execArgv[++i]!)
  }
  return kept
}

export function createSqliteWorkerWriter(file: string, engine: SqliteEngine): RequestWriter {
  const modulePath = engine === 'better-sqlite3' ? createRequire(import.meta.url).resolve('better-sqlite3') : ''
  const workerData: WriterThreadData = {
    file,
    engine,
    modulePath,
    slice: SLICE,
    none: NONE,
    insertInto: INSERT_INTO,
    strings: STRINGS,
    numbers: NUMBERS,
  }
  const worker = new Worker(THREAD, {
    workerData,
    // The thread is plain JavaScript that loads only node's modules and the engine by path: of node's flags it needs
    // only those of node:sqlite and warnings. Inheriting them all fails: `--input-type` (code given with -e) refuses
    // a file, and V8 flags (`--expose-gc`, `--allow-natives-syntax`) are refused when named for a worker.
    execArgv: threadFlags(process.execArgv),
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
  worker.on('message', (m: WriterThreadReply) => settle(m.id, m.error === undefined ? undefined : new Error(m.error)))
  worker.on('error', fail)
  worker.on('exit', (code) => fail(new Error(`the request explorer's writer thread exited (code ${code})`)))

  return {
    write(msg) {
      if (dead) throw dead
      const id = nextId++
      const done = new Promise<void>((resolve, reject) => waiting.set(id, { resolve, reject }))
      worker.ref()
      const refs = owned(msg.refs)
      const nums = owned(msg.nums)
      try {
        const message: BatchMessage = { id, count: msg.count, strings: msg.strings, refs, nums }
        worker.postMessage(message, [refs.buffer as ArrayBuffer, nums.buffer as ArrayBuffer])
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
