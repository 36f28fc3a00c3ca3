/**
 * The reason a simulated call reverted, from a JSON-RPC error: Error(string) / Panic(uint256) data decoded, else the
 * node's message.
 */
import { decodeErrorResult, isHex, type Hex } from 'viem'

export function revertReason(err: unknown): string {
  const e = (err ?? {}) as { message?: unknown; data?: unknown }
  const data =
    typeof e.data === 'string'
      ? e.data
      : typeof (e.data as { data?: unknown })?.data === 'string'
        ? (e.data as { data: string }).data
        : undefined
  if (data && isHex(data) && data.length >= 10) {
    try {
      const d = decodeErrorResult({ data: data as Hex })
      if (d.errorName === 'Error') return String(d.args?.[0])
      if (d.errorName === 'Panic') return `panic 0x${(d.args?.[0] as bigint | undefined)?.toString(16)}`
    } catch {}
    return `custom error ${data.slice(0, 10)}`
  }
  const msg = typeof e.message === 'string' ? e.message.split('\n')[0]! : 'unknown error'
  return msg.replace(/^execution reverted:?\s*/i, '') || 'execution reverted (no reason given)'
}
