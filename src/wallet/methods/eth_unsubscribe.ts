/**
 * eth_unsubscribe `[subscriptionId]`: ends one of this connection's subscriptions; false when it has none by that id.
 */
import { walletErrors } from '../errors.ts'
import type { LocalMethodContext } from './context.ts'

export async function ethUnsubscribe(ctx: Pick<LocalMethodContext, 'connection'>, params: unknown): Promise<boolean> {
  if (!Array.isArray(params) || typeof params[0] !== 'string')
    throw walletErrors.invalidParams([{ path: 'request.params', problem: 'must be [subscriptionId]' }])
  const sub = ctx.connection.subscriptions.get(params[0])
  if (!sub) return false
  ctx.connection.subscriptions.delete(params[0])
  await sub.unsubscribe().catch(() => {})
  return true
}
