/**
 * CAIP-25 scope rules for `wallet_createSession` (the older revision MetaMask implements): validation,
 * `references` expansion, duplicate merge, support filtering, dapp-supplied accounts and sessionProperties.
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
import { EIP155_METHODS, EIP155_NOTIFICATIONS, WALLET_EIP155, WALLET_EIP155_METHODS } from './supported-methods.ts'

/** A scope as the wallet stores and shows it (CAIP-217 subset). */
export interface SessionScope {
  methods: string[]
  notifications: string[]
  /** CAIP-10 account IDs, lower-case addresses (`eip155:1:0xabc…`). */
  accounts: string[]
}

export type SessionScopes = Record<string, SessionScope>

export interface SessionProperties {
  /** ISO 8601 time after which the session ends as if revoked (docs/wallet.md). */
  expiry?: string
  /** Free-form object kept and shown as given (docs/wallet.md). */
  globalConfig?: Record<string, unknown>
}

export interface StoredSession {
  sessionScopes: SessionScopes
  sessionProperties: SessionProperties
}

export {
  EIP155_METHODS,
  EIP155_NOTIFICATIONS,
  EIP155_SIGNING_METHODS,
  WALLET_EIP155,
  WALLET_EIP155_METHODS,
} from './supported-methods.ts'

const EIP155_REFERENCE = /^(0|[1-9][0-9]*)$/
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/
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

/** What the user is asked to approve: chains with the methods/notifications the wallet supports there. */
export interface SessionProposal {
  /** Scope key → narrowed methods and notifications (no accounts: the user picks those). */
  scopes: Record<string, { methods: string[]; notifications: string[] }>
  /** Wallet addresses (lower-case) the dapp named and the wallet holds: preselected at approval. */
  preselectedAccounts: string[]
  sessionProperties: SessionProperties
}

export interface ProposalContext {
  /** eip155 chain IDs the wallet serves. */
  servedChainIds: ReadonlySet<number>
  /** Addresses the wallet holds (any case). */
  walletAddresses: readonly string[]
  now: number
}

/**
 * Turns validated `wallet_createSession` params into a proposal, with MetaMask's precedence:
 * 5302 for `{}` sessionProperties → scope drops → malformed accounts (-32603 "Invalid CAIP account ID.") → 5100
 * when nothing is left. Unlike MetaMask, granted chain methods are the requested ones the wallet supports (the
 * spec's "may be narrower"); `wallet:eip155` always carries wallet_addEthereumChain, as in MetaMask.
 */
export function buildProposal(params: CreateSessionParams, ctx: ProposalContext): SessionProposal {
  const sessionProperties = parseSessionProperties(params.sessionProperties, ctx.now)
  const requested = mergeScopeMaps(normalizeScopes(params.requiredScopes), normalizeScopes(params.optionalScopes))
  const scopes: SessionProposal['scopes'] = {}
  const accountCandidates: string[] = []
  for (const [key, scope] of Object.entries(requested)) {
    if (key === WALLET_EIP155) scopes[key] = { methods: [...WALLET_EIP155_METHODS], notifications: [] }
    else {
      const chainId = eip155ChainIdOf(key)
      if (chainId === undefined || !ctx.servedChainIds.has(chainId)) continue
      scopes[key] = {
        methods: scope.methods.filter((m) => EIP155_METHODS.includes(m)),
        notifications: scope.notifications.filter((n) => EIP155_NOTIFICATIONS.includes(n)),
      }
    }
    accountCandidates.push(...scope.accounts)
  }
  const held = new Set(ctx.walletAddresses.map((a) => a.toLowerCase()))
  const preselected: string[] = []
  for (const value of accountCandidates) {
    if (!isCaipAccountId(value)) throw walletErrors.invalidCaipAccountId()
    const { chain, address } = parseCaipAccountId(value)
    // eip155: the chain reference is ignored, the address compared case-insensitively (as MetaMask does).
    const a = address.toLowerCase()
    if (chain.namespace === 'eip155' && EVM_ADDRESS.test(address) && held.has(a) && !preselected.includes(a))
      preselected.push(a)
  }
  if (Object.keys(scopes).length === 0) throw walletErrors.scopesNotSupported()
  return { scopes, preselectedAccounts: preselected, sessionProperties }
}

/**
 * sessionProperties: `{}` → 5302; `expiry` (ISO 8601, in the future) and `globalConfig`
 * (object) are kept; malformed values of those two → -32602 naming the field; other keys are dropped.
 */
export function parseSessionProperties(props: Record<string, unknown> | undefined, now: number): SessionProperties {
  if (props === undefined) return {}
  if (Object.keys(props).length === 0) throw walletErrors.invalidSessionProperties()
  const out: SessionProperties = {}
  const problems: ParamProblem[] = []
  if (props.expiry !== undefined) {
    const t = typeof props.expiry === 'string' && ISO_8601.test(props.expiry) ? Date.parse(props.expiry) : Number.NaN
    if (Number.isNaN(t)) problems.push({ path: 'sessionProperties.expiry', problem: 'is not an ISO 8601 date-time' })
    else if (t <= now) problems.push({ path: 'sessionProperties.expiry', problem: 'is not in the future' })
    else out.expiry = props.expiry as string
  }
  if (props.globalConfig !== undefined) {
    if (!isPlainObject(props.globalConfig))
      problems.push({ path: 'sessionProperties.globalConfig', problem: 'is not of a type(s) object' })
    else out.globalConfig = props.globalConfig
  }
  if (problems.length > 0) throw walletErrors.invalidParams(problems)
  return out
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/

/** The user's answer to a session proposal (console, CLI or auto-approve). */
export interface SessionDecision {
  /** Addresses granted in every chain scope. */
  accounts: string[]
  /** Chains kept (default: all proposed). */
  scopes?: string[]
  /** Per chain, the methods kept (default: all proposed); unknown names are ignored. */
  methods?: Record<string, string[]>
}

/**
 * Applies a decision to a proposal. Accounts go to every scope as CAIP-10 (`<scope>:<address>`, so
 * `wallet:eip155:0x…`).
 */
export function grantSession(proposal: SessionProposal, decision: SessionDecision): StoredSession {
  const keep = decision.scopes ? new Set(decision.scopes) : undefined
  const addresses = [...new Set(decision.accounts.map((a) => a.toLowerCase()))]
  const sessionScopes: SessionScopes = {}
  for (const [key, scope] of Object.entries(proposal.scopes)) {
    if (keep && !keep.has(key)) continue
    const wanted = decision.methods?.[key]
    sessionScopes[key] = {
      methods: wanted ? scope.methods.filter((m) => wanted.includes(m)) : [...scope.methods],
      notifications: [...scope.notifications],
      accounts: addresses.map((a) => `${key}:${a}`),
    }
  }
  return { sessionScopes, sessionProperties: { ...proposal.sessionProperties } }
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
  const a = address.toLowerCase()
  const sessionScopes: SessionScopes = {}
  for (const [k, v] of Object.entries(session.sessionScopes))
    sessionScopes[k] = { ...v, accounts: v.accounts.filter((acc) => addressOf(acc) !== a) }
  return { ...session, sessionScopes }
}

/** Address part of a CAIP-10 account ID, lower-case ('' when it is not one). */
export function addressOf(accountId: string): string {
  return isCaipAccountId(accountId) ? parseCaipAccountId(accountId).address.toLowerCase() : ''
}
