/**
 * The `to` of a signed transaction as eth_sendRawTransaction carries it, for the address rules of key security
 * (./addresses.ts): an EIP-2718 type byte (0x01 EIP-2930, 0x02 EIP-1559, 0x03 EIP-4844, also in its network form
 * with blobs, 0x04 EIP-7702) before an RLP list, or a legacy RLP list
 * (https://ethereum.org/en/developers/docs/data-structures-and-encoding/rlp/). Decoded just far enough to find the
 * field, with the field counts viem's `parseTransaction` accepts (signed or not). viem read it before; its utils
 * index costs every gateway process ~3.5 MiB of heap for this one field (docs/benchmarks.md, "Memory, third pass").
 */

interface Item {
  list: boolean
  /** The payload: [start, end) of the input. */
  start: number
  end: number
}

/** Big-endian length of `n` bytes at `pos`, or -1 past `limit`. */
function length(b: Uint8Array, pos: number, n: number, limit: number): number {
  if (pos + n > limit) return -1
  let len = 0
  for (let i = 0; i < n; i++) len = len * 256 + b[pos + i]!
  return len
}

/** The RLP item at `pos`, or undefined when it does not fit before `limit`. */
function itemAt(b: Uint8Array, pos: number, limit: number): Item | undefined {
  if (pos >= limit) return undefined
  const p = b[pos]!
  let list = false
  let start: number
  let len: number
  if (p < 0x80) return { list: false, start: pos, end: pos + 1 }
  if (p <= 0xb7) {
    start = pos + 1
    len = p - 0x80
  } else if (p <= 0xbf) {
    start = pos + 1 + (p - 0xb7)
    len = length(b, pos + 1, p - 0xb7, limit)
  } else if (p <= 0xf7) {
    list = true
    start = pos + 1
    len = p - 0xc0
  } else {
    list = true
    start = pos + 1 + (p - 0xf7)
    len = length(b, pos + 1, p - 0xf7, limit)
  }
  const end = start + len
  return len < 0 || end > limit ? undefined : { list, start, end }
}

/** The items of a list, or undefined when one overruns it. */
function itemsOf(b: Uint8Array, list: Item): Item[] | undefined {
  const items: Item[] = []
  for (let pos = list.start; pos < list.end; ) {
    const it = itemAt(b, pos, list.end)
    if (it === undefined) return undefined
    items.push(it)
    pos = it.end
  }
  return items
}

/** The whole of `b` from `pos` as one RLP list's items. */
function wholeList(b: Uint8Array, pos: number): Item[] | undefined {
  const top = itemAt(b, pos, b.length)
  return top?.list && top.end === b.length ? itemsOf(b, top) : undefined
}

/** Per type byte: the field counts allowed (unsigned, signed) and where `to` is. */
const SHAPES: Record<number, { counts: readonly number[]; to: number }> = {
  1: { counts: [8, 11], to: 4 },
  2: { counts: [9, 12], to: 5 },
  3: { counts: [11, 14], to: 5 },
  4: { counts: [10, 13], to: 5 },
}
const LEGACY: { counts: readonly number[]; to: number } = { counts: [6, 9], to: 3 }

const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})+$/

/**
 * The `to` of a raw signed transaction (lowercase hex), or undefined: a contract creation, or not a transaction this
 * reads (hex, RLP, type or field count; a `to` that is not 20 bytes).
 */
export function transactionTo(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || !HEX_BYTES.test(raw)) return undefined
  const b = Buffer.from(raw.slice(2), 'hex')
  const type = b[0]!
  let fields: Item[] | undefined
  let shape = LEGACY
  if (type >= 0xc0) fields = wholeList(b, 0)
  else {
    const typed = SHAPES[type]
    if (typed === undefined) return undefined
    shape = typed
    fields = wholeList(b, 1)
    // EIP-4844's network form: [transaction, blobs, commitments, proofs].
    if (type === 3 && fields?.length === 4 && fields[0]!.list) fields = itemsOf(b, fields[0]!)
  }
  if (fields === undefined || !shape.counts.includes(fields.length)) return undefined
  const to = fields[shape.to]!
  // A single byte below 0x80 is its own payload, so never 20 bytes.
  if (to.list || to.end - to.start !== 20) return undefined
  return `0x${b.toString('hex', to.start, to.end)}`
}
