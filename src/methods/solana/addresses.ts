/**
 * How to read the accounts a Solana call names, for a key's address allowlist (src/keys/security/addresses.ts applies
 * the readers the catalog names; src/methods/addresses.ts has the EVM's). Addresses are base58 public keys, kept as
 * written (base58 is case-sensitive). An empty result means "none readable, or any account": refused for a key with
 * an address allowlist; null means the call names no account.
 */
import type { AddressExtractor } from '../entry.ts'
import { base58Encode, isPubkey } from './base58.ts'
import { readWireTransaction } from './wire-transaction.ts'

const NONE: string[] = []

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

const at = (p: unknown, i: number) => (Array.isArray(p) ? p[i] : undefined)

const keys = (list: unknown): string[] =>
  Array.isArray(list) && list.length > 0 && list.every(isPubkey) ? [...(list as string[])] : NONE

/** `[pubkey, …]`: the account (program, mint, token account) asked about. */
export const firstPubkey: AddressExtractor = (p) => {
  const k = at(p, 0)
  return isPubkey(k) ? [k] : NONE
}

/** `[[pubkey, …], …]`: every key of the list (getMultipleAccounts, getInflationReward). */
export const pubkeyList: AddressExtractor = (p) => keys(at(p, 0))

/** getRecentPrioritizationFees: fees of the accounts listed, or of the whole cluster when none are. */
export const optionalPubkeyList: AddressExtractor = (p) => {
  const list = at(p, 0)
  return list === undefined || list === null || (Array.isArray(list) && list.length === 0) ? null : keys(list)
}

/**
 * A transaction's static account keys; one with address-table lookups (v0) may load accounts it does not name, so
 * it may reach any account ([]). Unreadable bytes name none readable ([]).
 */
function transactionKeys(p: unknown): string[] {
  const config = at(p, 1)
  const read = readWireTransaction(at(p, 0), isObject(config) ? config.encoding : undefined)
  if (!read.ok || read.tx.lookups > 0 || read.tx.accountKeys.length === 0) return NONE
  return read.tx.accountKeys.map(base58Encode)
}

/** sendTransaction: the accounts its transaction names. */
export const sentTransactionKeys: AddressExtractor = transactionKeys

/** simulateTransaction: the accounts its transaction names, and those whose state it asks back (`accounts`). */
export const simulatedTransactionKeys: AddressExtractor = (p) => {
  const named = transactionKeys(p)
  const config = at(p, 1)
  const asked = isObject(config) && isObject(config.accounts) ? config.accounts.addresses : undefined
  if (named.length === 0 || asked === undefined) return named
  const more = keys(asked)
  return Array.isArray(asked) && asked.length === 0 ? named : more.length === 0 ? NONE : [...named, ...more]
}

/** logsSubscribe: `{ mentions: [pubkey] }` names its account; `all` and `allWithVotes` reach any. */
export const logsMentions: AddressExtractor = (p) => {
  const filter = at(p, 0)
  return isObject(filter) ? keys(filter.mentions) : NONE
}

/** blockSubscribe: `{ mentionsAccountOrProgram: pubkey }` names its account; `all` reaches any. */
export const blockMentions: AddressExtractor = (p) => {
  const filter = at(p, 0)
  const k = isObject(filter) ? filter.mentionsAccountOrProgram : undefined
  return isPubkey(k) ? [k] : NONE
}
