/**
 * Spending a key's balance over HTTP, for the exact-credits tests: one priced call, and calls until the balance
 * refuses (402 five times in a row), returning the sum of the `x-credits-charged` the answers carried.
 */
import { request } from 'undici'
import { expect } from 'vitest'

/** One eth_getBalance on network `remote` of the server at `base`. */
export async function balanceCall(base: string, key: string): Promise<{ status: number; credits: number }> {
  const res = await request(`${base}/networks/remote/v3/${key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_getBalance',
      params: ['0x0000000000000000000000000000000000000001', 'latest'],
    }),
  })
  await res.body.text()
  return { status: res.statusCode, credits: Number(res.headers['x-credits-charged'] ?? 0) }
}

/** Calls until refused with 402 five times in a row; every other answer must be 200. */
export async function spendUntilRefused(base: string, key: string): Promise<number> {
  let charged = 0
  let refusals = 0
  while (refusals < 5) {
    const r = await balanceCall(base, key)
    charged += r.credits
    if (r.status === 402) refusals++
    else {
      expect(r.status).toBe(200)
      refusals = 0
    }
  }
  return charged
}
