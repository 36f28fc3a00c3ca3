/**
 * Solana subscriptions through the gateway's WebSocket endpoint (docs/subscriptions.md, "Solana"): real clients
 * (@solana/kit's createSolanaRpcSubscriptions, @solana/web3.js 1.x Connection and raw WebSockets) through a real
 * gateway to the embedded Solana devnet (LiteSVM) behind two TCP proxies, one of which is cut mid-run.
 */
import { getTransferSolInstruction } from '@solana-program/system'
import {
  address,
  createKeyPairSignerFromPrivateKeyBytes,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  generateKeyPairSigner,
  lamports,
} from '@solana/kit'
import * as web3 from '@solana/web3.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { ANVIL_TEST_MNEMONIC } from '../../src/upstreams/devnet/anvil.ts'
import {
  deriveSolanaKeys,
  type RunningSolanaDevnet,
  startSolanaDevnet,
} from '../../src/upstreams/devnet/solana/devnet.ts'
import { queryUsage } from '../../src/usage/queries.ts'
import { startFakeNode } from '../support/fake-node.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'
import { sendConfirmedBySubscription } from './helpers/solana.ts'

const NETWORK = 'solana-devnet'
const PRICE = 180
let devnet: RunningSolanaDevnet
let funded: { address: string; privateKey: Uint8Array }[]
const proxies: TcpProxy[] = []
let s: TestServer

beforeAll(async () => {
  ;[devnet, funded] = await Promise.all([
    startSolanaDevnet({ port: 0, slotMs: 200 }),
    deriveSolanaKeys(ANVIL_TEST_MNEMONIC, 2),
  ])
  for (let i = 0; i < 2; i++) proxies.push(await startTcpProxy(devnet.url))
  s = await startTestServer({
    plans: { team: { creditsPerDay: 1e12, creditsPerSecond: 1e9, maxKeys: null } },
    networks: [{ name: NETWORK, family: 'solana', upstreams: proxies.map((p) => ({ url: p.url, wsUrl: p.wsUrl })) }],
    // The subscriptions stay where a failover puts them (no move back during the test).
    gateway: { subscriptionFailbackMs: 0 },
  })
}, 60_000)
afterAll(async () => {
  await s?.stop()
  for (const p of proxies) await p.close()
  await devnet?.stop()
})

const wsUrl = (key = s.key.key) => `${s.url.replace('http', 'ws')}/networks/${NETWORK}/ws/v3/${key}`
const httpUrl = (key = s.key.key) => s.endpoint(NETWORK, key)
const hub = () => s.parts.hubs.get(NETWORK)!

