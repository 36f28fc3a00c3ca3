/**
 * Requests that wait for the wallet's user. Each is a database row (so the CLI can list and answer it while the
 * server runs) plus an in-process waiter. Answers come from the console (in process), the CLI (picked up by
 * `poll()`), or auto-approve. A request nobody answers expires after `timeoutMs` (4001 with reason
 * `approval_timeout`); one whose connection closes, whose session ends, or that is still waiting when the wallet
 * stops is cancelled (4001).
 */
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import { walletErrors } from './errors.ts'
import type { ApprovalKind, ApprovalRow, WalletRepository } from './repository.ts'

/**
 * Requests of one pairing (a dapp's connections holding one pairing secret; an unpaired connection is its own) that
 * may wait for the user at the same time. Counted per pairing, not per origin: a local program claiming a dapp's
 * origin cannot fill the dapp's slots.
 */
export const MAX_PENDING_PER_PAIRING = 20

/** Who asks: the origin shown to the user and the pairing (sha256 of its secret) the cap counts. */
export interface Asker {
  origin: string
  pairing: string
}

export interface ApprovalOutcome {
  decision: unknown
  by: string
}

interface Waiter {
  origin: string
  pairing: string
  kind: ApprovalKind
  request: unknown
  resolve(o: ApprovalOutcome): void
  reject(e: unknown): void
  timer: NodeJS.Timeout
  onSettled?: () => void
}

export interface ApprovalsDeps {
  repository: WalletRepository
  clock: { now(): number }
  logger: Logger
  timeoutMs: number
  /** Returns the decision to auto-approve with, or undefined to ask the user. */
  autoDecision?: (kind: ApprovalKind, request: unknown) => unknown
  /** Called whenever the set of pending approvals changes (console refresh). */
  onChange?: () => void
}

export type Approvals = ReturnType<typeof createApprovals>

