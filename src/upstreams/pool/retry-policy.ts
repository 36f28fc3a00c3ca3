/**
 * What may be retried or hedged, judged from the method name and the node's answer bytes (no parse of a normal
 * answer). A node's answer to the call itself — invalid params, an execution revert — is the client's and goes
 * back as it is; only answers that say "this node cannot answer this yet" (null / not found from a node behind,
 * pruned state) are tried on another node.
 */
import type { Hex } from 'viem'
import { keccak_256 } from '@noble/hashes/sha3'
import { ALL_METHODS, anyMethodsWhere, catalogFor, evmNamespaces } from '../../methods/catalog.ts'
import { isHexBytes } from '../../shared/hex.ts'

export type CallKind =
  /** Reads: retried on another node after any failure, hedged when slow. */
  | 'read'
  /**
   * eth_sendRawTransaction, Solana's sendTransaction: the same signed bytes can be sent again safely (one nonce; one
   * signature); retried, never hedged.
   */
  | 'send-raw'
  /** Node-local or state-changing methods: retried only when the node surely did not get the request. */
  | 'unsafe'
  /** A batch (method unknown to the pool): retried on failure to answer, as a whole; never hedged. */
  | 'batch'

const KIND_OF_RETRY = { read: 'read', write: 'send-raw', 'node-local': 'unsafe' } as const

/** The catalogs' retry class per method (src/methods/catalog.ts; names are unique across families). */
const KINDS: ReadonlyMap<string, CallKind> = new Map(
  [...ALL_METHODS].flatMap(([m, e]) => (e.retry === undefined ? [] : [[m, KIND_OF_RETRY[e.retry]] as const])),
)

/**
 * A method outside the catalog (a network's `methods.allow` may add any): node-local when its name says it signs,
 * mines, administers, filters or subscribes, else a read.
 */
const UNSAFE_OUTSIDE_CATALOG = new RegExp(
  `^(${evmNamespaces((n) => n.nodeLocal === true)}|eth_sign|eth_submit|eth_(new|uninstall)\\w*Filter$)`,
)

export function callKind(method: string | undefined): CallKind {
  if (method === undefined) return 'batch'
  return KINDS.get(method) ?? (UNSAFE_OUTSIDE_CATALOG.test(method) ? 'unsafe' : 'read')
}

/** Reads whose null answer means "not there yet" on a node behind the chain (worth asking a node further ahead). */
const BLOCK_BOUND: ReadonlySet<string> = new Set(anyMethodsWhere((e) => e.blockBound === true))

/**
 * Solana's "not there yet" errors (Agave's rpc/src/custom_error.rs, https://solana.com/docs/rpc): on any read, -32005
 * (node unhealthy or behind) and -32016 (minimum context slot not reached); on a slot-bound read (blockBound), also
 * -32004 (block not available for the slot), -32007 and -32009 (slot skipped, or missing on this node: another may
 * hold it), -32014 (block status not yet available). Only for Solana's methods: EVM nodes use some of these codes for
 * other things (-32005 "limit exceeded").
 */
const SOLANA: ReadonlySet<string> = new Set(catalogFor('solana').keys())
const SOLANA_BEHIND = /"code"\s*:\s*-320(05|16)\b/
const SOLANA_SLOT_MISSING = /"code"\s*:\s*-320(04|07|09|14)\b/
/** A context-wrapped Solana answer (`{"context":{…},"value":null}`) for an account this node has not seen. */
const NULL_VALUE = Buffer.from('"value":null')
/** Solana's slot-bound reads (an object answer is looked into for them only: one lookup). */
const SOLANA_BOUND: ReadonlySet<string> = new Set([...SOLANA].filter((m) => BLOCK_BOUND.has(m)))
const OPEN_BRACE = 0x7b

/**
 * Node texts for data the node does not have (pruned state, unknown block), whatever the code; and a method this
 * node does not have (-32601, or an "unsupported method" text: a node without the trace or debug namespace, say)
 * while the network serves it — another node may have it (eRPC retries those too:
 * https://docs.erpc.cloud/reference/errors).
 */
