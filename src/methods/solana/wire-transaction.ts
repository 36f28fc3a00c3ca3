/**
 * A Solana wire transaction (the bytes sendTransaction and simulateTransaction take), read only as far as the
 * gateway needs: its signatures, its version and the account keys its message names
 * (https://solana.com/docs/core/transactions; versioned messages:
 * https://docs.anza.xyz/proposals/versioned-transactions).
 *
 *   transaction = compact-u16 count, 64-byte signatures, message
 *   message     = [0x80 | version] (v0; absent: legacy), header (3 bytes), compact-u16 count, 32-byte account keys,
 *                 32-byte recent blockhash, compact-u16 count of instructions (program index byte, compact-u16
 *                 count of account index bytes, compact-u16 count of data bytes),
 *                 v0 only: compact-u16 count of address-table lookups (32-byte table, compact-u16 count of writable
 *                 index bytes, compact-u16 count of read-only index bytes)
 *
 * Hostile input never throws: every length is checked against the bytes left before it is used, so nothing is
 * allocated beyond the input's own size. Bytes after the message are left to the node, as is everything it checks
 * (signatures, header counts, index ranges).
 */
import { base58Decode } from './base58.ts'

/** Largest transaction a node takes, and its text forms (Agave rpc/src/rpc.rs: PACKET_DATA_SIZE, MAX_BASE58_SIZE …). */
export const MAX_TRANSACTION_BYTES = 1232
export const MAX_BASE58_TRANSACTION = 1683
export const MAX_BASE64_TRANSACTION = 1644

export interface WireTransaction {
  /** The signatures it carries; the first is the transaction's id. */
  signatures: number
  firstSignature: Uint8Array | undefined
  version: 'legacy' | 0
  /** The message's static account keys, 32 bytes each, in order (the fee payer first). */
  accountKeys: Uint8Array[]
  /** Address-table lookups (v0): it may load accounts its message does not name. */
  lookups: number
}

/**
 * Solana's compact-u16 ("short_vec"): 1 to 3 bytes of 7 bits, low first; an alias (a last byte of 0 after the
 * first) or a value over 0xffff is refused, as the node does. Returns the value and the next offset, or -1.
 */
function compactU16(b: Uint8Array, at: number): { value: number; next: number } | -1 {
  let value = 0
  for (let i = 0; i < 3; i++) {
    if (at + i >= b.length) return -1
    const byte = b[at + i]!
    if (i > 0 && byte === 0) return -1
    value |= (byte & 0x7f) << (7 * i)
    if ((byte & 0x80) === 0) return value > 0xffff ? -1 : { value, next: at + i + 1 }
    if (i === 2) return -1
  }
  return -1
}

/** Skips a compact-u16 count of `size`-byte items: the next offset, or -1 when they do not fit. */
function skipItems(b: Uint8Array, at: number, size: number): number {
  const n = compactU16(b, at)
  if (n === -1) return -1
  const end = n.next + n.value * size
  return end > b.length ? -1 : end
}

/** The transaction in `bytes`, or null when they are not one. */
export function parseWireTransaction(bytes: Uint8Array): WireTransaction | null {
  const sigs = compactU16(bytes, 0)
  if (sigs === -1) return null
  let at = sigs.next + sigs.value * 64
  if (at >= bytes.length) return null
  const firstSignature = sigs.value > 0 ? bytes.subarray(sigs.next, sigs.next + 64) : undefined
  let version: 'legacy' | 0 = 'legacy'
  if ((bytes[at]! & 0x80) !== 0) {
    if ((bytes[at]! & 0x7f) !== 0) return null // only v0 exists
    version = 0
    at++
  }
  at += 3 // header: required signatures, read-only signed, read-only unsigned
  const keys = compactU16(bytes, at)
  if (keys === -1) return null
  at = keys.next
  if (at + keys.value * 32 + 32 > bytes.length) return null
  const accountKeys: Uint8Array[] = []
  for (let i = 0; i < keys.value; i++, at += 32) accountKeys.push(bytes.subarray(at, at + 32))
  at += 32 // recent blockhash
  const instructions = compactU16(bytes, at)
  if (instructions === -1) return null
  at = instructions.next
  // Each instruction takes at least 3 bytes: the loop ends within the input's length.
  for (let i = 0; i < instructions.value; i++) {
    if (at >= bytes.length) return null
    at = skipItems(bytes, at + 1, 1) // program index, then account indexes
    if (at === -1) return null
    at = skipItems(bytes, at, 1) // data
    if (at === -1) return null
  }
  let lookups = 0
  if (version === 0) {
    const tables = compactU16(bytes, at)
    if (tables === -1) return null
    at = tables.next
    lookups = tables.value
    for (let i = 0; i < lookups; i++) {
      if (at + 32 > bytes.length) return null
      at = skipItems(bytes, at + 32, 1) // writable indexes
      if (at === -1) return null
      at = skipItems(bytes, at, 1) // read-only indexes
      if (at === -1) return null
    }
  }
  return { signatures: sigs.value, firstSignature, version, accountKeys, lookups }
}

/** Standard base64 with its padding (what the node's decoder takes). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

export type ReadTransaction = { ok: true; tx: WireTransaction } | { ok: false; why: string }

/**
 * The transaction of a sendTransaction/simulateTransaction parameter in the encoding its config names (the node's
 * default: base58, https://solana.com/docs/rpc/http/sendtransaction), or why it is not one.
 */
export function readWireTransaction(text: unknown, encoding: unknown): ReadTransaction {
  if (typeof text !== 'string') return { ok: false, why: 'must be an encoded transaction (a string)' }
  let bytes: Uint8Array | undefined
  if (encoding === 'base64') {
    if (text.length > MAX_BASE64_TRANSACTION)
      return { ok: false, why: `is too large: at most ${MAX_BASE64_TRANSACTION} base64 characters` }
    if (!BASE64.test(text)) return { ok: false, why: 'is not valid base64' }
    bytes = Buffer.from(text, 'base64')
  } else if (encoding === undefined || encoding === null || encoding === 'base58') {
    if (text.length > MAX_BASE58_TRANSACTION)
      return { ok: false, why: `is too large: at most ${MAX_BASE58_TRANSACTION} base58 characters` }
    bytes = base58Decode(text, MAX_TRANSACTION_BYTES)
    if (bytes === undefined) {
      const hint =
        encoding === undefined || encoding === null
          ? ' (the default encoding; send base64 with encoding: "base64")'
          : ''
      return { ok: false, why: `is not valid base58${hint}` }
    }
  } else return { ok: false, why: 'has an unknown encoding' } // the config check names the encodings
  if (bytes.length > MAX_TRANSACTION_BYTES)
    return { ok: false, why: `is too large: at most ${MAX_TRANSACTION_BYTES} bytes` }
  const tx = parseWireTransaction(bytes)
  return tx === null ? { ok: false, why: 'is not a Solana transaction (legacy or v0)' } : { ok: true, tx }
}
