/**
 * Wire helpers of the embedded Solana devnet's server: base58/base64 with the validator's error texts, the JSON-RPC
 * error type, and JSON that writes u64 values (bigint) as exact numbers, as Agave does.
 */
import { getBase58Codec } from '@solana/kit'

const base58 = getBase58Codec()
const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'

/** A JSON-RPC error answered as is: `{ code, message, data? }` (https://solana.com/docs/rpc). */
export class RpcError extends Error {
  readonly code: number
  readonly data: unknown
  constructor(code: number, message: string, data?: unknown) {
    super(message)
    this.code = code
    this.data = data
  }
}

export const invalidParams = (message: string, data?: unknown) => new RpcError(-32602, message, data)

export function encodeBase58(bytes: Uint8Array): string {
  return base58.decode(bytes)
}

/** Decodes base58 or returns the bs58 crate's error (Debug form), which Agave puts in its messages. */
export function tryDecodeBase58(text: string): Uint8Array | string {
  for (let i = 0; i < text.length; i++) {
    if (!BASE58_ALPHABET.includes(text[i] as string)) return `InvalidCharacter { character: '${text[i]}', index: ${i} }`
  }
  return Uint8Array.from(base58.encode(text))
}

/** Strict standard base64 (with padding), as Rust's base64 crate decodes it; else its error (Debug form). */
export function tryDecodeBase64(text: string): Uint8Array | string {
  const bad = /[^A-Za-z0-9+/=]/.exec(text)
  if (bad) return `InvalidByte(${bad.index}, ${text.charCodeAt(bad.index)})`
  const firstPad = text.indexOf('=')
  if (text.length % 4 !== 0) return `InvalidLength(${text.replace(/=+$/, '').length})`
  if (firstPad !== -1 && (firstPad < text.length - 2 || !/^=+$/.test(text.slice(firstPad)))) return 'InvalidPadding'
  return Uint8Array.from(Buffer.from(text, 'base64'))
}

export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
}

/** A 32-byte public key from base58, with Agave's answer for a bad one (`Invalid param: …`). */
export function parsePubkey(value: unknown, what = 'param'): string {
  if (typeof value !== 'string')
    throw invalidParams(`Invalid params: invalid type: ${typeName(value)}, expected a string.`)
  if (value.length > 44) throw invalidParams(`Invalid ${what}: WrongSize`)
  const bytes = tryDecodeBase58(value)
  if (typeof bytes === 'string') throw invalidParams(`Invalid ${what}: Invalid`)
  if (bytes.length !== 32) throw invalidParams(`Invalid ${what}: WrongSize`)
  return value
}

/** A 64-byte signature from base58. */
export function parseSignature(value: unknown): string {
  if (typeof value !== 'string')
    throw invalidParams(`Invalid params: invalid type: ${typeName(value)}, expected a string.`)
  if (value.length > 88) throw invalidParams('Invalid param: WrongSize')
  const bytes = tryDecodeBase58(value)
  if (typeof bytes === 'string') throw invalidParams('Invalid param: Invalid')
  if (bytes.length !== 64) throw invalidParams('Invalid param: WrongSize')
  return value
}

/** serde's words for a JSON value of the wrong type ("invalid type: integer `1`, expected …"). */
export function typeName(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`
  if (typeof value === 'number') return Number.isInteger(value) ? `integer \`${value}\`` : `floating point \`${value}\``
  if (typeof value === 'boolean') return `boolean \`${value}\``
  if (Array.isArray(value)) return 'sequence'
  return 'map'
}

const BIGINT_MARK = '\u0001bigint:'
const BIGINT_PATTERN = /"\\u0001bigint:(\d+)"/g

/** JSON with bigint values written as plain numbers (u64 fields such as rentEpoch exceed 2^53). */
export function stringifyJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `${BIGINT_MARK}${v}` : v))
  return text.includes('\\u0001bigint:') ? text.replace(BIGINT_PATTERN, '$1') : text
}
