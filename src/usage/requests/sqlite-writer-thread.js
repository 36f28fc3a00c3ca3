// @ts-check
/**
 * The request explorer's SQLite writer thread, started by ./sqlite-worker.ts (which says why it exists): its own
 * connection to the database file, inserting each batch it is sent (./batch.ts) in transactions of `slice` rows.
 * Plain JavaScript (checked by tsc through its JSDoc types), so Node runs the same file from src/ (tsx, tests) and
 * from dist/ on every supported version: a worker thread on Node 20 loads no TypeScript without a loader. It lists
 * no column: the INSERT's start and the batch's layout come in its workerData, made from src/db/request-log-columns.ts.
 */
import { createRequire } from 'node:module'
import { parentPort, workerData } from 'node:worker_threads'

/**
 * @typedef {object} WriterThreadData
 * @property {string} file the SQLite database file
 * @property {'node:sqlite' | 'better-sqlite3'} engine
 * @property {string} modulePath better-sqlite3's resolved path ('' for node:sqlite)
 * @property {number} slice rows per transaction
 * @property {number} none the `refs` value of a null string field (./batch.ts NONE)
 * @property {string} insertInto `insert into request_log (<columns>)`: the string columns, then the number columns
 * @property {number} strings string fields per row (`refs`), at most 30 (a bit each in a slice's `same` mask)
 * @property {number} numbers number fields per row (`nums`)
 */
/**
 * A batch to write (./batch.ts RequestBatch, with the id the answer carries).
 * @typedef {{ id: number; count: number; strings: string[]; refs: Uint32Array; nums: Float64Array }} BatchMessage
 */
/** @typedef {{ id: number; error?: string }} WriterThreadReply */
/** @typedef {{ run(...params: unknown[]): unknown }} Statement */
/**
 * A prepared INSERT for `rows` rows with its reused parameter array; `same`: the string fields bound once.
 * @typedef {{ rows: number; stmt: Statement; params: unknown[]; same?: number }} Insert
 */

const data = /** @type {WriterThreadData} */ (workerData)
const port = parentPort
if (port === null) throw new Error('the request explorer writer runs as a worker thread')
const { strings: STRINGS, numbers: NUMBERS, none: NONE, insertInto } = data
const FIELDS = STRINGS + NUMBERS

// Node 22/24 warn that node:sqlite is experimental when it loads; src/db/sqlite-driver.ts hides the same warning.
const emitWarning = process.emitWarning
process.emitWarning = /** @type {typeof process.emitWarning} */ (
  (/** @type {string | Error} */ w, /** @type {any[]} */ ...rest) =>
    /SQLite is an experimental feature/.test(String(typeof w === 'string' ? w : w?.message))
      ? undefined
      : emitWarning.call(process, w, ...rest)
)
const load = createRequire(import.meta.url)
/** @type {{ exec(sql: string): void; prepare(sql: string): Statement }} */
const db =
  data.engine === 'node:sqlite'
    ? new (load('node:sqlite').DatabaseSync)(data.file)
    : new (load(data.modulePath))(data.file)
db.exec('PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -2000')

