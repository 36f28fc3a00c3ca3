/**
 * CAIP-25 scope rules for `wallet_createSession` (the older revision MetaMask implements): validation,
 * `references` expansion, duplicate merge; the stored session's shape and its edits (partial revoke, account
 * removed). Support filtering, dapp-supplied accounts and sessionProperties: ./session-proposal.ts.
 * Pure functions. CAIP-2/CAIP-10 grammar from `@metamask/utils`; the rules follow MetaMask's
 * chain-agnostic-permission package (https://github.com/MetaMask/core/tree/main/packages/chain-agnostic-permission).
 */
import {
  isCaipAccountId,
  isCaipChainId,
  isCaipNamespace,
  isCaipReference,
  parseCaipAccountId,
  parseCaipChainId,
} from '@metamask/utils'
import { walletErrors, type ParamProblem } from './errors.ts'

/** A scope as the wallet stores and shows it (CAIP-217 subset). */
export interface SessionScope {
  methods: string[]
  notifications: string[]
  /** CAIP-10 account IDs: eip155 addresses lower-case (`eip155:1:0xabc…`), Solana ones base58 as they are. */
  accounts: string[]
}

export type SessionScopes = Record<string, SessionScope>

export interface SessionProperties {
  /** ISO 8601 time after which the session ends as if revoked (docs/wallet.md). */
  expiry?: string
  /** Free-form object kept and shown as given (docs/wallet.md). */
  globalConfig?: Record<string, unknown>
  /** MetaMask's session property, kept as given (its value is not checked, as in MetaMask). */
  solana_accountChanged_notifications?: unknown
}

export interface StoredSession {
  sessionScopes: SessionScopes
  sessionProperties: SessionProperties
}

export {
  SOLANA_METHODS,
  SOLANA_NOTIFICATIONS,
  EIP155_METHODS,
  EIP155_NOTIFICATIONS,
  EIP155_SIGNING_METHODS,
  WALLET_EIP155,
  WALLET_EIP155_METHODS,
} from './supported-methods.ts'

const EIP155_REFERENCE = /^(0|[1-9][0-9]*)$/
const SCOPE_KEYS = new Set(['references', 'methods', 'notifications', 'accounts', 'rpcDocuments', 'rpcEndpoints'])

export function parseScopeString(scope: string): { namespace?: string; reference?: string } {
  if (isCaipNamespace(scope)) return { namespace: scope }
  return isCaipChainId(scope) ? parseCaipChainId(scope) : {}
}

/** `eip155:<n>` → n, else undefined (`eip155:0x1`, `eip155:01` are not eip155 chain IDs). */
export function eip155ChainIdOf(scope: string): number | undefined {
  const { namespace, reference } = parseScopeString(scope)
  if (namespace !== 'eip155' || reference === undefined || !EIP155_REFERENCE.test(reference)) return undefined
  const n = Number(reference)
  return Number.isSafeInteger(n) ? n : undefined
}

/** Whether `scope` is a Solana chain (`solana:<ref>`); its address case matters (base58). */
export const isSolanaScope = (scope: string): boolean => scope.startsWith('solana:')

/** An address as sessions compare it: 0x addresses lower-case, anything else (base58) as it is. */
export const normalizeAddress = (address: string): string => (/^0x/i.test(address) ? address.toLowerCase() : address)

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string')

export interface CreateSessionParams {
  requiredScopes?: Record<string, unknown>
  optionalScopes?: Record<string, unknown>
  sessionProperties?: Record<string, unknown>
}

/**
 * The schema check MetaMask runs before the handler: the shape of each declared param, each
 * scope object's `methods`/`notifications` present and arrays of strings. Throws -32602 naming every bad field.
 */
export function validateCreateSessionParams(params: unknown): CreateSessionParams {
  if (params === undefined || params === null) return {}
  if (!isPlainObject(params))
    throw walletErrors.invalidParams([{ path: 'params', problem: 'is not of a type(s) object' }])
  const problems: ParamProblem[] = []
  for (const name of ['requiredScopes', 'optionalScopes'] as const) {
    const scopes = params[name]
    if (scopes === undefined) continue
    if (!isPlainObject(scopes)) {
      problems.push({ path: name, problem: 'is not of a type(s) object' })
      continue
    }
    for (const [key, obj] of Object.entries(scopes)) {
      const at = `${name}.${key}`
      if (!isPlainObject(obj)) {
        problems.push({ path: at, problem: 'is not of a type(s) object' })
        continue
      }
      for (const field of ['methods', 'notifications'] as const) {
        if (obj[field] === undefined) problems.push({ path: at, problem: `requires property "${field}"` })
        else if (!isStringArray(obj[field]))
          problems.push({ path: `${at}.${field}`, problem: 'is not of a type(s) array of string' })
      }
      for (const field of ['references', 'accounts'] as const) {
        if (obj[field] !== undefined && !isStringArray(obj[field]))
          problems.push({ path: `${at}.${field}`, problem: 'is not of a type(s) array of string' })
      }
    }
  }
  if (params.sessionProperties !== undefined && !isPlainObject(params.sessionProperties))
    problems.push({ path: 'sessionProperties', problem: 'is not of a type(s) object' })
  if (problems.length > 0) throw walletErrors.invalidParams(problems)
  return params as CreateSessionParams
}

