/**
 * Step 3, admit: reserve a request's full price against every limit (daily balances, credits per second) before
 * anything runs, so concurrent requests cannot overshoot a limit. Refusals are registry codes.
 */
import type { LimitStore } from '../../../credits/limits/memory.ts'
import type { MaybePromise } from '../../../shared/types.ts'
import type { LimitCode } from '../../../errors/registry.ts'
import type { CallContext, Clock } from '../types.ts'

export interface Admit {
  /**
   * Reserves `credits`; a refusal reserves nothing. Over HTTP an exhausted balance also closes the account's sockets.
   * A promise only when the limit store must ask Redis (docs/scale-out.md); in memory always synchronous.
   */
  request(ctx: CallContext, credits: number, now: number): MaybePromise<LimitCode | null>
  /** A new WebSocket: refused (402) while the account's daily balance is used up, until 00:00 UTC. */
  connection(ctx: CallContext): LimitCode | null
}

export function createAdmit(deps: {
  limits: LimitStore
  clock: Clock
  onDailyExhausted?: ((accountId: string) => void) | undefined
}): Admit {
  const refused = (ctx: CallContext, code: LimitCode): LimitCode => {
    // Over WebSocket the session answers first, then closes; over HTTP the account's sockets close now.
    if (code === 'DAILY_CREDITS_EXHAUSTED' && ctx.transport === 'http') deps.onDailyExhausted?.(ctx.entry.accountId)
    return code
  }
  return {
    request(ctx, credits, now) {
      const code = deps.limits.admit(ctx.entry.limits, credits, now)
      if (code === null) return null
      if (typeof code === 'string') return refused(ctx, code)
      return code.then((c) => (c === null ? null : refused(ctx, c)))
    },
    connection(ctx) {
      const used = deps.limits.usedToday(ctx.entry.accountId, deps.clock.now())
      return used >= ctx.entry.plan.creditsPerDay ? 'DAILY_CREDITS_EXHAUSTED' : null
    },
  }
}
