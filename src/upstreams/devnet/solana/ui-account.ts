/**
 * How the devnet writes accounts on the wire, in the shape of Agave's RPC
 * (https://solana.com/docs/rpc/json-structures): UiAccount with base58/base64/base64+zstd/jsonParsed data.
 */
import * as zlib from 'node:zlib'
import type { AccountState } from './account-state.ts'
import { encodeBase58, encodeBase64, invalidParams } from './codec.ts'
import { parseTokenState } from './spl-token.ts'

/** Agave writes u64::MAX since rent collection ended (SIMD-0267). */
export const RENT_EPOCH = 18446744073709551615n

export type AccountEncoding = 'binary' | 'base58' | 'base64' | 'base64+zstd' | 'jsonParsed'
export interface DataSlice {
  offset: number
  length: number
}

const ENCODINGS = new Set(['binary', 'base58', 'base64', 'base64+zstd', 'jsonParsed'])

export function parseAccountEncoding(value: unknown): AccountEncoding | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string' || !ENCODINGS.has(value))
    throw invalidParams(
      `Invalid params: unknown variant \`${String(value)}\`, expected one of \`binary\`, \`base58\`, \`base64\`, ` +
        '`jsonParsed`, `base64+zstd`.',
    )
  return value as AccountEncoding
}

/** Agave refuses base58 for data over 128 bytes (base58 is quadratic to encode). */
export function checkBase58Size(account: AccountState | undefined, encoding: AccountEncoding, slice?: DataSlice) {
  if (!account || (encoding !== 'binary' && encoding !== 'base58')) return
  const length = slice ? Math.max(0, Math.min(account.data.length - slice.offset, slice.length)) : account.data.length
  if (length > 128)
    throw invalidParams('Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.')
}

function encodeData(data: Uint8Array, encoding: AccountEncoding): unknown {
  switch (encoding) {
    case 'binary':
      return encodeBase58(data)
    case 'base58':
      return [encodeBase58(data), 'base58']
    case 'base64+zstd': {
      // node:zlib has zstd from Node 22.15/23.8; without it, answer plain base64 as Agave does when compression fails.
      const compress = (zlib as { zstdCompressSync?: (data: Uint8Array) => Buffer }).zstdCompressSync
      return compress ? [compress(data).toString('base64'), 'base64+zstd'] : [encodeBase64(data), 'base64']
    }
    default:
      return [encodeBase64(data), 'base64']
  }
}

/** An account as UiAccount. `jsonParsed` parses SPL token state and falls back to base64 for the rest. */
export function uiAccount(
  account: AccountState,
  encoding: AccountEncoding,
  slice: DataSlice | undefined,
  mintDecimals: (mint: string) => number | undefined,
): Record<string, unknown> {
  let data: unknown
  if (encoding === 'jsonParsed') {
    const parsed = parseTokenState(account, mintDecimals)
    data = parsed ?? [encodeBase64(account.data), 'base64']
  } else {
    const bytes = slice ? account.data.subarray(slice.offset, slice.offset + slice.length) : account.data
    data = encodeData(bytes, encoding)
  }
  return {
    data,
    executable: account.executable,
    lamports: account.lamports,
    owner: account.owner,
    rentEpoch: RENT_EPOCH,
    space: account.data.length,
  }
}