export interface RequestedScope {
  methods: string[]
  notifications: string[]
  accounts: string[]
}

/**
 * CAIP-217 validity. Invalid scopes are dropped silently, as MetaMask does: unparseable key, a bare
 * namespace without `references`, `references` on a chain key or malformed, blank method names, unknown members.
 */
export function isValidScope(
  key: string,
  obj: unknown,
): obj is Record<string, unknown> & { methods: string[]; notifications: string[] } {
  if (!isPlainObject(obj)) return false
  const { namespace, reference } = parseScopeString(key)
  if (namespace === undefined) return false
  if (!isStringArray(obj.methods) || !isStringArray(obj.notifications)) return false
  const refs = obj.references
  if (namespace !== 'wallet' && reference === undefined && (!isStringArray(refs) || refs.length === 0)) return false
  if (refs !== undefined) {
    if (reference !== undefined) return false
    if (!isStringArray(refs) || !refs.every((r) => isCaipReference(r))) return false
  }
  if (![...obj.methods, ...obj.notifications].every((m) => m.trim() !== '')) return false
  if (obj.accounts !== undefined && !isStringArray(obj.accounts)) return false
  return Object.keys(obj).every((k) => SCOPE_KEYS.has(k))
}

const union = (a: string[], b: string[]): string[] => [...new Set([...a, ...b])]

/** Ordered union of two requests for the same scope (either may be absent the first time a key is seen). */
const mergeScope = (prev: RequestedScope | undefined, s: RequestedScope): RequestedScope => ({
  methods: union(prev?.methods ?? [], s.methods),
  notifications: union(prev?.notifications ?? [], s.notifications),
  accounts: union(prev?.accounts ?? [], s.accounts),
})

/**
 * Drops invalid scopes, expands `references` on namespace keys into one chain scope each, and merges duplicate
 * keys (ordered union of methods, notifications and accounts).
 */
export function normalizeScopes(scopes: Record<string, unknown> | undefined): Record<string, RequestedScope> {
  const out: Record<string, RequestedScope> = {}
  for (const [key, obj] of Object.entries(scopes ?? {})) {
    if (!isValidScope(key, obj)) continue
    const refs = isStringArray(obj.references) ? obj.references : undefined
    const keys = refs && refs.length > 0 ? refs.map((r) => `${key}:${r}`) : [key]
    const scope: RequestedScope = {
      methods: obj.methods,
      notifications: obj.notifications,
      accounts: isStringArray(obj.accounts) ? obj.accounts : [],
    }
    for (const k of keys) out[k] = mergeScope(out[k], scope)
  }
  return out
}

/** Merges required and optional scopes (required first): `requiredScopes` is treated exactly as optional. */
export function mergeScopeMaps(...maps: Record<string, RequestedScope>[]): Record<string, RequestedScope> {
  const out: Record<string, RequestedScope> = {}
  for (const m of maps) {
    for (const [k, s] of Object.entries(m)) out[k] = mergeScope(out[k], s)
  }
  return out
}

/** Removes scopes (partial revoke). Returns undefined when the session should end entirely. */
export function removeScopes(session: StoredSession, scopes: string[]): StoredSession | undefined {
  const sessionScopes: SessionScopes = {}
  for (const [k, v] of Object.entries(session.sessionScopes)) if (!scopes.includes(k)) sessionScopes[k] = v
  // Only wallet-level scopes left (`wallet:eip155`): the session ends, as in MetaMask's partial revoke.
  if (Object.keys(sessionScopes).every((k) => k === 'wallet' || k.startsWith('wallet:'))) return undefined
  // Removing the last account-bearing scope ends the session, unless it never had accounts.
  const hadAccounts = Object.values(session.sessionScopes).some((s) => s.accounts.length > 0)
  if (hadAccounts && Object.values(sessionScopes).every((s) => s.accounts.length === 0)) return undefined
  return { ...session, sessionScopes }
}

/** Removes one address from every scope (account removed from the wallet). */
export function removeAccount(session: StoredSession, address: string): StoredSession {
  const a = normalizeAddress(address)
  const sessionScopes: SessionScopes = {}
  for (const [k, v] of Object.entries(session.sessionScopes))
    sessionScopes[k] = { ...v, accounts: v.accounts.filter((acc) => addressOf(acc) !== a) }
  return { ...session, sessionScopes }
}

/** Address part of a CAIP-10 account ID, compared as normalizeAddress says ('' when it is not one). */
export function addressOf(accountId: string): string {
  return isCaipAccountId(accountId) ? normalizeAddress(parseCaipAccountId(accountId).address) : ''
}
