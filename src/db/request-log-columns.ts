/**
 * The request explorer's columns (`request_log`): the one list of their names, value types and record fields.
 * Everything that lays a row out by position derives from it, once at module load: the record (`RequestRow`), the
 * recorder's ring, a batch's layout (src/usage/requests/batch.ts: the string columns, then the number columns, each in
 * this order), the INSERTs (src/usage/requests/writers.ts, and the SQLite worker thread sqlite-writer-thread.js beside
 * it, which is sent them), the read (src/usage/requests/queries.ts) and kysely's table type (./tables.ts). It lives
 * with the database's tables because it is the table's layout; the explorer's code reads it. A new column is a line
 * here, a migration (migrations are append-only: they never read this list) and the lines of the recorder's `push` and
 * `refused` that take it from the call (stores into the ring by field: a function per column would cost each call
 * several times over); src/usage/requests/columns.test.ts checks the migrated table, this list and the queries agree.
 */

/** `int`: a number (an integer column); `text`: a string; `text?`: a string or null. */
export type ColumnType = 'int' | 'text' | 'text?'

export interface RequestColumnSpec {
  /** The SQL column. */
  readonly name: string
  /** The `RequestRow` field (src/usage/requests/recorder.ts) the recorder fills and the reads return. */
  readonly field: string
  readonly type: ColumnType
  /** A client-chosen string, capped (src/methods/labels.ts) before it reaches the database. */
  readonly capped?: boolean
}

/** In the table's order: a new column goes last, where its migration's ALTER TABLE adds it. */
export const REQUEST_COLUMNS = [
  /** Unix milliseconds when the call was settled. */
  { name: 'time', field: 'time', type: 'int' },
  { name: 'key_id', field: 'keyId', type: 'text' },
  { name: 'account_id', field: 'accountId', type: 'text' },
  { name: 'network', field: 'network', type: 'text' },
  { name: 'method', field: 'method', type: 'text', capped: true },
  /** `ok`, `rpc:<JSON-RPC error code>`, `http:<status>` (refused or no node answered), `http:undelivered`. */
  { name: 'status', field: 'status', type: 'text', capped: true },
  { name: 'latency_ms', field: 'latencyMs', type: 'int' },
  { name: 'credits', field: 'credits', type: 'int' },
  /** `cache`, `dedup` or the answering upstream's label; null: the gateway answered itself, or no node did. */
  { name: 'served', field: 'served', type: 'text?' },
  /** The Origin header when sent, else the client's IP address; null when neither is known. */
  { name: 'client', field: 'client', type: 'text?', capped: true },
] as const satisfies readonly RequestColumnSpec[]

export type RequestColumn = (typeof REQUEST_COLUMNS)[number]
/** The TypeScript type of a column's values. */
export type ValueOf<T extends ColumnType> = T extends 'int' ? number : T extends 'text' ? string : string | null

/** One call's record, as the recorder takes it and the reads return it. */
export type RequestRow = { -readonly [C in RequestColumn as C['field']]: ValueOf<C['type']> }
/** A row of `request_log` by SQL column name (without its `id`). */
export type RequestLogColumns = { -readonly [C in RequestColumn as C['name']]: ValueOf<C['type']> }

type StringColumn = Extract<RequestColumn, { type: 'text' | 'text?' }> & Pick<RequestColumnSpec, 'capped'>
type NumberColumn = Extract<RequestColumn, { type: 'int' }>
const isNumber = (c: RequestColumn): c is NumberColumn => c.type === 'int'

/** The string columns, in a batch's order (src/usage/requests/batch.ts `refs`). */
export const STRING_COLUMNS: readonly StringColumn[] = REQUEST_COLUMNS.filter((c) => !isNumber(c))
/** The number columns, in a batch's order (src/usage/requests/batch.ts `nums`). */
export const NUMBER_COLUMNS: readonly NumberColumn[] = REQUEST_COLUMNS.filter(isNumber)
/** The SQL column names, in the table's order. */
export const REQUEST_COLUMN_NAMES = REQUEST_COLUMNS.map((c) => c.name)
/** An INSERT's columns in a batch's order, strings first: a row's values are its `refs`, then its `nums`. */
const INSERT_COLUMNS = [...STRING_COLUMNS, ...NUMBER_COLUMNS].map((c) => c.name).join(', ')
/** `insert into request_log (<INSERT_COLUMNS>)`: the writers' and the SQLite worker thread's (sent it at its start). */
export const INSERT_INTO = `insert into request_log (${INSERT_COLUMNS})`
