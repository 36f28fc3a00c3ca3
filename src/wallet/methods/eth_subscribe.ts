/**
 * eth_subscribe `[kind, options?]` on a scope's chain. Events go as wallet_notify to the connection that
 * subscribed, and to no other connection of the origin (as MetaMask does: one subscription manager per origin
 * and tab).
 */
import { randomBytes } from 'node:crypto'
import { walletErrors } from '../errors.ts'
import type { LocalMethodContext } from './context.ts'

export async function ethSubscribe(
  ctx: Pick<
    LocalMethodContext,
    'scope' | 'chainId' | 'sessionScope' | 'chainAccess' | 'connection' | 'dropUnauthorizedSubscriptions'
  >,
  params: unknown,
): Promise<string> {
  // Events only flow as wallet_notify when eth_subscription was granted for the scope.
  if (!ctx.sessionScope.notifications.includes('eth_subscription') || ctx.chainId === undefined)
    throw walletErrors.unauthorized()
  if (!Array.isArray(params) || typeof params[0] !== 'string')
    throw walletErrors.invalidParams([{ path: 'request.params', problem: 'must be [kind, options?]' }])
  const conn = ctx.connection
  const id = `0x${randomBytes(16).toString('hex')}`
  const upstream = await ctx.chainAccess.subscribe(ctx.chainId, params, (result) => {
    if (!conn.subscriptions.has(id)) return
    conn.send({
      jsonrpc: '2.0',
      method: 'wallet_notify',
      params: { scope: ctx.scope, notification: { method: 'eth_subscription', params: { subscription: id, result } } },
    })
  })
  if (conn.closed.signal.aborted) {
    await upstream.unsubscribe().catch(() => {})
    throw walletErrors.internal('connection closed')
  }
  conn.subscriptions.set(id, { scope: ctx.scope, unsubscribe: () => upstream.unsubscribe() })
  // The session may have changed while subscribing.
  await ctx.dropUnauthorizedSubscriptions()
  return id
}
