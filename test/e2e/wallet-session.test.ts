/**
 * Issue 3, points 1-4, 6, 7, 9: transport and origins, wallet_createSession rules and errors, getSession,
 * revokeSession, wallet_sessionChanged, persistence, expiry, bad input — real server, real anvil, the real
 * `@metamask/multichain-api-client` over chaingate's WebSocket transport. Sessions are approved in the console API.
 */
import { describe, expect, test } from 'vitest'
import {
  ACCOUNT_0,
  ACCOUNT_1,
  CHAIN_A,
  CHAIN_B,
  UNAUTHORIZED,
  approve,
  dapp,
  failure,
  pairingOf,
  rawSocket,
  reject,
  startWallet,
  useWalletOnDevnets,
  waitForPending,
} from './helpers/wallet.ts'

const A = `eip155:${CHAIN_A}`
const B = `eip155:${CHAIN_B}`

const wallet = useWalletOnDevnets()

/** Creates a session through the console: approves the first pending request of `origin` with `decision`. */
async function createApproved(d: ReturnType<typeof dapp>, origin: string, params: any, decision: any = {}) {
  const result = d.client.createSession(params)
  const p = await waitForPending(wallet.h, (x) => x.origin === origin && x.kind === 'session')
  await approve(wallet.h, p.id, decision)
  return { result: await result, pending: p }
}

