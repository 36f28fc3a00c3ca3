/**
 * What a `wallet_createSession` turns into: the proposal the user is asked about (chains and methods the wallet
 * supports, preselected accounts, checked sessionProperties) and the session granted from the user's answer.
 * Pure functions; the request itself is validated first (./scopes.ts).
 */
import { isCaipAccountId, parseCaipAccountId } from '@metamask/utils'
import { isAddress } from 'viem'
import { walletErrors, type ParamProblem } from './errors.ts'
import {
  type CreateSessionParams,
  eip155ChainIdOf,
  isPlainObject,
  isSolanaScope,
  mergeScopeMaps,
  normalizeAddress,
  normalizeScopes,
  type SessionProperties,
  type SessionScopes,
  type StoredSession,
} from './scopes.ts'
import {
  EIP155_METHODS,
  EIP155_NOTIFICATIONS,
  SOLANA_METHODS,
  SOLANA_NOTIFICATIONS,
  WALLET_EIP155,
  WALLET_EIP155_METHODS,
} from './supported-methods.ts'

/** What the user is asked to approve: chains with the methods/notifications the wallet supports there. */
export interface SessionProposal {
  /** Scope key → narrowed methods and notifications (no accounts: the user picks those). */
  scopes: Record<string, { methods: string[]; notifications: string[] }>
  /** Wallet addresses the dapp named and the wallet holds (0x lower-case, base58 as is): preselected at approval. */
  preselectedAccounts: string[]
  sessionProperties: SessionProperties
}

export interface ProposalContext {
  /** eip155 chain IDs the wallet serves. */
  servedChainIds: ReadonlySet<number>
  /** Solana chains (CAIP-2 ids) the wallet serves. */
  servedSolanaChains: ReadonlySet<string>
  /** Addresses the wallet holds: 0x ones in any case, base58 ones exactly. */
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
    else if (isSolanaScope(key)) {
      if (!ctx.servedSolanaChains.has(key)) continue
      scopes[key] = {
        methods: scope.methods.filter((m) => SOLANA_METHODS.includes(m)),
        notifications: scope.notifications.filter((n) => SOLANA_NOTIFICATIONS.includes(n)),
      }
    } else {
      const chainId = eip155ChainIdOf(key)
      if (chainId === undefined || !ctx.servedChainIds.has(chainId)) continue
      scopes[key] = {
        methods: scope.methods.filter((m) => EIP155_METHODS.includes(m)),
        notifications: scope.notifications.filter((n) => EIP155_NOTIFICATIONS.includes(n)),
      }
    }
    accountCandidates.push(...scope.accounts)
  }
  const held = new Set(ctx.walletAddresses.map(normalizeAddress))
  const preselected: string[] = []
  for (const value of accountCandidates) {
    if (!isCaipAccountId(value)) throw walletErrors.invalidCaipAccountId()
    const { chain, address } = parseCaipAccountId(value)
    // eip155: the chain reference is ignored, the address compared case-insensitively (as MetaMask does);
    // solana: the base58 address exactly.
    const a = normalizeAddress(address)
    const ours = (chain.namespace === 'eip155' && isAddress(address, { strict: false })) || chain.namespace === 'solana'
    if (ours && held.has(a) && !preselected.includes(a)) preselected.push(a)
  }
  if (Object.keys(scopes).length === 0) throw walletErrors.scopesNotSupported()
  return { scopes, preselectedAccounts: preselected, sessionProperties }
}

/**
 * sessionProperties: `{}` → 5302; `expiry` (ISO 8601, in the future) and `globalConfig`
 * (object) are kept; malformed values of those two → -32602 naming the field; MetaMask's
 * `solana_accountChanged_notifications` is kept as given (MetaMask does not check its value); other keys are dropped.
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
  if (props.solana_accountChanged_notifications !== undefined)
    out.solana_accountChanged_notifications = props.solana_accountChanged_notifications
  return out
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/

/** The user's answer to a session proposal (console, CLI or auto-approve). */
export interface SessionDecision {
  /** Addresses granted: 0x ones in every eip155 scope (and `wallet:eip155`), base58 ones in every Solana one. */
  accounts: string[]
  /** Chains kept (default: all proposed). */
  scopes?: string[]
  /** Per chain, the methods kept (default: all proposed); unknown names are ignored. */
  methods?: Record<string, string[]>
}

/**
 * Applies a decision to a proposal. Accounts go to every scope of their kind as CAIP-10 (`<scope>:<address>`, so
 * `wallet:eip155:0x…`, `solana:<ref>:<base58>`). A Solana scope granted no Solana account is left out: each of its
 * methods needs one.
 */
export function grantSession(proposal: SessionProposal, decision: SessionDecision): StoredSession {
  const keep = decision.scopes ? new Set(decision.scopes) : undefined
  const addresses = [...new Set(decision.accounts.map(normalizeAddress))]
  const evm = addresses.filter((a) => a.startsWith('0x'))
  const solana = addresses.filter((a) => !a.startsWith('0x'))
  const sessionScopes: SessionScopes = {}
  for (const [key, scope] of Object.entries(proposal.scopes)) {
    if (keep && !keep.has(key)) continue
    const accounts = isSolanaScope(key) ? solana : evm
    if (isSolanaScope(key) && accounts.length === 0) continue
    const wanted = decision.methods?.[key]
    sessionScopes[key] = {
      methods: wanted ? scope.methods.filter((m) => wanted.includes(m)) : [...scope.methods],
      notifications: [...scope.notifications],
      accounts: accounts.map((a) => `${key}:${a}`),
    }
  }
  return { sessionScopes, sessionProperties: { ...proposal.sessionProperties } }
}