async function until(check: () => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** A raw WebSocket client: answers by id, notifications as the exact text the gateway wrote. */
async function rawClient(key?: string) {
  const ws = new WebSocket(wsUrl(key))
  const answers = new Map<number, (m: any) => void>()
  const notes: string[] = []
  const order: string[] = []
  let closedWith: number | undefined
  ws.on('close', (code) => {
    closedWith = code
  })
  ws.on('message', (d) => {
    const text = d.toString()
    const m = JSON.parse(text)
    if (m.method) {
      notes.push(text)
      order.push(`note:${m.params.subscription}`)
    } else {
      order.push(`answer:${m.id}`)
      answers.get(m.id)?.(m)
    }
  })
  await new Promise((r, j) => ws.once('open', r).once('error', j))
  let id = 0
  const ask = (method: string, params: unknown[] = []) =>
    new Promise<any>((r) => {
      const n = ++id
      answers.set(n, r)
      ws.send(JSON.stringify(call(method, params, n)))
    })
  return {
    ws,
    ask,
    notes,
    order,
    parsed: () => notes.map((t) => JSON.parse(t)),
    closedWith: () => closedWith,
  }
}

const usage = async (accountId: string, keyId: string) => {
  await s.parts.ledger.flush()
  const day = new Date().toISOString().slice(0, 10)
  const rows = (await queryUsage(s.parts.database.db, { day, by: 'method', accountId, keyId })).rows
  return Object.fromEntries(rows.map((r) => [r.group, { calls: r.calls, credits: r.credits }]))
}

describe('Solana subscriptions through the gateway', () => {
  it('slotSubscribe: integer ids, notifications exactly as a validator writes them; two clients share one node subscription; unsubscribe as Agave answers', async () => {
    const a = await rawClient()
    const b = await rawClient()
    const before = hub().size
    const idA = (await a.ask('slotSubscribe')).result
    const idB = (await b.ask('slotSubscribe')).result
    expect(Number.isSafeInteger(idA) && Number.isSafeInteger(idB)).toBe(true)
    expect(hub().size).toBe(before + 1)
    await until(() => a.notes.length >= 3 && b.notes.length >= 3)
    expect(a.notes[0]).toMatch(
      new RegExp(
        `^\\{"jsonrpc":"2\\.0","method":"slotNotification","params":\\{"result":\\{"parent":\\d+,"root":\\d+,` +
          `"slot":\\d+\\},"subscription":${idA}\\}\\}$`,
      ),
    )
    const slotsA = a.parsed().map((m) => m.params.result.slot)
    expect(slotsA).toEqual([...slotsA].sort((x, y) => x - y))
    expect(new Set(slotsA).size).toBe(slotsA.length)

    expect(await a.ask('slotUnsubscribe', [idA])).toEqual({ jsonrpc: '2.0', id: expect.any(Number), result: true })
    expect((await a.ask('slotUnsubscribe', [idA])).error).toEqual({ code: -32602, message: 'Invalid subscription id.' })
    expect((await a.ask('accountUnsubscribe', ['x'])).error).toEqual({
      code: -32602,
      message: 'Invalid params: invalid type: string, expected u64.',
    })
    expect(hub().size).toBe(before + 1) // b still holds it
    const seen = a.notes.length
    await until(() => b.notes.length >= 6)
    expect(a.notes.length).toBeLessThanOrEqual(seen + 1) // at most one already on its way
    b.ws.close()
    await until(() => hub().size === before)
    a.ws.close()
  })

  it('over HTTP a Solana subscribe is refused as eth_subscribe is', async () => {
    const r = await s.rpc(call('accountSubscribe', [funded[0]!.address]), { network: NETWORK })
    expect(r.json().error).toEqual({
      code: -32601,
      message: 'accountSubscribe is only available over WebSocket: connect to /ws/v3/<key>',
    })
  })

  it('@solana/kit: slot notifications, an account change after a transfer, and sendAndConfirm (signatureNotifications)', async () => {
    const rpc = createSolanaRpc(httpUrl())
    const subscriptions = createSolanaRpcSubscriptions(wsUrl())
    const abort = new AbortController()
    const slots: bigint[] = []
    const slotStream = await subscriptions.slotNotifications().subscribe({ abortSignal: abort.signal })
    void (async () => {
      for await (const n of slotStream) slots.push(n.slot)
    })().catch(() => undefined)
    const payer = await createKeyPairSignerFromPrivateKeyBytes(funded[0]!.privateKey)
    const recipient = await generateKeyPairSigner()
    const changes: bigint[] = []
    const accountStream = await subscriptions
      .accountNotifications(recipient.address, { commitment: 'confirmed' })
      .subscribe({ abortSignal: abort.signal })
    void (async () => {
      for await (const n of accountStream) changes.push(n.value.lamports)
    })().catch(() => undefined)

    const signature = await sendConfirmedBySubscription(rpc, subscriptions, payer, [
      getTransferSolInstruction({ source: payer, destination: recipient.address, amount: lamports(5_000_000n) }),
    ])
    await until(() => changes.length >= 1 && slots.length >= 3)
    expect(changes[0]).toBe(5_000_000n)
    expect(slots).toEqual([...slots].sort((x, y) => Number(x - y)))
    const { value } = await rpc.getBalance(address(recipient.address)).send()
    expect(value).toBe(5_000_000n)
    abort.abort()
    expect(signature).toBeTruthy()
  })

  it('@solana/web3.js: onAccountChange after an airdrop, onSignature of a transfer and of one already confirmed, onSlotChange', async () => {
    const connection = new web3.Connection(httpUrl(), { commitment: 'confirmed', wsEndpoint: wsUrl() })
    try {
      const recipient = web3.Keypair.generate()
      const balances: number[] = []
      const sub = connection.onAccountChange(recipient.publicKey, (info) => balances.push(info.lamports), {
        commitment: 'confirmed',
      })
      const slots: number[] = []
      const slotSub = connection.onSlotChange((info) => slots.push(info.slot))
      await until(() => slots.length >= 1) // the socket is open and subscribed
      await new Promise((r) => setTimeout(r, 300)) // the account subscription is in place too
      const airdrop = await connection.requestAirdrop(recipient.publicKey, web3.LAMPORTS_PER_SOL)
      await until(() => balances.length >= 1)
      expect(balances[0]).toBe(web3.LAMPORTS_PER_SOL)

      const payer = web3.Keypair.fromSeed(funded[1]!.privateKey)
      const confirmed: unknown[] = []
      const signature = await web3.sendAndConfirmTransaction(
        connection,
        new web3.Transaction().add(
          web3.SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient.publicKey, lamports: 1000 }),
        ),
        [payer],
      )
      // A signature confirmed before the subscription: the node answers at once; the client gets its id first.
      connection.onSignature(signature, (result) => confirmed.push(result), 'confirmed')
      connection.onSignature(airdrop, (result) => confirmed.push(result), 'confirmed')
      await until(() => confirmed.length === 2)
      expect(confirmed).toEqual([{ err: null }, { err: null }])
      await until(() => balances.length >= 2)
      expect(balances.at(-1)).toBe(web3.LAMPORTS_PER_SOL + 1000)
      expect(slots).toEqual([...slots].sort((x, y) => x - y))
      await connection.removeAccountChangeListener(sub)
      await connection.removeSlotChangeListener(slotSub)
    } finally {
      ;(connection as unknown as { _rpcWebSocket: { close(): void } })._rpcWebSocket.close()
    }
  })

  it('signatureSubscribe of a confirmed signature: the answer first, then one notification, then it is gone', async () => {
    const c = await rawClient()
    const rpc = createSolanaRpc(httpUrl())
    const recipient = await generateKeyPairSigner()
    const sig = await rpc.requestAirdrop(recipient.address, lamports(1_000_000n), { commitment: 'confirmed' }).send()
    await until(() => false, 1500).catch(() => undefined) // past confirmed
    const id = (await c.ask('signatureSubscribe', [sig, { commitment: 'confirmed' }])).result
    await until(() => c.notes.length === 1)
    expect(c.order).toEqual(['answer:1', `note:${id}`])
    expect(c.parsed()[0].params.result).toEqual({ context: { slot: expect.any(Number) }, value: { err: null } })
    expect((await c.ask('signatureUnsubscribe', [id])).error).toEqual({
      code: -32602,
      message: 'Invalid subscription id.',
    })
    c.ws.close()
  })

  it('charges: the subscribe, each notification delivered and the unsubscribe, exactly as the usage ledger records them; a ping not at all', async () => {
    const { account, key } = await s.newKey('team')
    const c = await rawClient(key.key)
    // The clients' keepalives (web3.js every 5 s, kit after 5 s of quiet): no answer, not charged.
    c.ws.send('{"jsonrpc":"2.0","method":"ping"}')
    c.ws.send('{"jsonrpc":"2.0","method":"ping","params":null}')
    const id = (await c.ask('slotSubscribe')).result
    const root = (await c.ask('rootSubscribe')).result
    await until(() => c.notes.filter((n) => n.includes('slotNotification')).length >= 4)
    expect((await c.ask('slotUnsubscribe', [id])).result).toBe(true)
    expect((await c.ask('rootUnsubscribe', [root])).result).toBe(true)
    await new Promise((r) => setTimeout(r, 300))
    const slotNotes = c.notes.filter((n) => n.includes('slotNotification')).length
    const rootNotes = c.notes.filter((n) => n.includes('rootNotification')).length
    const rows = await usage(account.id, key.id)
    expect(rows.slotNotification).toEqual({ calls: slotNotes, credits: slotNotes * PRICE })
    if (rootNotes > 0) expect(rows.rootNotification).toEqual({ calls: rootNotes, credits: rootNotes * PRICE })
    expect(rows.slotSubscribe).toEqual({ calls: 1, credits: PRICE })
    expect(rows.slotUnsubscribe).toEqual({ calls: 1, credits: PRICE })
    const total = Object.values(rows).reduce((sum, r) => sum + r.credits, 0)
    expect(total).toBe((4 + slotNotes + rootNotes) * PRICE)
    expect(await s.parts.limits.usedToday(account.id, Date.now())).toBe(total)
    expect(c.order.filter((o) => o.startsWith('answer:'))).toEqual(['answer:1', 'answer:2', 'answer:3', 'answer:4'])
    c.ws.close()
  })

  it('failover: the node carrying the subscriptions is cut; they move to the other without the clients noticing, slots never twice or backwards', async () => {
    const c = await rawClient()
    const slotId = (await c.ask('slotSubscribe')).result
    const recipient = await generateKeyPairSigner()
    const accountId = (await c.ask('accountSubscribe', [recipient.address, { commitment: 'confirmed' }])).result
    await until(() => c.notes.length >= 3)
    const current = proxies.find((p) => p.wsUrl === hub().upstream)!
    const other = proxies.find((p) => p !== current)!
    await current.cut()
    await until(() => hub().upstream === other.wsUrl)
    const at = c.notes.length
    await until(() => c.notes.length >= at + 4)
    // The account subscription moved too: a change after the move is notified.
    const rpc = createSolanaRpc(httpUrl())
    await rpc.requestAirdrop(recipient.address, lamports(7_000_000n)).send()
    await until(() => c.parsed().some((m) => m.params.subscription === accountId))
    const account = c.parsed().find((m) => m.params.subscription === accountId)
    expect(account.method).toBe('accountNotification')
    expect(account.params.result.value.lamports).toBe(7_000_000)
    const slots = c
      .parsed()
      .filter((m) => m.params.subscription === slotId)
      .map((m) => m.params.result.slot)
    expect(slots).toEqual([...slots].sort((x, y) => x - y))
    expect(new Set(slots).size).toBe(slots.length)
    expect(c.closedWith()).toBeUndefined()
    expect(hub().moves.dropped).toBeGreaterThanOrEqual(1)
    await current.restore()
    c.ws.close()
  })
})

