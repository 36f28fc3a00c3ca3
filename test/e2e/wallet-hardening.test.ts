/**
 * Issue 8, wallet items 7, 8, 17-21: what an outside audit broke, each with a test that failed before the fix —
 * real wallet server, real anvil, real clients (the multichain client over chaingate's transport, raw `ws`).
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, test } from 'vitest'
import { runWalletCommand } from '../../src/cli/wallet-commands.ts'
import { startAnvil } from '../../src/upstreams/devnet/anvil.ts'
import {
  ACCOUNT_0,
  ACCOUNT_1,
  CHAIN_A,
  UNAUTHORIZED,
  approve,
  approvedSession,
  dapp,
  failure,
  invoke,
  pairingOf,
  rawSocket,
  startWallet,
  useWalletOnDevnets,
  waitForPending,
  type WalletHarness,
} from './helpers/wallet.ts'

const A = `eip155:${CHAIN_A}`
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

const wallet = useWalletOnDevnets()

const pendingOf = async (w: WalletHarness, origin: string) =>
  ((await w.console('/console/api/state')).body.pending as any[]).filter((p) => p.origin === origin)
async function until(what: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await pause(25)) if (await what()) return
  throw new Error('condition not reached')
}

describe('item 17: the cap of 20 waiting approvals per origin holds against a burst', () => {
  test('30 simultaneous personal_sign: 20 wait, 10 get -32005; revoking the session answers the 20 with 4001 (item 7)', async () => {
    const origin = 'https://burst.example'
    const d = dapp(wallet.h.url, origin)
    await approvedSession(wallet.h, d, origin, { [A]: { methods: ['personal_sign'], notifications: [] } })
    const calls = Array.from({ length: 30 }, (_, i) =>
      failure(invoke(d, A, 'personal_sign', [`0x${(i + 16).toString(16)}`, ACCOUNT_0])),
    )
    await until(async () => (await pendingOf(wallet.h, origin)).length >= 20)
    await pause(200) // any request beyond the cap would have shown up by now
    expect((await pendingOf(wallet.h, origin)).length).toBe(20)
    // The dapp ends its session while the user still has 20 of its requests open: all are cancelled.
    await d.client.revokeSession({})
    const errors = await Promise.all(calls)
    expect(errors.filter((e) => e.code === -32005).length).toBe(10)
    const cancelled = errors.filter((e) => e.code === 4001)
    expect(cancelled.length).toBe(20)
    expect(cancelled[0]).toEqual({
      code: 4001,
      message: 'User rejected the request.',
      data: { reason: 'session_ended' },
    })
    expect(await pendingOf(wallet.h, origin)).toEqual([])
    await d.close()
  })
})

describe('item 7: revoking a session ends its pending signature requests', () => {
  test('a console revoke cancels a waiting personal_sign (4001); approving it afterwards is refused (409), nothing is signed', async () => {
    const origin = 'https://revoked-while-waiting.example'
    const d = dapp(wallet.h.url, origin)
    await approvedSession(wallet.h, d, origin, { [A]: { methods: ['personal_sign'], notifications: [] } })
    const signing = failure(invoke(d, A, 'personal_sign', ['0x68656c6c6f', ACCOUNT_0]))
    const p = await waitForPending(wallet.h, (x) => x.origin === origin && x.kind === 'personal_sign')
    expect((await wallet.h.console('/console/api/sessions/revoke', { method: 'POST', body: { origin } })).status).toBe(
      200,
    )
    expect((await signing).code).toBe(4001)
    expect(
      (await wallet.h.console(`/console/api/approvals/${p.id}/approve`, { method: 'POST', body: {} })).status,
    ).toBe(409)
    await d.close()
  })

  test("a console edit that takes the account away cancels that account's waiting request, not the others", async () => {
    const origin = 'https://edited-while-waiting.example'
    const d = dapp(wallet.h.url, origin)
    await approvedSession(wallet.h, d, origin, { [A]: { methods: ['personal_sign'], notifications: [] } }, [
      ACCOUNT_0,
      ACCOUNT_1,
    ])
    const by0 = failure(invoke(d, A, 'personal_sign', ['0x6869', ACCOUNT_0]))
    const by1 = invoke(d, A, 'personal_sign', ['0x6869', ACCOUNT_1])
    await until(async () => (await pendingOf(wallet.h, origin)).length === 2)
    await wallet.h.console('/console/api/sessions/edit', { method: 'POST', body: { origin, accounts: [ACCOUNT_1] } })
    expect((await by0).code).toBe(4001)
    const left = await pendingOf(wallet.h, origin)
    expect(left.map((x) => x.request.address)).toEqual([ACCOUNT_1])
    await approve(wallet.h, left[0].id)
    expect((await by1).result.result).toMatch(/^0x[0-9a-f]{130}$/)
    await d.close()
  })
})

describe('item 17: stopping the wallet answers waiting requests before closing', () => {
  test('a personal_sign waiting at stop gets 4001, then the socket closes with 1001', async () => {
    const w = await startWallet(wallet.devnets.anvils)
    const origin = 'https://stopped.example'
    const d = dapp(w.url, origin)
    await approvedSession(w, d, origin, { [A]: { methods: ['personal_sign'], notifications: [] } })
    const s = await rawSocket(`${w.url}?origin=${encodeURIComponent(origin)}&pairing=${pairingOf(w.url, origin)}`)
    const answer = s.call({
      method: 'wallet_invokeMethod',
      params: { scope: A, request: { method: 'personal_sign', params: ['0x6869', ACCOUNT_0] } },
    })
    await waitForPending(w, (x) => x.kind === 'personal_sign')
    await w.stop()
    expect((await answer).error).toEqual({
      code: 4001,
      message: 'User rejected the request.',
      data: { reason: 'shutdown' },
    })
    expect((await s.closed).code).toBe(1001)
    await d.close()
  })
})

describe('item 18: wallet_notify goes only to the connection that subscribed', () => {
  test('two connections of one session; only the subscriber gets the newHeads', async () => {
    const origin = 'https://notify.example'
    const subscriber = dapp(wallet.h.url, origin)
    const sibling = dapp(wallet.h.url, origin)
    await approvedSession(wallet.h, subscriber, origin, {
      [A]: { methods: ['eth_subscribe', 'eth_unsubscribe'], notifications: ['eth_subscription'] },
    })
    expect(Object.keys((await sibling.client.getSession())!.sessionScopes)).toEqual([A]) // same pairing: same session
    const id = (await invoke(subscriber, A, 'eth_subscribe', ['newHeads'])).result.result
    await fetch(wallet.devnets.anvils[0]!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] }),
    })
    await subscriber.next((n) => n.method === 'wallet_notify' && n.params.notification.params.subscription === id)
    await pause(200)
    expect(sibling.notifications.filter((n) => n.method === 'wallet_notify')).toEqual([])
    // Nor can the sibling end the subscriber's subscription.
    expect((await invoke(sibling, A, 'eth_unsubscribe', [id])).result.result).toBe(false)
    expect((await invoke(subscriber, A, 'eth_unsubscribe', [id])).result.result).toBe(true)
    await Promise.all([subscriber.close(), sibling.close()])
  })
})

describe('item 19: every successful wallet_createSession emits wallet_sessionChanged', () => {
  test('a repeated identical createSession is announced again', async () => {
    const origin = 'https://again.example'
    const d = dapp(wallet.h.url, origin)
    const scopes = { [A]: { methods: ['eth_chainId'], notifications: [] } }
    await approvedSession(wallet.h, d, origin, scopes)
    await d.next((n) => n.method === 'wallet_sessionChanged')
    await approvedSession(wallet.h, d, origin, scopes)
    await until(async () => d.notifications.filter((n) => n.method === 'wallet_sessionChanged').length === 2)
    const [first, second] = d.notifications.filter((n) => n.method === 'wallet_sessionChanged')
    expect(second).toEqual(first)
    await d.close()
  })
})

describe('item 20: wallet_invokeMethod answers as MetaMask in every shape', () => {
  test('4100 for request: {}, for the wallet scope with a chain method, and without a session; -32603 for a bare namespace', async () => {
    const origin = 'https://shapes.example'
    const d = dapp(wallet.h.url, origin)
    const s = await rawSocket(
      `${wallet.h.url}?origin=${encodeURIComponent(origin)}&pairing=${
        (await d.client.getSession(), pairingOf(wallet.h.url, origin))
      }`,
    )
    const call = async (params: unknown) => (await s.call({ method: 'wallet_invokeMethod', params })).error
    expect(await call({ scope: A, request: { method: 'eth_chainId' } })).toEqual(UNAUTHORIZED) // no session yet
    await approvedSession(wallet.h, d, origin, { [A]: { methods: ['eth_chainId'], notifications: [] } })
    expect(await call({ scope: A, request: {} })).toEqual(UNAUTHORIZED)
    expect(await call({ scope: 'wallet', request: { method: 'eth_chainId' } })).toEqual(UNAUTHORIZED)
    expect(await call({ scope: 'eip155:1', request: { method: 'eth_chainId' } })).toEqual(UNAUTHORIZED)
    expect(await call({ scope: 'eip155', request: { method: 'eth_chainId' } })).toEqual({
      code: -32603,
      message: 'scopeString is not a valid InternalScopeString',
    })
    expect((await call({ scope: A, request: { method: 7 } })).code).toBe(-32602)
    s.ws.close()
    await d.close()
  })

  test('{wallet: {references: ["eip155"]}} is granted as wallet:eip155 with wallet_addEthereumChain', async () => {
    const origin = 'https://wallet-scope.example'
    const d = dapp(wallet.h.url, origin)
    const created = d.client.createSession({
      optionalScopes: {
        wallet: { references: ['eip155'], methods: [], notifications: [] },
        [A]: { methods: ['eth_chainId'], notifications: [] },
      } as any,
    })
    const p = await waitForPending(wallet.h, (x) => x.origin === origin && x.kind === 'session')
    expect(p.request.scopes['wallet:eip155']).toEqual({ methods: ['wallet_addEthereumChain'], notifications: [] })
    await approve(wallet.h, p.id, { accounts: [ACCOUNT_0] })
    expect((await created).sessionScopes['wallet:eip155']).toEqual({
      methods: ['wallet_addEthereumChain'],
      notifications: [],
      accounts: [`wallet:eip155:${ACCOUNT_0}`],
    })
    // EIP-3085: a chain the wallet serves answers null; one it cannot serve, 4902.
    expect(
      (await invoke(d, 'wallet:eip155', 'wallet_addEthereumChain', [{ chainId: `0x${CHAIN_A.toString(16)}` }])).result
        .result,
    ).toBeNull()
    expect((await failure(invoke(d, 'wallet:eip155', 'wallet_addEthereumChain', [{ chainId: '0x1' }]))).code).toBe(4902)
    expect(await failure(invoke(d, 'wallet:eip155', 'eth_chainId', []))).toEqual(UNAUTHORIZED)
    await d.close()
  })
})

describe('item 8: a connection cannot join a session it did not open (pairing)', () => {
  test('a local program forging the origin sees no session, cannot use, revoke or watch it; the real dapp resumes it', async () => {
    const origin = 'https://paired.example'
    const d = dapp(wallet.h.url, origin)
    const { sessionScopes } = await approvedSession(wallet.h, d, origin, {
      [A]: { methods: ['eth_chainId', 'personal_sign'], notifications: [] },
    })
    // Forged Origin header, no pairing secret; and one with a made-up secret.
    for (const url of [wallet.h.url, `${wallet.h.url}?pairing=${'x'.repeat(43)}`]) {
      const intruder = await rawSocket(url, origin)
      expect((await intruder.call({ method: 'wallet_getSession' })).result).toEqual({ sessionScopes: {} })
      expect(
        (
          await intruder.call({
            method: 'wallet_invokeMethod',
            params: { scope: A, request: { method: 'eth_chainId' } },
          })
        ).error,
      ).toEqual(UNAUTHORIZED)
      expect((await intruder.call({ method: 'wallet_revokeSession' })).result).toBe(true)
      intruder.ws.close()
    }
    expect((await d.client.getSession())!.sessionScopes).toEqual(sessionScopes)
    // The console shows the session as paired (resumable), with the dapp's one connection.
    const shown = (await wallet.h.console('/console/api/state')).body.sessions.find((s: any) => s.origin === origin)
    expect({ pairing: shown.pairing, connections: shown.connections }).toEqual({ pairing: 'resumable', connections: 1 })
    expect(JSON.stringify(shown)).not.toContain(pairingOf(wallet.h.url, origin))
    // So does the CLI, without the stored hash.
    const outs: string[] = []
    expect(
      await runWalletCommand(['sessions', 'list'], { dataDir: wallet.h.dataDir, json: true, out: (t) => outs.push(t) }),
    ).toBe(0)
    const listed = JSON.parse(outs[0]!).find((x: any) => x.origin === origin)
    expect(listed.pairing).toBe('resumable')
    expect(outs[0]).not.toContain('"hash"')
    // The same dapp reconnecting (same stored secret) resumes the session.
    await d.close()
    const again = dapp(wallet.h.url, origin)
    expect((await again.client.getSession())!.sessionScopes).toEqual(sessionScopes)
    await again.close()
  })

  test('an unpaired connection gets its own session: it does not see the paired one, and its own is not shared', async () => {
    const origin = 'https://own-session.example'
    const d = dapp(wallet.h.url, origin)
    await approvedSession(wallet.h, d, origin, { [A]: { methods: ['eth_chainId'], notifications: [] } })
    const loner = dapp(wallet.h.url, origin, { pairingStore: false })
    expect(await loner.client.getSession()).toEqual({ sessionScopes: {} })
    const created = loner.client.createSession({
      optionalScopes: { [A]: { methods: ['eth_blockNumber'], notifications: [] } },
    })
    const p = await waitForPending(wallet.h, (x) => x.origin === origin && x.kind === 'session')
    // The console tells the user this connection cannot resume, and that approving replaces the paired session.
    expect(p.request.pairing).toEqual({ resumable: false, replaces: 'a session of another pairing' })
    await approve(wallet.h, p.id, { accounts: [ACCOUNT_0] })
    await created
    // The paired dapp's session ended (sessionChanged {}); nobody else can use the loner's.
    await d.next((n) => n.method === 'wallet_sessionChanged' && Object.keys(n.params.sessionScopes).length === 0)
    expect(await d.client.getSession()).toEqual({ sessionScopes: {} })
    expect(
      (await wallet.h.console('/console/api/state')).body.sessions.find((s: any) => s.origin === origin).pairing,
    ).toBe('connection')
    await Promise.all([d.close(), loner.close()])
  })

  test('a malformed pairing secret is refused before the upgrade (400)', async () => {
    await expect(rawSocket(`${wallet.h.url}?pairing=short`, 'https://x.example')).rejects.toThrow(/400/)
  })

  test.skipIf(process.platform === 'win32')(
    'wallet.socketPath: a unix socket with mode 0600 serves the same API',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'chaingate-sock-'))
      const w = await startWallet(wallet.devnets.anvils, { socketPath: join(dir, 'wallet.sock') })
      try {
        expect(w.socketUrl).toBe(`ws+unix://${join(dir, 'wallet.sock')}:/`)
        expect(statSync(join(dir, 'wallet.sock')).mode & 0o777).toBe(0o600)
        const d = dapp(w.socketUrl!, 'https://unix.example')
        expect(await d.client.getSession()).toEqual({ sessionScopes: {} })
        await d.close()
      } finally {
        await w.stop()
        rmSync(dir, { recursive: true, force: true })
      }
    },
  )
})

describe('issue 26 item 6: requests queued by a connection closed at once do not wait for the user', () => {
  // The client connects on its own when created and queues calls until then; a dapp (or a program claiming a paired
  // dapp's origin) that disconnects meanwhile used to get that connection anyway, its calls sent on it and left
  // waiting in the console. Three runs of each way, as the audit's probe did.
  test('a peer that sends a close frame and keeps its TCP socket open: its waiting request is cancelled at once', async () => {
    const origin = 'https://half-closed.example'
    const peer = await rawSocket(wallet.h.url, origin)
    // A session request waits for the user in the console.
    peer.ws.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'wallet_createSession',
        params: { optionalScopes: { [A]: { methods: ['eth_chainId'], notifications: [] } } },
      }),
    )
    await until(async () => (await pendingOf(wallet.h, origin)).length === 1)
    // A masked close frame (code 1000) written on the raw socket; the socket then reads nothing and never closes,
    // so the server's `ws` sees no TCP close (it would wait 30 s for one).
    const socket = (peer.ws as unknown as { _socket: import('node:net').Socket })._socket
    socket.removeAllListeners('data')
    socket.pause()
    socket.write(Buffer.from([0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe8]))
    await pause(1000)
    expect(await pendingOf(wallet.h, origin)).toEqual([])
    socket.destroy()
  })

  test('session and signature requests, disconnected at once or after a tick: none is pending 1 s later', async () => {
    const origin = 'https://queued-then-closed.example'
    const d = dapp(wallet.h.url, origin)
    await approvedSession(wallet.h, d, origin, { [A]: { methods: ['personal_sign'], notifications: [] } })
    const scopes = { [A]: { methods: ['personal_sign'], notifications: [] } }
    const calls: Promise<{ code?: number; cause?: { code?: number } }>[] = []
    for (const who of ['a program claiming the origin', 'another tab of the dapp'] as const)
      for (const when of ['at once', 'after a tick'] as const) {
        // Three runs side by side, each closing its own connection.
        await Promise.all(
          [0, 1, 2].map(async () => {
            const probe = dapp(wallet.h.url, origin, who === 'another tab of the dapp' ? {} : { pairingStore: false })
            for (const c of [
              probe.client.createSession({ optionalScopes: scopes }),
              invoke(probe, A, 'personal_sign', ['0x1234', ACCOUNT_0]),
              probe.client.createSession({ optionalScopes: scopes }),
            ])
              calls.push(
                Promise.resolve(c).then(
                  () => ({ code: 0 }),
                  (e: { code?: number }) => e,
                ),
              )
            if (when === 'after a tick') await pause(0)
            await probe.close()
          }),
        )
        await pause(1000)
        expect({ who, when, pending: await pendingOf(wallet.h, origin) }).toEqual({ who, when, pending: [] })
      }
    // The calls end as the transport's own failure (4900), not as requests answered by the wallet.
    for (const e of await Promise.all(calls))
      expect({ code: e.code, cause: e.cause?.code }).toMatchObject({ code: 4900 })
    // Nothing is listed by the CLI either (it reads the database), and the paired session is untouched.
    const outs: string[] = []
    await runWalletCommand(['approvals', 'list'], { dataDir: wallet.h.dataDir, json: true, out: (t) => outs.push(t) })
    expect(JSON.parse(outs[0]!).filter((a: any) => a.origin === origin)).toEqual([])
    expect(Object.keys((await d.client.getSession())!.sessionScopes)).toEqual([A])
    await d.close()
  }, 60_000)
})

describe('item 7: keys that must not be exposed', () => {
  test('the public anvil test mnemonic is refused at start when a network is not an embedded devnet', async () => {
    await expect(
      startWallet(
        wallet.devnets.anvils,
        {},
        {
          networks: [
            { name: 'devnet-a', embedded: true },
            { name: 'mainnet', embedded: false },
          ],
        },
      ),
    ).rejects.toThrow(/PUBLIC anvil test mnemonic, but mainnet is not an embedded devnet/)
  })

  test("a custom devnet mnemonic is not on anvil's command line, and its accounts are funded", async () => {
    const mnemonic = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
    const first = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94' // m/44'/60'/0'/0/0 of that mnemonic
    const anvil = await startAnvil({ chainId: 31399, port: 0, blockTimeSeconds: 0, mnemonic })
    try {
      const args = execFileSync('ps', ['-o', 'args=', '-p', String(anvil.pid)], { encoding: 'utf8' })
      expect(args).toContain('anvil')
      expect(args).not.toContain('abandon')
      expect(args).not.toContain('--mnemonic')
      const res = await fetch(anvil.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [first, 'latest'] }),
      })
      expect(BigInt(((await res.json()) as { result: string }).result)).toBe(10_000n * 10n ** 18n)
    } finally {
      await anvil.stop()
    }
  })
})

describe('item 21: a failed first connection is a rejected promise, never an unhandled rejection', () => {
  const script = (url: string, origin?: string) => `
    import { getMultichainClient } from '@metamask/multichain-api-client'
    import { getWebSocketTransport } from ${JSON.stringify(resolve('src/wallet/client/websocket-transport.ts'))}
    const transport = getWebSocketTransport({ url: ${JSON.stringify(url)}${
      origin ? `, origin: ${JSON.stringify(origin)}` : ''
    } })
    const client = getMultichainClient({ transport })
    await new Promise((r) => setTimeout(r, 300)) // the client's own connect attempt fails meanwhile
    try { await client.getSession(); console.log('UNEXPECTED') } catch (e) { console.log('REJECTED ' + e.message) }
  `
  // Async: the wallet under test runs in this process and must keep answering the child.
  const run = async (source: string): Promise<{ status: number | null; stdout: string; stderr: string }> => {
    const dir = mkdtempSync(join(resolve('.'), 'node_modules', '.cg-child-'))
    try {
      writeFileSync(join(dir, 'child.mts'), source)
      const child = spawn(process.execPath, ['--import', 'tsx', join(dir, 'child.mts')], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (c) => (stdout += c))
      child.stderr.on('data', (c) => (stderr += c))
      const status = await new Promise<number | null>((r) => child.on('close', r))
      return { status, stdout, stderr }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }

  test('wallet down: the caller gets TransportError, the process exits 0', async () => {
    const r = await run(script('ws://127.0.0.1:1/', 'https://down.example'))
    expect(r.stderr).not.toMatch(/Unhandled|unhandled/)
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/^REJECTED Failed to connect to the wallet/m)
  })

  test('upgrade refused (no origin: 403): the caller gets TransportError, the process exits 0', async () => {
    const r = await run(script(wallet.h.url))
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/^REJECTED Failed to connect to the wallet at .*403/m)
  })
})
