/**
 * A batch of request records in columns: each distinct string once (`strings`), each row's string fields as indexes
 * into it (`refs`, NONE for null) and its numbers (`nums`), each in src/db/request-log-columns.ts's order. The recorder
 * builds it straight from its ring, without an object per record, and the SQLite writer thread receives it without a
 * copy (typed arrays are transferred).
 */
import { NUMBER_COLUMNS, STRING_COLUMNS } from '../../db/request-log-columns.ts'

/** A null string field. */
export const NONE = 0xffff_ffff
/** String fields per row (src/db/request-log-columns.ts `STRING_COLUMNS`). */
export const STRINGS = STRING_COLUMNS.length
/** Number fields per row (src/db/request-log-columns.ts `NUMBER_COLUMNS`). */
export const NUMBERS = NUMBER_COLUMNS.length
/** Per string field: whether it is capped (a client-chosen string). */
export const CAPPED: readonly boolean[] = STRING_COLUMNS.map((c) => c.capped === true)

export interface RequestBatch {
  count: number
  strings: string[]
  refs: Uint32Array
  nums: Float64Array
}

/** Interns the strings of a batch: per column, the previous row's string is reused without a map lookup. */
export function createInterner(capped: readonly boolean[], cap: (s: string) => string) {
  const table = new Map<string, number>()
  const strings: string[] = []
  const lastString: (string | null)[] = new Array(STRINGS).fill(null)
  const lastRef = new Uint32Array(STRINGS).fill(NONE)
  return {
    strings,
    ref(column: number, s: string | null): number {
      if (s === lastString[column]) return lastRef[column]!
      let j = NONE
      if (s !== null) {
        const v = capped[column] ? cap(s) : s
        j = table.get(v) ?? -1
        if (j === -1) {
          j = strings.length
          strings.push(v)
          table.set(v, j)
        }
      }
      lastString[column] = s
      lastRef[column] = j
      return j
    },
  }
}

/** Field `k` of `refs` as its string, or null. */
export const field = (b: RequestBatch, k: number): string | null => (b.refs[k] === NONE ? null : b.strings[b.refs[k]!]!)

/** An empty batch. */
export const emptyBatch = (): RequestBatch => ({
  count: 0,
  strings: [],
  refs: new Uint32Array(0),
  nums: new Float64Array(0),
})