export function createApprovals(deps: ApprovalsDeps) {
  const waiters = new Map<string, Waiter>()
  /**
   * Requests per pairing counted from the moment they arrive (before the database insert), so a burst cannot pass
   * the cap.
   */
  const counted = new Map<string, number>()
  const uncount = (pairing: string) => {
    const n = (counted.get(pairing) ?? 1) - 1
    if (n <= 0) counted.delete(pairing)
    else counted.set(pairing, n)
  }

  const settle = (id: string, row: Pick<ApprovalRow, 'status' | 'decision' | 'decidedBy'>) => {
    const w = waiters.get(id)
    if (!w) return
    waiters.delete(id)
    uncount(w.pairing)
    clearTimeout(w.timer)
    if (row.status === 'approved') w.resolve({ decision: row.decision, by: row.decidedBy ?? 'unknown' })
    else if (row.status === 'expired') w.reject(walletErrors.approvalTimedOut(deps.timeoutMs))
    else if (row.decidedBy === 'session_ended' || row.decidedBy === 'shutdown')
      w.reject(walletErrors.cancelled(row.decidedBy))
    else w.reject(walletErrors.userRejected())
    deps.onChange?.()
  }

  const api = {
    /**
     * Asks the user. Resolves with the decision when approved; rejects 4001 when rejected, expired or cancelled.
     * `signal` cancels it (the dapp's connection closed).
     */
    async request(
      { origin, pairing }: Asker,
      kind: ApprovalKind,
      request: unknown,
      signal?: AbortSignal,
    ): Promise<ApprovalOutcome> {
      const auto = deps.autoDecision?.(kind, request)
      if (auto !== undefined) {
        deps.logger.warn({ origin, kind }, 'wallet: auto-approved (wallet.autoApprove is on)')
        return { decision: auto, by: 'auto' }
      }
      // One dapp cannot bury the console (or the database) under requests: EIP-1474 "limit exceeded".
      const waiting = counted.get(pairing) ?? 0
      if (waiting >= MAX_PENDING_PER_PAIRING) throw walletErrors.tooManyPending(MAX_PENDING_PER_PAIRING)
      counted.set(pairing, waiting + 1)
      const id = randomUUID()
      const now = deps.clock.now()
      try {
        await deps.repository.insertApproval({
          id,
          origin,
          kind,
          request,
          createdAt: now,
          expiresAt: now + deps.timeoutMs,
        })
      } catch (e) {
        uncount(pairing)
        throw e
      }
      deps.logger.info({ origin, kind, approvalId: id }, 'wallet: approval requested')
      const outcome = new Promise<ApprovalOutcome>((resolve, reject) => {
        const timer = setTimeout(() => {
          void deps.repository.decideApproval(id, { status: 'expired', by: 'timeout' }, deps.clock.now()).then(
            (changed) => {
              if (changed) settle(id, { status: 'expired', decision: null, decidedBy: 'timeout' })
              else void api.pollOne(id).catch(() => {})
            },
            () => settle(id, { status: 'expired', decision: null, decidedBy: 'timeout' }),
          )
        }, deps.timeoutMs)
        timer.unref()
        waiters.set(id, { origin, pairing, kind, request, resolve, reject, timer })
      })
      if (signal) {
        const cancel = () => {
          void deps.repository.decideApproval(id, { status: 'cancelled', by: 'disconnect' }, deps.clock.now()).then(
            (changed) => {
              if (changed) settle(id, { status: 'cancelled', decision: null, decidedBy: 'disconnect' })
            },
            () => settle(id, { status: 'cancelled', decision: null, decidedBy: 'disconnect' }),
          )
        }
        if (signal.aborted) cancel()
        else {
          signal.addEventListener('abort', cancel, { once: true })
          // The signal is the connection's: a listener left behind per answered request would pile up on it.
          const drop = () => signal.removeEventListener('abort', cancel)
          outcome.then(drop, drop)
        }
      }
      deps.onChange?.()
      return outcome
    },

    /** Answers from the console (in process). False when it was no longer pending. */
    async decide(id: string, approve: boolean, decision: unknown, by: string): Promise<boolean> {
      const status = approve ? 'approved' : 'rejected'
      const changed = await deps.repository.decideApproval(id, { status, decision, by }, deps.clock.now())
      if (changed) settle(id, { status, decision: decision ?? null, decidedBy: by })
      return changed
    },

    async pollOne(id: string): Promise<void> {
      const row = await deps.repository.getApproval(id)
      if (row && row.status !== 'pending') settle(id, row)
    },

    /** Picks up answers the CLI wrote to the database. */
    async poll(): Promise<void> {
      for (const id of [...waiters.keys()]) await api.pollOne(id)
    },

    pendingIds(): string[] {
      return [...waiters.keys()]
    },

    /** Cancels (4001) the waiting requests of an origin that `pred` picks, e.g. those its ended session authorized. */
    async cancelWhere(origin: string, pred: (kind: ApprovalKind, request: unknown) => boolean): Promise<void> {
      for (const [id, w] of [...waiters]) {
        if (w.origin !== origin || !pred(w.kind, w.request)) continue
        const changed = await deps.repository
          .decideApproval(id, { status: 'cancelled', by: 'session_ended' }, deps.clock.now())
          .catch(() => true)
        // Answered meanwhile: that answer stands (signing re-checks the session after any approval anyway).
        if (changed) settle(id, { status: 'cancelled', decision: null, decidedBy: 'session_ended' })
        else await api.pollOne(id).catch(() => {})
      }
    },

    /** Stop: every waiting request fails with 4001. */
    async close(): Promise<void> {
      for (const id of [...waiters.keys()]) {
        await deps.repository
          .decideApproval(id, { status: 'cancelled', by: 'shutdown' }, deps.clock.now())
          .catch(() => {})
        settle(id, { status: 'cancelled', decision: null, decidedBy: 'shutdown' })
      }
    },
  }
  return api
}