export const MISSING_DATA = new RegExp(
  [
    'header not found',
    'missing trie node',
    'unknown block',
    'block not found',
    'could not find block',
    'historical state .* is not available',
    'required historical state unavailable',
  ].join('|'),
  'i',
)
/** A method this node lacks (tested on an error's message; the body test below also looks for the -32601 code). */
export const NO_METHOD = /method not found|unsupported method|method .{0,80}(is )?not supported/i
/** Either, in an answer's bytes: one regular expression, one test per small error answer. */
const WEAK_ERROR = new RegExp(`${MISSING_DATA.source}|"code"\\s*:\\s*-32601\\b|${NO_METHOD.source}`, 'i')

const RESULT_KEY = Buffer.from('"result":')
const N = 0x6e // n (null)
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const QUOTE = 0x22

/**
 * An answer that should not win a race or end the call while another node may do better: null or empty for a
 * read, or a missing-data error. `missing`: another node further ahead may have it; `empty`: a legitimate answer
 * that is kept unless another node has something. Only small answers are looked at (big ones hold data), with
 * one search for the result key.
 */
export function weakAnswer(method: string, body: Buffer): 'missing' | 'empty' | undefined {
  if (body.length > 512) return undefined
  const at = body.indexOf(RESULT_KEY)
  if (at < 0) return body.includes('"error"') && weakError(method, body.toString()) ? 'missing' : undefined
  const v = at + RESULT_KEY.length
  const c = body[v]
  if (c === N) return BLOCK_BOUND.has(method) ? 'missing' : 'empty'
  if (c === OPEN_BRACE && SOLANA_BOUND.has(method) && body.includes(NULL_VALUE, v)) return 'missing'
  if (c === OPEN_BRACKET && body[v + 1] === CLOSE_BRACKET) return 'empty'
  if (c === QUOTE && body[v + 1] === 0x30 && body[v + 2] === 0x78 && body[v + 3] === QUOTE) return 'empty' // "0x"
  return undefined
}

/** A small error answer's text that means another node may do better. */
function weakError(method: string, text: string): boolean {
  if (WEAK_ERROR.test(text)) return true
  return SOLANA.has(method) && (SOLANA_BEHIND.test(text) || (BLOCK_BOUND.has(method) && SOLANA_SLOT_MISSING.test(text)))
}

/** The transaction hash and the call's id of an eth_sendRawTransaction body; undefined when it holds no raw bytes. */
export function rawTransactionOf(body: string | Buffer): { hash: Hex; id: unknown } | undefined {
  try {
    const call = JSON.parse(body.toString()) as { id?: unknown; params?: unknown[] }
    const raw = call.params?.[0]
    if (!isHexBytes(raw)) return undefined
    const hash = `0x${Buffer.from(keccak_256(Buffer.from(raw.slice(2), 'hex'))).toString('hex')}` as Hex
    return { hash, id: call.id }
  } catch {
    return undefined
  }
}

export const ALREADY_KNOWN =
  /already known|known transaction|already imported|transaction already exists|already in (the )?(mempool|pool)/i
const NONCE_TOO_LOW = /nonce too low|nonce has already been used|invalid nonce|oldnonce/i

/** The answer to the client's eth_sendRawTransaction when the node already has the transaction. */
export const txHashAnswer = (id: unknown, hash: string) =>
  Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(id ?? null)},"result":"${hash}"}`)

/**
 * A node's error answer to a transaction it already has: "already known" always means this very transaction;
 * "nonce too low" only when the gateway relayed this hash before (otherwise another transaction used the nonce).
 */
export function isAlreadySent(body: Buffer, relayedBefore: boolean): boolean {
  if (body.length > 2048 || !body.includes('"error"')) return false
  const text = body.toString()
  return ALREADY_KNOWN.test(text) || (relayedBefore && NONCE_TOO_LOW.test(text))
}

/** A bounded set of transaction hashes the gateway relayed (oldest forgotten first). */
export class RelayedTransactions {
  private readonly hashes = new Set<string>()
  private readonly max: number
  constructor(max = 10_000) {
    this.max = max
  }
  add(hash: string): void {
    this.hashes.delete(hash)
    this.hashes.add(hash)
    if (this.hashes.size > this.max) this.hashes.delete(this.hashes.values().next().value!)
  }
  has(hash: string): boolean {
    return this.hashes.has(hash)
  }
}
