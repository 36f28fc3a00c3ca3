/**
 * The wallet's activity list (table wallet_activity): every answered request, signature and sent transaction, shown
 * in the console. Receipts of sent transactions are filled in later (`pendingReceipts` / `setReceipt`).
 */
import type { Kysely } from 'kysely'
import type { Logger } from 'pino'
import type { Database } from '../db/tables.ts'
import type { Approvals, Asker } from './approvals.ts'
import { describeApproval } from './describe/index.ts'
import { isPlainObject } from './scopes.ts'

export type ActivityOutcome = 'approved' | 'rejected' | 'signed' | 'sent' | 'failed'

export interface ActivityEntry {
  id: number
  at: number
  origin: string
  kind: string
  outcome: ActivityOutcome
  chainId: number | null
  address: string | null
  summary: string
  txHash: string | null
  receiptStatus: 'success' | 'reverted' | null
}

/** Entries kept; older ones are pruned as new ones arrive. */
const MAX_ENTRIES = 5000
const MAX_SUMMARY = 300

export type ActivityRepository = ReturnType<typeof createActivityRepository>

export function createActivityRepository(db: Kysely<Database>, onChange?: () => void) {
  return {
    async record(
      e: Omit<ActivityEntry, 'id' | 'receiptStatus' | 'txHash' | 'chainId' | 'address'> &
        Partial<Pick<ActivityEntry, 'txHash' | 'chainId' | 'address'>>,
    ): Promise<void> {
      const r = await db
        .insertInto('wallet_activity')
        .values({
          at: e.at,
          origin: e.origin,
          kind: e.kind,
          outcome: e.outcome,
          chain_id: e.chainId ?? null,
          address: e.address ?? null,
          summary: e.summary.slice(0, MAX_SUMMARY),
          tx_hash: e.txHash ?? null,
          receipt_status: null,
        })
        // `returning` rather than insertId: PostgreSQL reports no insert id (SQLite 3.35+ supports returning).
        .returning('id')
        .executeTakeFirst()
      const id = Number(r?.id ?? 0)
      if (id > MAX_ENTRIES)
        await db
          .deleteFrom('wallet_activity')
          .where('id', '<=', id - MAX_ENTRIES)
          .execute()
      onChange?.()
    },
    async list(limit = 100): Promise<ActivityEntry[]> {
      const rows = await db.selectFrom('wallet_activity').selectAll().orderBy('id', 'desc').limit(limit).execute()
      return rows.map((r) => ({
        id: r.id,
        at: r.at,
        origin: r.origin,
        kind: r.kind,
        outcome: r.outcome as ActivityOutcome,
        chainId: r.chain_id,
        address: r.address,
        summary: r.summary,
        txHash: r.tx_hash,
        receiptStatus: r.receipt_status as ActivityEntry['receiptStatus'],
      }))
    },
    /** Sent transactions whose receipt is not known yet (newest first, bounded). */
    async pendingReceipts(limit = 20): Promise<{ id: number; chainId: number; txHash: string }[]> {
      const rows = await db
        .selectFrom('wallet_activity')
        .select(['id', 'chain_id', 'tx_hash'])
        .where('tx_hash', 'is not', null)
        .where('receipt_status', 'is', null)
        .where('chain_id', 'is not', null)
        .orderBy('id', 'desc')
        .limit(limit)
        .execute()
      return rows.map((r) => ({ id: r.id, chainId: r.chain_id!, txHash: r.tx_hash! }))
    },
    async setReceipt(id: number, status: 'success' | 'reverted'): Promise<void> {
      await db.updateTable('wallet_activity').set({ receipt_status: status }).where('id', '=', id).execute()
      onChange?.()
    },
  }
}

/** One line for the activity list, from a request as the approval stored it. */
export function activitySummary(kind: string, request: unknown): string {
  if (kind === 'session') {
    const scopes = isPlainObject(request) ? request.scopes : undefined
    const names = isPlainObject(scopes) ? Object.keys(scopes) : []
    return `session for ${names.join(', ') || 'no chains'}`
  }
  const view = describeApproval(kind, request, { chains: [], accounts: [] })
  if (view.transaction) {
    const amount = view.rows.find((x) => x.label === 'Amount')?.value ?? ''
    const to = view.rows.find((x) => x.label === 'To')?.value ?? ''
    return `${amount} to ${to}${view.transaction.call ? ` · ${view.transaction.call.summary}` : ''}`
  }
  if (view.message && kind === 'signIn') return `sign-in "${(view.message.text ?? '').split('\n')[0]?.slice(0, 80)}"`
  if (view.message)
    return view.message.text !== undefined
      ? `message "${view.message.text.slice(0, 80)}"`
      : `binary message (${view.message.bytes} bytes)`
  if (view.typedData)
    return `typed data ${view.typedData.primaryType}${view.typedData.unlimitedPermit ? ' (UNLIMITED permit)' : ''}`
  return view.title
}

/** One approval to ask for, and the chain and address its activity entry records beside the answer. */
export interface ApprovalAsk {
  kind: Parameters<Approvals['request']>[1]
  request: unknown
  signal: AbortSignal
  chainId?: number
  address?: string
}

/** `ask` = approvals.request plus an activity entry for the answer; `note` records without failing the caller. */
export function recordingApprovals(
  approvals: Approvals,
  activity: ActivityRepository | undefined,
  clock: { now(): number },
  logger: Logger,
) {
  const note = (e: Parameters<ActivityRepository['record']>[0]) =>
    void activity?.record(e).catch((err: unknown) => logger.warn({ err }, 'wallet: could not record activity'))
  async function ask(asker: Asker, { kind, request, signal, chainId, address }: ApprovalAsk) {
    const base = { origin: asker.origin, kind, chainId, address, summary: activitySummary(kind, request) }
    try {
      const outcome = await approvals.request(asker, kind, request, signal)
      note({ ...base, at: clock.now(), outcome: 'approved' })
      return outcome
    } catch (e) {
      note({ ...base, at: clock.now(), outcome: 'rejected', summary: `${base.summary} — ${(e as Error).message}` })
      throw e
    }
  }
  return { note, ask }
}
