/**
 * Solana requests as the console and `chaingate wallet approvals list` show them: the account, then each
 * transaction as the Solana describer (./solana/) reads it (instructions in SOL and token units, fee, simulation,
 * warnings), or the message as text or hex; Sign-In With Solana is flagged when its domain is not the dapp's.
 */
import type { SolanaTransactionContext } from './solana/index.ts'
import { describeSolanaMessage, describeSolanaTransaction } from './solana/index.ts'
import { isPlainObject } from '../scopes.ts'
import type { MessageView } from './message.ts'
import type { Row } from './types.ts'

export interface SolanaDescribeEnv {
  solanaChains: { chain: string; network: string }[]
  accounts: { address: string; index: number; label: string; solanaAddress?: string }[]
}

export const SOLANA_TITLES: Record<string, string> = {
  signMessage: 'Sign a message (Solana)',
  signIn: 'Sign in with Solana',
  signTransaction: 'Sign a transaction (Solana)',
  signAllTransactions: 'Sign transactions (Solana)',
  signAndSendTransaction: 'Sign and send a transaction (Solana)',
}

export function describeSolanaApproval(
  kind: string,
  request: unknown,
  env: SolanaDescribeEnv,
): { title: string; network: string; rows: Row[]; warnings: string[]; message?: MessageView } {
  const r = isPlainObject(request) ? request : {}
  const scope = String(r.scope ?? '')
  const chain = env.solanaChains.find((c) => c.chain === scope)
  // The CLI may not know an embedded devnet's id (its node names it at start): then the id alone.
  const name = chain?.network ?? (env.solanaChains.length > 0 ? 'not served by this wallet' : 'Solana')
  const network = `${name} (${scope})`
  const address = String(r.address ?? '')
  const own = env.accounts.find((a) => a.solanaAddress === address)
  const account: Row = {
    label: 'Account',
    value: address,
    ...(own ? { detail: `your account #${own.index}${own.label ? ` "${own.label}"` : ''}` } : {}),
  }
  const base = { title: SOLANA_TITLES[kind] ?? kind, network }
  if (typeof r.message === 'string') {
    const m = describeSolanaMessage(r.message)
    const warnings = kind === 'signIn' ? [] : [...m.warnings]
    const s = isPlainObject(r.signIn) ? r.signIn : {}
    if (kind === 'signIn' && s.domainMatches === false)
      warnings.push(
        `The sign-in message names another site than the one asking (${String(s.origin)}): it could be a ` +
          'phishing site signing you in elsewhere. Reject unless you expected this.',
      )
    return {
      ...base,
      rows: [{ label: 'Network', value: network }, account],
      warnings,
      message: { ...(m.text !== undefined ? { text: m.text } : {}), hex: m.hex, bytes: m.bytes },
    }
  }
  const describeEnv = {
    cluster: scope,
    network: name,
    accounts: env.accounts.flatMap((a) => (a.solanaAddress ? [{ ...a, address: a.solanaAddress }] : [])),
  }
  const transactions = Array.isArray(r.transactions) ? r.transactions : []
  const contexts = Array.isArray(r.contexts) ? r.contexts : []
  const rows: Row[] = [account]
  const warnings: string[] = []
  transactions.forEach((tx, i) => {
    const view = describeSolanaTransaction(
      String(tx),
      (contexts[i] ?? undefined) as SolanaTransactionContext | undefined,
      describeEnv,
    )
    const n = transactions.length > 1 ? `Transaction ${i + 1} of ${transactions.length}: ` : ''
    if (n) rows.push({ label: `Transaction ${i + 1} of ${transactions.length}`, value: '' })
    rows.push(...view.rows)
    warnings.push(...view.warnings.map((w) => `${n}${w}`))
  })
  if (r.send === true) rows.push({ label: 'Then', value: 'sent to the network through the gateway' })
  return { ...base, rows, warnings }
}
