/**
 * `chaingate wallet approvals list|approve|reject`: the headless answer to what waits in the console. The list
 * shows each request as the console does (src/wallet/describe); `--json` gives the stored rows for scripts.
 */
import { approvalLines, approvalTitle } from '../wallet/describe/text.ts'
import { isSolanaScope, normalizeAddress } from '../wallet/scopes.ts'
import { UsageError, type WalletCommandEnv } from './wallet-command-env.ts'
import { tryUnlock } from './wallet-keystore-commands.ts'

const inTime = (ms: number) => (ms >= 60_000 ? `${Math.floor(ms / 60_000)} min` : `${Math.ceil(ms / 1000)} s`)

export async function approvalsCommand(e: WalletCommandEnv): Promise<number> {
  const { action, arg, values, repository, now, print } = e
  if (action === 'list') {
    const pending = (await repository.listApprovals('pending')).filter((p) => p.expiresAt > now)
    const env = e.json ? { chains: [], accounts: [] } : await e.describeEnv()
    const human = pending.map((p) =>
      [
        `${p.id}  ${approvalTitle(p.kind, p.request, env)}  from ${p.origin}` +
          `  (expires in ${inTime(p.expiresAt - now)})`,
        ...approvalLines(p.kind, p.request, env).map((l) => `    ${l}`),
      ].join('\n'),
    )
    print(human.join('\n\n') || '(nothing waiting)', pending)
    return 0
  }
  if (action !== 'approve' && action !== 'reject')
    throw new UsageError(`unknown command: wallet approvals ${action ?? ''}`)
  if (!arg) throw new UsageError(`usage: wallet approvals ${action} <id>`)
  const row = await repository.getApproval(arg)
  if (!row) throw new UsageError(`no approval ${arg}`)
  if (row.status !== 'pending') throw new UsageError(`approval ${arg} is ${row.status}, not pending`)
  let decision: unknown
  if (action === 'approve') {
    const list = (v: string | undefined) =>
      v
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    const d: Record<string, unknown> = {}
    if (row.kind === 'session') {
      const requested = row.request as { preselectedAccounts?: string[]; scopes?: Record<string, unknown> }
      const wantsSolana = Object.keys(requested.scopes ?? {}).some(isSolanaScope)
      const listed = await repository.listAccounts()
      // Solana addresses (same index) need the keys: only when the request has a Solana chain.
      const keyring = wantsSolana ? tryUnlock(e) : undefined
      const evm = listed.map((a) => a.address)
      const solana = keyring ? listed.map((a) => keyring.solana.addressAt(a.index)) : []
      const held = new Set([...evm, ...solana])
      const accounts = list(values.accounts)?.map(normalizeAddress)
      for (const a of accounts ?? []) if (!held.has(a)) throw new UsageError(`the wallet holds no account ${a}`)
      // Default: the dapp's preselected accounts, else the first account (its EVM and, if asked, Solana address).
      const pre = requested.preselectedAccounts ?? []
      d.accounts = accounts ?? [
        ...pre,
        ...(pre.some((a) => a.startsWith('0x')) ? [] : evm.slice(0, 1)),
        ...(pre.some((a) => !a.startsWith('0x')) ? [] : solana.slice(0, 1)),
      ]
      if (values.scopes) d.scopes = list(values.scopes)
    }
    decision = d
  }
  const ok = await repository.decideApproval(
    arg,
    { status: action === 'approve' ? 'approved' : 'rejected', decision, by: 'cli' },
    now,
  )
  if (!ok) throw new UsageError(`approval ${arg} was answered or expired meanwhile`)
  print(`${action === 'approve' ? 'approved' : 'rejected'} ${arg}`, {
    id: arg,
    status: action === 'approve' ? 'approved' : 'rejected',
    decision,
  })
  return 0
}
