/**
 * Parameter checks of Solana methods (https://solana.com/docs/rpc/http), run before a call is priced or forwarded:
 * only what the node would refuse anyway, each with a message that says which parameter and why (-32602,
 * INVALID_PARAMS, the input-error fee). Params are positional; a trailing config object carries `commitment`,
 * `encoding`, `minContextSlot` …; anything not checked here is the node's to judge. By-name params (an object) are
 * left to the node as well.
 */
import { errors, type ChaingateError } from '../../errors/index.ts'
import type { MethodValidator } from '../entry.ts'
import { isPubkey } from './base58.ts'
import { readWireTransaction } from './wire-transaction.ts'

/** One check of the params array: the reason it fails ("parameter 1 (pubkey) must be …"), or undefined. */
type Check = (params: readonly unknown[]) => string | undefined

/** Account data encodings (getAccountInfo, getMultipleAccounts, getProgramAccounts, token accounts, subscriptions). */
export const ACCOUNT_ENCODINGS = ['base58', 'base64', 'base64+zstd', 'jsonParsed'] as const
/** Block and transaction encodings (getBlock, getTransaction). */
export const TRANSACTION_ENCODINGS = ['json', 'jsonParsed', 'base58', 'base64'] as const
/** Encodings of a transaction sent or simulated. */
export const WIRE_ENCODINGS = ['base58', 'base64'] as const

/** getMultipleAccounts takes at most 100 keys (https://solana.com/docs/rpc/http/getmultipleaccounts). */
export const MAX_MULTIPLE_ACCOUNTS = 100

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

const PUBKEY = 'must be a base58 public key (32 bytes)'

/** params[at] is a public key. */
export const pubkeyAt =
  (at: number, name: string): Check =>
  (p) =>
    isPubkey(p[at]) ? undefined : `parameter ${at + 1} (${name}) ${PUBKEY}`

/** params[at] is an array of public keys, at most `max` of them. */
export const pubkeysAt =
  (at: number, name: string, max = Number.POSITIVE_INFINITY): Check =>
  (p) => {
    const list = p[at]
    if (!Array.isArray(list)) return `parameter ${at + 1} (${name}) must be an array of base58 public keys`
    if (list.length > max) return `parameter ${at + 1} (${name}) holds ${list.length} keys: at most ${max}`
    const bad = list.findIndex((k) => !isPubkey(k))
    return bad < 0 ? undefined : `parameter ${at + 1} (${name}): entry ${bad + 1} ${PUBKEY}`
  }

/** params[at], when present (null too means absent, as for the node), is a config object with a known encoding. */
export const configAt =
  (at: number, encodings?: readonly string[]): Check =>
  (p) => {
    const c = p[at]
    if (c === undefined || c === null) return undefined
    if (!isObject(c)) return `parameter ${at + 1} (config) must be an object`
    if (
      encodings !== undefined &&
      c.encoding !== undefined &&
      c.encoding !== null &&
      !encodings.includes(c.encoding as string)
    )
      return `parameter ${at + 1} (config): encoding must be one of ${encodings.join(', ')}`
    return undefined
  }

/** getTokenAccountsByOwner/ByDelegate's filter: `{ mint }` or `{ programId }`, a public key. */
export const tokenFilterAt =
  (at: number): Check =>
  (p) => {
    const f = p[at]
    const key = isObject(f) ? (f.mint ?? f.programId) : undefined
    return isObject(f) && (f.mint === undefined) !== (f.programId === undefined) && isPubkey(key)
      ? undefined
      : `parameter ${at + 1} (filter) must be { mint } or { programId } with a base58 public key`
  }

/** params[0] is a transaction in the encoding of the config at params[1] (base58 when not given). */
export const transactionAt0: Check = (p) => {
  const c = p[1]
  const read = readWireTransaction(p[0], isObject(c) ? c.encoding : undefined)
  return read.ok ? undefined : `parameter 1 (transaction) ${read.why}`
}

/** A validator running `checks` in order: the config checks first, so an unknown encoding is named as such. */
export function validate(...checks: Check[]): MethodValidator {
  return (params): ChaingateError | undefined => {
    if (params !== undefined && !Array.isArray(params)) return undefined
    const p = params ?? []
    for (const check of checks) {
      const why = check(p)
      if (why !== undefined) return errors.invalidParams(why)
    }
    return undefined
  }
}

/** getProgramAccounts without `filters` scans every account of the program (a heavy scan). */
export const unfilteredProgramScan = (params: unknown): boolean => {
  const c = Array.isArray(params) ? params[1] : undefined
  const filters = isObject(c) ? c.filters : undefined
  return !Array.isArray(filters) || filters.length === 0
}