/** `n` copies of `tuple`, comma-separated. */
const repeat = (/** @type {number} */ n, /** @type {string} */ tuple) => new Array(n).fill(tuple).join(', ')
/** @returns {Insert} */
const plain = (/** @type {number} */ n) => ({
  rows: n,
  stmt: db.prepare(`${insertInto} values ${repeat(n, `(${new Array(FIELDS).fill('?').join(', ')})`)}`),
  params: new Array(n * FIELDS),
})
const single = plain(1)
// A slice's string fields that hold one value in all its rows (bit c of `same`) are bound once, in the select list;
// the other strings and the numbers come from its VALUES rows, in order. One statement per rows and `same`, made
// when first needed. All different: the plain insert.
/** @type {Map<number, Insert>} */
const shaped = new Map()
/** @returns {Insert} */
const statementFor = (/** @type {number} */ n, /** @type {number} */ same) => {
  const key = n * 2 ** STRINGS + same
  let s = shaped.get(key)
  if (s !== undefined) return s
  if (same === 0) s = plain(n)
  else {
    let varying = 0
    for (let c = 0; c < STRINGS; c++) if (!(same & (1 << c))) varying++
    const list = []
    for (let c = 0, v = 0; c < STRINGS; c++) list.push(same & (1 << c) ? '?' : `column${++v}`)
    for (let k = 1; k <= NUMBERS; k++) list.push(`column${varying + k}`)
    const tuple = `(${new Array(varying + NUMBERS).fill('?').join(', ')})`
    const sql = `${insertInto} select ${list.join(', ')} from (values ${repeat(n, tuple)})`
    s = { rows: n, stmt: db.prepare(sql), params: new Array(STRINGS - varying + n * (varying + NUMBERS)), same }
  }
  shaped.set(key, s)
  return s
}
/** Bit c set: string field c is the same in rows [from, from + n). */
const sameOf = (/** @type {Uint32Array} */ refs, /** @type {number} */ from, /** @type {number} */ n) => {
  let same = 2 ** STRINGS - 1
  const first = from * STRINGS
  for (let r = 1; r < n && same !== 0; r++) {
    const a = (from + r) * STRINGS
    for (let c = 0; c < STRINGS; c++) if (refs[a + c] !== refs[first + c]) same &= ~(1 << c)
  }
  return same
}
/** Field `k` of `refs` as its string, or null. */
const str = (/** @type {string[]} */ strings, /** @type {Uint32Array} */ refs, /** @type {number} */ k) =>
  refs[k] === NONE ? null : strings[/** @type {number} */ (refs[k])]
// Outside the message handler, which runs once per batch: called per slice, these get optimized.
/** Binds rows [i, i + s.rows) of a batch to statement `s` and runs it. */
const insert = (
  /** @type {Insert} */ s,
  /** @type {string[]} */ strings,
  /** @type {Uint32Array} */ refs,
  /** @type {Float64Array} */ nums,
  /** @type {number} */ i,
) => {
  const p = s.params
  const same = s.same
  let k = 0
  if (same === undefined) {
    for (let r = i; r < i + s.rows; r++) {
      for (let c = 0, a = r * STRINGS; c < STRINGS; c++) p[k++] = str(strings, refs, a + c)
      for (let c = 0, x = r * NUMBERS; c < NUMBERS; c++) p[k++] = nums[x + c]
    }
  } else {
    for (let c = 0; c < STRINGS; c++) if (same & (1 << c)) p[k++] = str(strings, refs, i * STRINGS + c)
    for (let r = i; r < i + s.rows; r++) {
      for (let c = 0, a = r * STRINGS; c < STRINGS; c++) if (!(same & (1 << c))) p[k++] = str(strings, refs, a + c)
      for (let c = 0, x = r * NUMBERS; c < NUMBERS; c++) p[k++] = nums[x + c]
    }
  }
  s.stmt.run(...p)
}
port.on('message', (/** @type {BatchMessage} */ m) => {
  const { id, strings, refs, nums, count } = m
  /** @type {WriterThreadReply} */
  let reply
  try {
    for (let from = 0; from < count; from += data.slice) {
      const to = Math.min(count, from + data.slice)
      db.exec('BEGIN IMMEDIATE')
      try {
        for (let i = from; i < to; ) {
          const n = to - i >= 100 ? 100 : to - i >= 10 ? 10 : 1
          insert(n === 1 ? single : statementFor(n, sameOf(refs, i, n)), strings, refs, nums, i)
          i += n
        }
        db.exec('COMMIT')
      } catch (err) {
        try {
          db.exec('ROLLBACK')
        } catch {}
        throw err
      }
    }
    reply = { id }
  } catch (err) {
    reply = { id, error: String((err instanceof Error && err.message) || err) }
  }
  port.postMessage(reply)
})