describe('wallet_createSession (point 2) and approval (point 3)', () => {
  test('normalises scopes: requiredScopes as optional, references expand, duplicates merge, unserved chains and unknown methods dropped', async () => {
    const origin = 'https://normalise.example'
    const d = dapp(wallet.h.url, origin)
    const { result, pending } = await createApproved(
      d,
      origin,
      {
        requiredScopes: {
          eip155: { references: [String(CHAIN_A), '999'], methods: ['eth_blockNumber'], notifications: [] },
        },
        optionalScopes: {
          [A]: { methods: ['eth_getBalance', 'not_a_method', 'eth_accounts'], notifications: ['eth_subscription'] },
          [B]: {
            methods: ['eth_chainId'],
            notifications: [],
            accounts: [
              `eip155:1:${ACCOUNT_1.toUpperCase().replace('0X', '0x')}`,
              'eip155:1:0x000000000000000000000000000000000000dead',
            ],
          },
          'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': { methods: ['signMessage'], notifications: [] },
          'eip155:1': { methods: [], notifications: [], references: ['1'] }, // references on a chain key: dropped
        },
      },
      {}, // approve as proposed: preselected accounts
    )
    expect(pending.request.scopes).toEqual({
      [A]: { methods: ['eth_blockNumber', 'eth_getBalance'], notifications: ['eth_subscription'] },
      [B]: { methods: ['eth_chainId'], notifications: [] },
    })
    expect(pending.request.preselectedAccounts).toEqual([ACCOUNT_1])
    expect(result).toEqual({
      sessionScopes: {
        [A]: {
          methods: ['eth_blockNumber', 'eth_getBalance'],
          notifications: ['eth_subscription'],
          accounts: [`${A}:${ACCOUNT_1}`],
        },
        [B]: { methods: ['eth_chainId'], notifications: [], accounts: [`${B}:${ACCOUNT_1}`] },
      },
      sessionProperties: {},
    })
    expect(await d.client.getSession()).toEqual({ sessionScopes: result.sessionScopes })
    await d.close()
  })

  test('the user picks accounts and drops chains and methods', async () => {
    const origin = 'https://picks.example'
    const d = dapp(wallet.h.url, origin)
    const { result } = await createApproved(
      d,
      origin,
      {
        optionalScopes: {
          eip155: {
            references: [String(CHAIN_A), String(CHAIN_B)],
            methods: ['eth_chainId', 'eth_blockNumber'],
            notifications: [],
          },
        },
      },
      {
        accounts: [ACCOUNT_0, ACCOUNT_1, '0x000000000000000000000000000000000000dead'],
        scopes: [B],
        methods: { [B]: ['eth_chainId'] },
      },
    )
    expect(result.sessionScopes).toEqual({
      [B]: { methods: ['eth_chainId'], notifications: [], accounts: [`${B}:${ACCOUNT_0}`, `${B}:${ACCOUNT_1}`] },
    })
    await d.close()
  })

  test('5100 when nothing is supported; 5302 for {} sessionProperties (before scopes); 4001 when the user rejects', async () => {
    const origin = 'https://errors.example'
    const d = dapp(wallet.h.url, origin)
    expect(
      await failure(d.client.createSession({ optionalScopes: { 'eip155:999': { methods: [], notifications: [] } } })),
    ).toMatchObject({
      code: 5100,
      message: 'Requested scopes are not supported',
    })
    expect(await failure(d.client.createSession({}))).toMatchObject({ code: 5100 })
    expect(await failure(d.client.createSession({ optionalScopes: {}, sessionProperties: {} }))).toMatchObject({
      code: 5302,
      message: 'Invalid sessionProperties requested',
    })
    const pending = d.client.createSession({ optionalScopes: { [A]: { methods: [], notifications: [] } } })
    const p = await waitForPending(wallet.h, (x) => x.origin === origin)
    await reject(wallet.h, p.id)
    expect(await failure(pending)).toEqual({ code: 4001, message: 'User rejected the request.' })
    expect(await d.client.getSession()).toEqual({ sessionScopes: {} })
    await d.close()
  })

  test('-32602 names the bad field: scope shape, malformed CAIP-10 account, bad expiry', async () => {
    const d = dapp(wallet.h.url, 'https://badparams.example')
    const e1 = await failure(d.client.createSession({ optionalScopes: { [A]: { methods: 'x' } } } as any))
    expect(e1.code).toBe(-32602)
    expect(e1.data.map((x: any) => x.message)).toEqual([
      `optionalScopes.${A}.methods is not of a type(s) array of string`,
      `optionalScopes.${A} requires property "notifications"`,
    ])
    // A malformed CAIP-10 account: MetaMask's -32603 (issue 8 item 20).
    const e2 = await failure(
      d.client.createSession({
        optionalScopes: { [A]: { methods: [], notifications: [], accounts: ['not-an-account' as any] } },
      }),
    )
    expect(e2).toEqual({ code: -32603, message: 'Invalid CAIP account ID.' })
    const e3 = await failure(
      d.client.createSession({
        optionalScopes: { [A]: { methods: [], notifications: [] } },
        sessionProperties: { expiry: 'tomorrow' },
      }),
    )
    expect(e3.data[0].message).toBe('sessionProperties.expiry is not an ISO 8601 date-time')
    await d.close()
  })

  test('sessionProperties: expiry and globalConfig kept and shown, others dropped; the session ends at expiry with sessionChanged {}', async () => {
    const origin = 'https://expiry.example'
    const d = dapp(wallet.h.url, origin)
    const expiry = new Date(Date.now() + 1500).toISOString()
    const { result } = await createApproved(d, origin, {
      optionalScopes: { [A]: { methods: ['eth_chainId'], notifications: [] } },
      sessionProperties: { expiry, globalConfig: { theme: 'dark' }, somethingElse: 1 },
    })
    expect(result.sessionProperties).toEqual({ expiry, globalConfig: { theme: 'dark' } })
    expect(await d.client.getSession()).toEqual({
      sessionScopes: result.sessionScopes,
      sessionProperties: { expiry, globalConfig: { theme: 'dark' } },
    })
    const ended = await d.next(
      (n) => n.method === 'wallet_sessionChanged' && Object.keys(n.params.sessionScopes).length === 0,
      5000,
    )
    expect(ended).toEqual({ jsonrpc: '2.0', method: 'wallet_sessionChanged', params: { sessionScopes: {} } })
    expect(
      await failure(d.client.invokeMethod({ scope: A as any, request: { method: 'eth_chainId', params: [] } as any })),
    ).toEqual(UNAUTHORIZED)
    await d.close()
  })

  test('a new createSession replaces the session; every connection of the origin gets sessionChanged, another origin nothing', async () => {
    const origin = 'https://replace.example'
    const d1 = dapp(wallet.h.url, origin)
    const d2 = dapp(wallet.h.url, origin)
    const other = dapp(wallet.h.url, 'https://bystander.example')
    await other.client.getSession()
    await d2.client.getSession()
    await createApproved(d1, origin, { optionalScopes: { [A]: { methods: ['eth_chainId'], notifications: [] } } })
    const { result } = await createApproved(d1, origin, {
      optionalScopes: { [B]: { methods: ['eth_blockNumber'], notifications: [] } },
    })
    expect(Object.keys(result.sessionScopes)).toEqual([B])
    const seen = await d2.next((n) => n.method === 'wallet_sessionChanged' && B in n.params.sessionScopes)
    expect(seen.params.sessionScopes).toEqual(result.sessionScopes)
    expect('id' in seen).toBe(false)
    expect(await d2.client.getSession()).toEqual({ sessionScopes: result.sessionScopes })
    expect(other.notifications).toEqual([])
    expect(await other.client.getSession()).toEqual({ sessionScopes: {} })
    await Promise.all([d1.close(), d2.close(), other.close()])
  })
})

