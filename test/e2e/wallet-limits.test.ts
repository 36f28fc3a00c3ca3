/**
 * Issue 20, wallet items: the gateway's nesting limit holds for wallet_invokeMethod (the gateway's answer, not an
 * internal error), and the cap of waiting approvals counts per pairing, so a local program claiming a paired dapp's
 * origin cannot starve it. Real wallet server, real anvil, the multichain client and raw `ws` sockets.
 */
import { describe, expect, test } from 'vitest'
import {
  ACCOUNT_0,
  CHAIN_A,
  approvedSession,
  dapp,
  failure,
  invoke,
  pairingOf,
  rawSocket,
  useWalletOnDevnets,
  type WalletHarness,
} from './helpers/wallet.ts'

const A = `eip155:${CHAIN_A}`
const logLines: string[] = []
const wallet = useWalletOnDevnets({}, { logLines })

const pendingOf = async (w: WalletHarness, origin: string) =>
  ((await w.console('/console/api/state')).body.pending as any[]).filter((p) => p.origin === origin)
async function until(what: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await new Promise((r) => setTimeout(r, 25)))
    if (await what()) return
  throw new Error('condition not reached')
}

const invokeText = (id: number, params: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"wallet_invokeMethod",` +
  `"params":{"scope":"${A}","request":{"method":"eth_call","params":${params}}}}`
const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`

describe('wallet_invokeMethod with deeply nested params', () => {
  test("100,000 levels: the gateway's -32600 with the call's id, no internal error logged", async () => {
    const origin = 'https://deep.example'
    const d = dapp(wallet.h.url, origin)
    await approvedSession(wallet.h, d, origin, { [A]: { methods: ['eth_call'], notifications: [] } })
    const raw = await rawSocket(`${wallet.h.url}?pairing=${pairingOf(wallet.h.url, origin)}`, origin)
    const answer = await callRaw(raw, 7, nested(100_000))
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32600, message: 'Invalid request: nested deeper than 64 levels' },
    })
    const tooDeep = await callRaw(raw, 8, nested(64))
    expect(tooDeep).toEqual({
      jsonrpc: '2.0',
      id: 8,
      error: { code: -32600, message: 'Invalid request: nested deeper than 64 levels' },
    })
    // 63 levels of params make a 64-level call, which the gateway takes: it reaches the node (and fails there).
    const within = await callRaw(raw, 9, nested(63))
    expect(within.id).toBe(9)
    expect(within.error?.message ?? '').not.toContain('nested deeper')
    raw.ws.close()
    await d.close()
    expect(logLines.filter((l) => /RangeError|internal error/.test(l))).toEqual([])
  })
})

async function callRaw(raw: Awaited<ReturnType<typeof rawSocket>>, id: number, params: string): Promise<any> {
  const answered = new Promise<any>((resolve) => {
    const onMessage = (data: unknown) => {
      const m = JSON.parse(String(data))
      if (m.id !== id) return
      raw.ws.off('message', onMessage)
      resolve(m)
    }
    raw.ws.on('message', onMessage)
  })
  raw.ws.send(invokeText(id, params))
  return answered
}

describe('the cap of 20 waiting approvals counts per pairing, not per origin', () => {
  test('a program claiming the origin fills its own 20 slots; the paired dapp still reaches the user', async () => {
    const origin = 'https://starved.example'
    const d = dapp(wallet.h.url, origin)
    await approvedSession(wallet.h, d, origin, { [A]: { methods: ['personal_sign'], notifications: [] } })
    // The spoofer: same origin, no pairing secret. 21 session requests: 20 wait, the 21st is refused.
    const spoofer = await rawSocket(wallet.h.url, origin)
    const params = { optionalScopes: { [A]: { methods: ['personal_sign'], notifications: [] } } }
    const spoofed = Array.from({ length: 21 }, () => spoofer.call({ method: 'wallet_createSession', params }))
    await until(async () => (await pendingOf(wallet.h, origin)).length >= 20)
    const refused = await Promise.race(spoofed)
    expect(refused.error.code).toBe(-32005)
    // The paired dapp's signature request still waits for the user (was -32005 when counted per origin).
    const signed = failure(invoke(d, A, 'personal_sign', ['0x68656c6c6f', ACCOUNT_0]))
    await until(async () => (await pendingOf(wallet.h, origin)).some((p) => p.kind === 'personal_sign'))
    expect((await pendingOf(wallet.h, origin)).length).toBe(21)
    spoofer.ws.close()
    await d.client.revokeSession({})
    expect((await signed).code).toBe(4001)
    await d.close()
  })
})
