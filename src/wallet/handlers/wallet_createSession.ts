/**
 * wallet_createSession (CAIP-25, the older revision MetaMask implements): validate, build the proposal, ask the
 * user, grant what they picked. A new session replaces the origin's session (MetaMask: "subsequent
 * wallet_createSession calls overwrite the previous singular session").
 */
import { walletErrors } from '../errors.ts'
import { isPlainObject, normalizeAddress, validateCreateSessionParams } from '../scopes.ts'
import { buildProposal, grantSession, type SessionDecision, type SessionProposal } from '../session-proposal.ts'
import type { WalletMethodHandler } from './types.ts'

/** Keeps only what the proposal offered and accounts the wallet holds. */
export function sanitizeDecision(
  decision: unknown,
  proposal: SessionProposal,
  walletAddresses: string[],
): SessionDecision {
  const d = isPlainObject(decision) ? decision : {}
  const held = new Set(walletAddresses)
  const accounts = Array.isArray(d.accounts)
    ? d.accounts
        .filter((a): a is string => typeof a === 'string')
        .map(normalizeAddress)
        .filter((a) => held.has(a))
    : proposal.preselectedAccounts
  const out: SessionDecision = { accounts }
  if (Array.isArray(d.scopes)) out.scopes = d.scopes.filter((s): s is string => typeof s === 'string')
  if (isPlainObject(d.methods)) {
    out.methods = {}
    for (const [k, v] of Object.entries(d.methods))
      if (Array.isArray(v)) out.methods[k] = v.filter((m): m is string => typeof m === 'string')
  }
  return out
}

export const walletCreateSession: WalletMethodHandler<
  | 'getServedChainIds'
  | 'getServedSolanaChains'
  | 'getWalletAddresses'
  | 'now'
  | 'requestSessionApproval'
  | 'grantSession'
> = {
  methodName: 'wallet_createSession',
  hookNames: {
    getServedChainIds: true,
    getServedSolanaChains: true,
    getWalletAddresses: true,
    now: true,
    requestSessionApproval: true,
    grantSession: true,
  },
  async implementation(params, hooks) {
    const p = validateCreateSessionParams(params)
    const proposal = buildProposal(p, {
      servedChainIds: hooks.getServedChainIds(),
      servedSolanaChains: hooks.getServedSolanaChains(),
      walletAddresses: hooks.getWalletAddresses(),
      now: hooks.now(),
    })
    const decision = await hooks.requestSessionApproval(proposal)
    const granted = grantSession(proposal, sanitizeDecision(decision, proposal, hooks.getWalletAddresses()))
    // Dropping every chain counts as rejecting.
    if (Object.keys(granted.sessionScopes).length === 0) throw walletErrors.userRejected()
    await hooks.grantSession(granted)
    return { sessionScopes: granted.sessionScopes, sessionProperties: granted.sessionProperties }
  },
}