describe('wallet_invokeMethod authorisation and envelope (point 5), revoke (point 6)', () => {
  test('reads go to the chain with the spec envelope; unauthorised scope or method is 4100', async () => {
    const origin = 'https://reads.example'
    const d = dapp(wallet.h.url, origin)
    await createApproved(d, origin, {
      optionalScopes: { [A]: { methods: ['eth_chainId', 'eth_getBalance'], notifications: [] } },
    })
    expect(
      await d.client.invokeMethod({ scope: A as any, request: { method: 'eth_chainId', params: [] } as any }),
    ).toEqual({
      scope: A,
      result: { method: 'eth_chainId', result: `0x${CHAIN_A.toString(16)}` },
    })
    const bal: any = await d.client.invokeMethod({
      scope: A as any,
      request: { method: 'eth_getBalance', params: [ACCOUNT_0, 'latest'] } as any,
    })
    expect(BigInt(bal.result.result)).toBeGreaterThan(0n)
    expect(
      await failure(d.client.invokeMethod({ scope: B as any, request: { method: 'eth_chainId', params: [] } as any })),
    ).toEqual(UNAUTHORIZED)
    expect(
      await failure(
        d.client.invokeMethod({ scope: A as any, request: { method: 'eth_blockNumber', params: [] } as any }),
      ),
    ).toEqual(UNAUTHORIZED)
    expect(
      await failure(d.client.invokeMethod({ scope: A as any, request: { method: 'eth_accounts', params: [] } as any })),
    ).toEqual(UNAUTHORIZED)
    // Chain errors come back as top-level JSON-RPC errors with the node's code.
    const e = await failure(
      d.client.invokeMethod({ scope: A as any, request: { method: 'eth_getBalance', params: ['nope'] } as any }),
    )
    expect(e.code).toBe(-32602)
    await d.close()
  })

  test('partial revoke keeps the rest; full revoke ends it; always true, also with no session; then 4100', async () => {
    const origin = 'https://revoke.example'
    const d = dapp(wallet.h.url, origin)
    const watcher = dapp(wallet.h.url, origin)
    await watcher.client.getSession()
    expect(await d.client.revokeSession({})).toBeUndefined() // no session: the wallet answers true
    await createApproved(d, origin, {
      optionalScopes: {
        eip155: { references: [String(CHAIN_A), String(CHAIN_B)], methods: ['eth_chainId'], notifications: [] },
      },
    })
    await d.client.revokeSession({ scopes: [A] as any })
    const partial = await watcher.next(
      (n) => n.method === 'wallet_sessionChanged' && !(A in n.params.sessionScopes) && B in n.params.sessionScopes,
    )
    expect(Object.keys(partial.params.sessionScopes)).toEqual([B])
    expect(
      await failure(
        watcher.client.invokeMethod({ scope: A as any, request: { method: 'eth_chainId', params: [] } as any }),
      ),
    ).toEqual(UNAUTHORIZED)
    await d.client.revokeSession({})
    await watcher.next((n) => n.method === 'wallet_sessionChanged' && Object.keys(n.params.sessionScopes).length === 0)
    expect(
      await failure(
        watcher.client.invokeMethod({ scope: B as any, request: { method: 'eth_chainId', params: [] } as any }),
      ),
    ).toEqual(UNAUTHORIZED)
    expect(await watcher.client.getSession()).toEqual({ sessionScopes: {} })
    await Promise.all([d.close(), watcher.close()])
  })

  test('wire level: revokeSession answers true; invokeMethod -32602 naming the field', async () => {
    const s = await rawSocket(wallet.h.url, 'https://wire.example')
    expect(await s.call({ method: 'wallet_revokeSession' })).toMatchObject({ result: true })
    expect(await s.call({ method: 'wallet_revokeSession', params: { scopes: [A] } })).toMatchObject({ result: true })
    const e = await s.call({ method: 'wallet_invokeMethod', params: { request: { method: 1 } } })
    expect(e.error.code).toBe(-32602)
    expect(e.error.message).toBe('Invalid method parameter(s).')
    expect(e.error.data.map((x: any) => x.message)).toEqual([
      'scope is required, but is undefined',
      'request.method is not of a type(s) string',
    ])
    const e2 = await s.call({
      method: 'wallet_invokeMethod',
      params: { scope: 'AB', request: { method: 'eth_chainId' } },
    })
    expect(e2.error.data[0].message).toBe('scope does not match pattern "[-a-z0-9]{3,8}(:[-_a-zA-Z0-9]{1,32})?"')
    s.ws.close()
  })
})

