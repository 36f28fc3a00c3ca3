/**
 * The SQLite engine behind the database seam: Node's built-in `node:sqlite` where it exists (Node ≥ 22.13, no
 * native addon to compile), else `better-sqlite3` (an optionalDependency, loaded only then — Node 20).
 * Both are exposed as the synchronous subset of better-sqlite3's API that chaingate uses (`SqliteHandle`): kysely's
 * SqliteDialect drives it, and the usage ledger writes its batches through it.
 */
import { createRequire } from 'node:module'

export type SqliteValue = number | bigint | string | null | Uint8Array

export interface SqliteStatement {
  /** Whether the statement returns rows (kysely's SqliteDriver reads it to pick all() or run()). */
  readonly reader: boolean
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint }
  all(...params: unknown[]): unknown[]
  get(...params: unknown[]): unknown
  iterate(...params: unknown[]): IterableIterator<unknown>
}

export interface SqliteHandle {
  prepare(sql: string): SqliteStatement
  exec(sql: string): unknown
  /** `pragma('journal_mode = WAL')`: the rows the PRAGMA returns. */
  pragma(source: string): unknown
  /** Wraps `fn` in BEGIN/COMMIT (ROLLBACK when it throws). */
  transaction<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void
  close(): void
}

export type SqliteEngine = 'node:sqlite' | 'better-sqlite3'

// The slice of node:sqlite used here (@types/node 20 does not declare the module).
interface NodeStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint }
  all(...params: unknown[]): unknown[]
  get(...params: unknown[]): unknown
  iterate(...params: unknown[]): IterableIterator<unknown>
  columns?(): unknown[]
}
interface NodeDatabase {
  prepare(sql: string): NodeStatement
  exec(sql: string): void
  close(): void
  readonly isTransaction?: boolean
}
type NodeSqliteModule = { DatabaseSync: new (path: string) => NodeDatabase }

const require = createRequire(import.meta.url)

/** node:sqlite when this Node has it (22.13+), unless CHAINGATE_SQLITE=better-sqlite3 asks for the addon. */
export function sqliteEngine(): SqliteEngine {
  if (process.env.CHAINGATE_SQLITE === 'better-sqlite3') return 'better-sqlite3'
  return loadNodeSqlite() ? 'node:sqlite' : 'better-sqlite3'
}

export async function openSqlite(file: string, engine: SqliteEngine = sqliteEngine()): Promise<SqliteHandle> {
  if (engine === 'node:sqlite') {
    const mod = loadNodeSqlite()
    if (!mod) throw new Error(`node:sqlite is not available in Node ${process.versions.node}`)
    return wrapNodeSqlite(new mod.DatabaseSync(file))
  }
  let SQLite: typeof import('better-sqlite3')
  try {
    SQLite = (await import('better-sqlite3')).default
  } catch (err) {
    throw new Error(
      `Node ${process.versions.node} has no node:sqlite (it needs 22.13 or later), and the better-sqlite3 package ` +
        `could not be loaded (${(err as Error).message}); upgrade Node, or reinstall with \`npm ci\` so the ` +
        'optional dependency better-sqlite3 is built',
    )
  }
  return new SQLite(file) as unknown as SqliteHandle
}

let nodeSqlite: NodeSqliteModule | null | undefined
function loadNodeSqlite(): NodeSqliteModule | null {
  if (nodeSqlite !== undefined) return nodeSqlite
  // Node 22/24 print "ExperimentalWarning: SQLite is an experimental feature" when the module loads; it says
  // nothing useful to an operator, so only that warning is dropped (emitted synchronously while loading).
  const emitWarning = process.emitWarning
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning?.message
    if (/SQLite is an experimental feature/.test(String(text))) return
    return (emitWarning as (...a: unknown[]) => void).call(process, warning, ...rest)
  }) as typeof process.emitWarning
  try {
    // Throws on Node 20, and on 22.5–22.12 without --experimental-sqlite.
    nodeSqlite = require('node:sqlite') as NodeSqliteModule
  } catch {
    nodeSqlite = null
  } finally {
    process.emitWarning = emitWarning
  }
  if (nodeSqlite && !hasIterate(nodeSqlite)) nodeSqlite = null
  return nodeSqlite
}

/** StatementSync.iterate (22.13) is what kysely's streaming needs. */
function hasIterate(mod: NodeSqliteModule): boolean {
  const db = new mod.DatabaseSync(':memory:')
  try {
    return typeof db.prepare('select 1').iterate === 'function'
  } finally {
    db.close()
  }
}

// better-sqlite3 spreads an array argument into positional parameters; kysely passes its parameters that way.
const flat = (params: unknown[]): unknown[] => (params.length === 1 && Array.isArray(params[0]) ? params[0] : params)

// Before columns() (Node 22.16 / 23.11): statements that return rows, judged from their text.
const READER = /^\s*(select|with|pragma|values|explain)\b|\breturning\b/i

function wrapNodeSqlite(db: NodeDatabase): SqliteHandle {
  return {
    prepare(sql) {
      const stmt = db.prepare(sql)
      const reader = typeof stmt.columns === 'function' ? stmt.columns().length > 0 : READER.test(sql)
      return {
        reader,
        run: (...p) => stmt.run(...flat(p)),
        all: (...p) => stmt.all(...flat(p)),
        get: (...p) => stmt.get(...flat(p)),
        iterate: (...p) => stmt.iterate(...flat(p)),
      }
    },
    exec: (sql) => db.exec(sql),
    pragma: (source) => db.prepare(`PRAGMA ${source}`).all(),
    transaction(fn) {
      return (...args) => {
        // Nested (inside a kysely transaction on the same connection): a savepoint, as better-sqlite3 does.
        const nested = db.isTransaction === true
        db.exec(nested ? 'SAVEPOINT chaingate_tx' : 'BEGIN IMMEDIATE') // see ImmediateSqliteDialect
        try {
          fn(...args)
          db.exec(nested ? 'RELEASE chaingate_tx' : 'COMMIT')
        } catch (err) {
          try {
            db.exec(nested ? 'ROLLBACK TO chaingate_tx; RELEASE chaingate_tx' : 'ROLLBACK')
          } catch {} // SQLite may have rolled back already (e.g. SQLITE_FULL); the original error is what matters
          throw err
        }
      }
    },
    close: () => db.close(),
  }
}
