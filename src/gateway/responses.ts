/**
 * Exact bodies Infura clients parse (../shared/reference/infura.md §3.2, §3.4). The text is the contract here.
 */
import type { LimitRejection } from '../credits/limits.ts'
import type { RpcId } from '../jsonrpc/envelope.ts'

export const authErrors = {
  keyRequired: 'project id required in the url\n',
  invalidKey: 'invalid project id\n',
  networkNotEnabled: 'project ID does not have access to this network\n',
}

const LIMITS: Record<LimitRejection, { code: number; event: number; message: string; details: string }> = {
  DAILY_CREDITS_EXHAUSTED: {
    code: 402,
    event: -33000,
    message: 'Payment Required',
    details: 'You have reached your daily credit limit. To continue making requests, upgrade your plan or purchase additional credits',
  },
  ACCOUNT_THROUGHPUT_EXCEEDED: {
    code: 429,
    event: -33200,
    message: 'Too Many Requests',
    details: 'You have surpassed your allowed throughput limit. Reduce the amount of requests per second or upgrade for more capacity.',
  },
  KEY_THROUGHPUT_EXCEEDED: {
    code: 429,
    event: -33300,
    message: 'Too Many Requests',
    details:
      'You have surpassed your user-defined key throughput limit setting. To make more requests with this key, review key setting configurations.',
  },
  KEY_DAILY_CREDITS_EXHAUSTED: {
    code: 429,
    event: -33400,
    message: 'Too Many Requests',
    details: 'You have surpassed your user-defined key daily credit limit setting. To make more requests, adjust your daily quota limit.',
  },
}

export function limitBody(rejection: LimitRejection, id: RpcId): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":${JSON.stringify(LIMITS[rejection])}}`
}