describe('transport, origins and bad input (points 1, 9)', () => {
  test('unknown method -32601, invalid JSON -32700, bad envelope -32600; the connection stays usable', async () => {
    const s = await rawSocket(wallet.h.url, 'https://bad.example')
    const e = await s.call({ method: 'eth_chainId', params: [] })
    expect(e.error).toEqual({
      code: -32601,
      message: 'The method does not exist / is not available.',
      data: { method: 'eth_chainId' },
    })
    for (const method of ['toString', 'constructor', '__proto__'])
      expect((await s.call({ method })).error).toMatchObject({ code: -32601, data: { method } })
    expect(await s.call('{not json')).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    })
    expect((await s.call('[]')).error.code).toBe(-32600)
    expect(await s.call({ method: 'wallet_getSession' })).toMatchObject({ result: { sessionScopes: {} } })
    s.ws.close()
  })

  test('an origin is required; ?origin= works for non-browser dapps; a conflicting declaration is refused', async () => {
    await expect(rawSocket(wallet.h.url)).rejects.toThrow(/403/)
    await expect(rawSocket(`${wallet.h.url}?origin=https://a.example`, 'https://b.example')).rejects.toThrow(/403/)
    await expect(rawSocket(wallet.h.url, 'null')).rejects.toThrow(/403/)
    const origin = 'https://declared.example'
    const viaHeader = dapp(wallet.h.url, origin)
    await createApproved(viaHeader, origin, {
      optionalScopes: { [A]: { methods: ['eth_chainId'], notifications: [] } },
    })
    // The same dapp (it holds the pairing secret) connecting with ?origin= instead of the header.
    const viaQuery = await rawSocket(
      `${wallet.h.url}?origin=${encodeURIComponent(origin)}&pairing=${pairingOf(wallet.h.url, origin)}`,
    )
    const r = await viaQuery.call({ method: 'wallet_getSession' })
    expect(Object.keys(r.result.sessionScopes)).toEqual([A])
    viaQuery.ws.close()
    await viaHeader.close()
  })

  test('an origin can have at most 20 requests waiting for the user (-32005); closing the socket cancels them', async () => {
    const origin = 'https://pushy.example'
    const s = await rawSocket(wallet.h.url, origin)
    const params = { optionalScopes: { [A]: { methods: [], notifications: [] } } }
    for (let i = 0; i < 20; i++)
      s.ws.send(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'wallet_createSession', params }))
    for (
      let i = 0;
      i < 50 &&
      (await wallet.h.console('/console/api/state')).body.pending.filter((p: any) => p.origin === origin).length < 20;
      i++
    )
      await new Promise((r) => setTimeout(r, 20))
    const e = await s.call({ method: 'wallet_createSession', params })
    expect(e.error.code).toBe(-32005)
    s.ws.close()
    for (
      let i = 0;
      i < 50 && (await wallet.h.console('/console/api/state')).body.pending.some((p: any) => p.origin === origin);
      i++
    )
      await new Promise((r) => setTimeout(r, 20))
    expect((await wallet.h.console('/console/api/state')).body.pending.filter((p: any) => p.origin === origin)).toEqual(
      [],
    )
  })

  test('an oversized message or a flood closes only that connection', async () => {
    const victim = await rawSocket(wallet.h.url, 'https://flood.example')
    const bystander = await rawSocket(wallet.h.url, 'https://flood.example')
    const big = await rawSocket(wallet.h.url, 'https://flood.example')
    big.ws.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'wallet_getSession',
        params: { pad: 'x'.repeat(1024 * 1024 + 10) },
      }),
    )
    expect((await big.closed).code).toBe(1009)
    for (let i = 0; i < 2000 && victim.ws.readyState === victim.ws.OPEN; i++)
      victim.ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'wallet_getSession' })) // notifications: no in-flight
    expect(await victim.closed).toEqual({ code: 1008, reason: 'message rate limit exceeded' })
    expect(await bystander.call({ method: 'wallet_getSession' })).toMatchObject({ result: { sessionScopes: {} } })
    bystander.ws.close()
  })

  test('a chain the wallet no longer serves leaves the session at the next start', async () => {
    const origin = 'https://chain-gone.example'
    const d = dapp(wallet.h.url, origin)
    await createApproved(d, origin, {
      optionalScopes: {
        eip155: { references: [String(CHAIN_A), String(CHAIN_B)], methods: ['eth_chainId'], notifications: [] },
      },
    })
    await d.close()
    const { mkdtempSync, cpSync, rmSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const copy = mkdtempSync(join(tmpdir(), 'chaingate-wallet-copy-'))
    wallet.h.db.sqlite!.pragma('wal_checkpoint(TRUNCATE)')
    cpSync(wallet.h.dataDir, copy, { recursive: true })
    const onlyB = await startWallet([wallet.devnets.anvils[1]!], {}, { dataDir: copy })
    try {
      // The same dapp (same pairing secret) reaching the wallet at its new address.
      const again = dapp(onlyB.url, origin, {
        pairingStore: { get: () => pairingOf(wallet.h.url, origin), set: () => {} },
      })
      expect(Object.keys((await again.client.getSession())!.sessionScopes)).toEqual([B])
      await again.close()
    } finally {
      await onlyB.stop()
      rmSync(copy, { recursive: true, force: true })
    }
  })

  test('sessions persist across a restart', async () => {
    const origin = 'https://persist.example'
    const d = dapp(wallet.h.url, origin)
    const { result } = await createApproved(d, origin, {
      optionalScopes: { [A]: { methods: ['eth_chainId'], notifications: [] } },
    })
    await d.close()
    await wallet.h.restart()
    const again = dapp(wallet.h.url, origin)
    expect(await again.client.getSession()).toEqual({ sessionScopes: result.sessionScopes })
    await again.close()
  })
})
