/**
 * Solana requests as the console and `chaingate wallet approvals list` show them: the network, the account, each
 * transaction (fee payer, signers, blockhash, the simulation run before asking) or the message, and the warnings.
 * Instruction decoding (SOL and SPL amounts, approvals, compute budget) comes from the Solana describer
 * (./solana/) once present; until then the rows below are what the wallet itself checked.
 */
import { isPlainObject } from '../scopes.ts'
import { describeMessage } from './message.ts'
import type { Row } from './types.ts'
import type { MessageView } from './message.ts'

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

interface Simulation {
  ok?: boolean
  err?: unknown
  logs?: string[]
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
  const network = chain
    ? `${chain.network} (${scope})`
    : env.solanaChains.length > 0
      ? `${scope} (not served by this wallet)`
      : scope
  const address = String(r.address ?? '')
  const own = env.accounts.find((a) => a.solanaAddress === address)
  const rows: Row[] = [
    { label: 'Network', value: network },
    {
      label: 'Account',
      value: address,
      ...(own ? { detail: `your account #${own.index}${own.label ? ` "${own.label}"` : ''}` } : {}),
    },
  ]
  const warnings: string[] = []
  const base = { title: SOLANA_TITLES[kind] ?? kind, network }
  if (typeof r.message === 'string') {
    const message = describeMessage(`0x${Buffer.from(r.message, 'base64').toString('hex')}`)
    if (kind === 'signIn') {
      const s = isPlainObject(r.signIn) ? r.signIn : {}
      if (s.domainMatches === false)
        warnings.push(
          `The sign-in message names another site than the one asking (${String(s.origin)}): it could be a ` +
            'phishing site signing you in elsewhere. Reject unless you expected this.',
        )
    } else if (message.text === undefined)
      warnings.push(
        'The message is binary data, not text: sign it only if you know what it is (it may be a transaction).',
      )
    return { ...base, rows, warnings, message }
  }
  const transactions = Array.isArray(r.transactions) ? r.transactions : []
  const contexts = Array.isArray(r.contexts) ? r.contexts : []
  transactions.forEach((tx, i) => {
    const n = transactions.length > 1 ? ` ${i + 1}` : ''
    rows.push({ label: `Transaction${n}`, value: `${Buffer.from(String(tx), 'base64').length} bytes` })
    const sim = (isPlainObject(contexts[i]) ? (contexts[i] as { simulation?: Simulation }).simulation : undefined) ?? {}
    rows.push({
      label: `Simulation${n}`,
      value: sim.ok ? 'succeeds on the current state' : `fails: ${JSON.stringify(sim.err ?? 'unknown')}`,
      ...(sim.logs?.length ? { detail: sim.logs.slice(-5).join('\n') } : {}),
    })
    if (sim.ok === false) warnings.push(`The simulation of transaction${n} failed: it would not succeed as it is.`)
  })
  if (r.send === true) rows.push({ label: 'Then', value: 'sent to the network through the gateway' })
  return { ...base, rows, warnings }
}