describe('a node that notifies in the same turn as its subscribe answer', () => {
  it('the client gets its subscription id first, then the notification', async () => {
    const node = await startFakeNode('0x1')
    // A validator does this for a signature already at the commitment asked: the notification right behind the
    // answer, read by the gateway before it has taken the answer in.
    node.afterSubscribe = (kind) => (kind === 'signature' ? { context: { slot: 9 }, value: { err: null } } : undefined)
    const g = await startTestServer({
      plans: { team: { creditsPerDay: 1e12, creditsPerSecond: 1e9, maxKeys: null } },
      networks: [{ name: 'solana-fake', family: 'solana', upstreams: [{ url: node.url, wsUrl: node.wsUrl }] }],
    })
    try {
      const ws = new WebSocket(`${g.url.replace('http', 'ws')}/networks/solana-fake/ws/v3/${g.key.key}`)
      const got: any[] = []
      ws.on('message', (d) => got.push(JSON.parse(d.toString())))
      await new Promise((r, j) => ws.once('open', r).once('error', j))
      const sig = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW'
      ws.send(JSON.stringify(call('signatureSubscribe', [sig, { commitment: 'confirmed' }], 7)))
      await until(() => got.length === 2)
      expect(got).toEqual([
        { jsonrpc: '2.0', id: 7, result: 0 },
        {
          jsonrpc: '2.0',
          method: 'signatureNotification',
          params: { result: { context: { slot: 9 }, value: { err: null } }, subscription: 0 },
        },
      ])
      ws.close()
    } finally {
      await g.stop()
      await node.close()
    }
  })
})
