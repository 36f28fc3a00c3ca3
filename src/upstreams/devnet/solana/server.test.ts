/**
 * The devnet's server in process (fast slots): blockhash expiry, PubSub semantics, the parameter parser under a
 * seeded fuzz, and the SLIP-0010 derivation against a published vector.
 */
import { getTransferSolInstruction } from '@solana-program/system'
import {
  appendTransactionMessageInstruction,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type KeyPairSigner,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import { SolanaChain } from './chain.ts'
import { stringifyJson } from './codec.ts'
import { rpc as rawRpc } from './devnet.test-support.ts'
import { deriveSolanaAccounts } from './keys.ts'
import { handleRequest, METHOD_NAMES } from './rpc.ts'
import { type RunningServer, runServer } from './server.ts'

let server: RunningServer
let payer: KeyPairSigner
let url: string

const rpc = (method: string, params: unknown[] = []) => rawRpc(url, method, params)

async function transfer(blockhash: { blockhash: string; lastValidBlockHeight: bigint }, amount = 1_000_000n) {
  const recipient = await generateKeyPairSigner()
  const tx = await signTransactionMessageWithSigners(
    pipe(
      createTransactionMessage({ version: 'legacy' }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash as never, m),
      (m) =>
        appendTransactionMessageInstruction(
          getTransferSolInstruction({ source: payer, destination: recipient.address, amount: lamports(amount) }),
          m,
        ),
    ),
  )
  return { wire: getBase64EncodedWireTransaction(tx), signature: getSignatureFromTransaction(tx) }
}

async function latestBlockhash(commitment = 'processed') {
  const { value } = (await rpc('getLatestBlockhash', [{ commitment }])).result
  return { blockhash: value.blockhash as string, lastValidBlockHeight: BigInt(value.lastValidBlockHeight) }
}

class Socket {
  readonly messages: Array<Record<string, any>> = []
  private waiters: Array<() => void> = []
  readonly ws: WebSocket
  constructor(ws: WebSocket) {
    this.ws = ws
    ws.on('message', (data) => {
      this.messages.push(JSON.parse(String(data)))
      for (const w of this.waiters.splice(0)) w()
    })
  }
  static async open(address: string): Promise<Socket> {
    const ws = new WebSocket(address)
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    return new Socket(ws)
  }
  send(id: number, method: string, params: unknown[] = []) {
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
  }
  async next(match: (m: Record<string, any>) => boolean, timeoutMs = 5_000): Promise<Record<string, any>> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const at = this.messages.findIndex(match)
      if (at !== -1) return this.messages.splice(at, 1)[0]!
      if (Date.now() > deadline) throw new Error(`no matching message in ${JSON.stringify(this.messages)}`)
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve)
        setTimeout(resolve, 50)
      })
    }
  }
}

beforeAll(async () => {
  payer = await generateKeyPairSigner()
  server = await runServer({
    host: '127.0.0.1',
    port: 0,
    slotMs: 5,
    funded: [payer.address],
    fundedLamports: 100_000_000_000n,
  })
  url = `http://127.0.0.1:${server.port}`
})
afterAll(() => server?.close())

describe('blockhashes', () => {
  test('a transaction whose blockhash is more than 150 blocks old is refused with BlockhashNotFound', async () => {
    const old = await latestBlockhash()
    const start = server.chain.slot
    while (server.chain.slot <= start + 150) await new Promise((resolve) => setTimeout(resolve, 20))
    expect((await rpc('isBlockhashValid', [old.blockhash, { commitment: 'processed' }])).result.value).toBe(false)
    const { wire, signature } = await transfer(old)
    const refused = await rpc('sendTransaction', [wire, { encoding: 'base64' }])
    expect(refused.error).toMatchObject({
      code: -32002,
      message: 'Transaction simulation failed: Blockhash not found',
      data: { err: 'BlockhashNotFound', logs: [] },
    })
    // Without preflight the validator accepts it and drops it: it never gets a status.
    expect((await rpc('sendTransaction', [wire, { encoding: 'base64', skipPreflight: true }])).result).toBe(signature)
    expect((await rpc('getSignatureStatuses', [[signature]])).result.value).toEqual([null])
    const simulated = await rpc('simulateTransaction', [wire, { encoding: 'base64', replaceRecentBlockhash: true }])
    expect(simulated.result.value.err).toBeNull()
    expect(simulated.result.value.replacementBlockhash.blockhash).toEqual(expect.any(String))
  })

  test('a blockhash lands transactions while it is recent, once (then AlreadyProcessed)', async () => {
    const recent = await latestBlockhash()
    const { wire, signature } = await transfer(recent)
    expect((await rpc('sendTransaction', [wire, { encoding: 'base64' }])).result).toBe(signature)
    const again = await rpc('sendTransaction', [wire, { encoding: 'base64' }])
    expect(again.error).toMatchObject({ code: -32002, data: { err: 'AlreadyProcessed' } })
    const fee = await rpc('getFeeForMessage', [
      Buffer.from(Buffer.from(wire, 'base64').subarray(65)).toString('base64'),
      { commitment: 'processed' },
    ])
    expect(fee.result.value).toBe(5000)
  })
})

describe('PubSub', () => {
  test('signatureSubscribe: a received notification, then one at the commitment, then the subscription is gone', async () => {
    const socket = await Socket.open(`ws://127.0.0.1:${server.port}`)
    try {
      const { wire, signature } = await transfer(await latestBlockhash())
      socket.send(1, 'signatureSubscribe', [signature, { commitment: 'confirmed', enableReceivedNotification: true }])
      const id = (await socket.next((m) => m.id === 1)).result as number
      expect(Number.isInteger(id)).toBe(true)
      await rpc('sendTransaction', [wire, { encoding: 'base64' }])
      const received = await socket.next((m) => m.method === 'signatureNotification')
      expect(received.params).toMatchObject({ subscription: id, result: { value: 'receivedSignature' } })
      const confirmed = await socket.next((m) => m.method === 'signatureNotification')
      expect(confirmed.params).toMatchObject({ subscription: id, result: { value: { err: null } } })
      socket.send(2, 'signatureUnsubscribe', [id])
      expect((await socket.next((m) => m.id === 2)).error).toEqual({
        code: -32602,
        message: 'Invalid subscription id.',
      })
    } finally {
      socket.ws.close()
    }
  })

  test('slot, root, account and logs subscriptions notify; PubSub also listens on port + 1', async () => {
    // Port + 1 is taken where free (best effort: another process may hold it); PubSub is on the RPC port anyway.
    expect([server.port + 1, undefined]).toContain(server.pubsubPort)
    const socket = await Socket.open(`ws://127.0.0.1:${server.pubsubPort ?? server.port}`)
    try {
      socket.send(1, 'slotSubscribe')
      socket.send(2, 'rootSubscribe')
      socket.send(3, 'accountSubscribe', [payer.address, { commitment: 'processed', encoding: 'base64' }])
      socket.send(4, 'logsSubscribe', [{ mentions: [payer.address] }, { commitment: 'processed' }])
      socket.send(5, 'blockSubscribe', ['all'])
      const ids = await Promise.all([1, 2, 3, 4].map(async (i) => (await socket.next((m) => m.id === i)).result))
      expect((await socket.next((m) => m.id === 5)).error).toEqual({ code: -32601, message: 'Method not found' })
      const slot = await socket.next((m) => m.method === 'slotNotification')
      expect(slot.params.result).toEqual({
        parent: expect.any(Number),
        root: expect.any(Number),
        slot: expect.any(Number),
      })
      expect((await socket.next((m) => m.method === 'rootNotification')).params.subscription).toBe(ids[1])
      const { wire, signature } = await transfer(await latestBlockhash())
      await rpc('sendTransaction', [wire, { encoding: 'base64' }])
      const account = await socket.next((m) => m.method === 'accountNotification')
      expect(account.params.result.value).toMatchObject({
        owner: '11111111111111111111111111111111',
        data: ['', 'base64'],
      })
      const logs = await socket.next((m) => m.method === 'logsNotification')
      expect(logs.params.result.value).toMatchObject({ signature, err: null })
      socket.send(6, 'slotUnsubscribe', [ids[0]])
      expect((await socket.next((m) => m.id === 6)).result).toBe(true)
    } finally {
      socket.ws.close()
    }
  })
})

describe('the parameter parser', () => {
  test('always answers one JSON-RPC response, whatever the method and parameters (seeded fuzz)', () => {
    const chain = new SolanaChain({ funded: [], fundedLamports: 0n })
    const ctx = { chain }
    const param = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.constantFrom('11111111111111111111111111111111', 'base64', 'jsonParsed', 'AAAA', '0OIl', ''),
      fc.record({
        encoding: fc.constantFrom('base58', 'base64', 'jsonParsed', 'json', 'binary', 'x'),
        commitment: fc.constantFrom('processed', 'confirmed', 'finalized', 'nope'),
        minContextSlot: fc.integer({ min: -1, max: 3 }),
        filters: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
      }),
    )
    fc.assert(
      fc.property(
        fc.constantFrom(...METHOD_NAMES, 'nope', 'accountSubscribe'),
        fc.oneof(fc.array(param, { maxLength: 4 }), fc.jsonValue({ maxDepth: 2 })),
        fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
        (method, params, id) => {
          const response = handleRequest({ jsonrpc: '2.0', id, method, params }, ctx)
          expect(response.jsonrpc).toBe('2.0')
          expect('result' in response !== 'error' in response).toBe(true)
          if ('error' in response) {
            const error = response.error as { code: number; message: string }
            expect(Number.isInteger(error.code)).toBe(true)
            expect(error.code).not.toBe(-32603)
          }
          expect(() => stringifyJson(response)).not.toThrow()
        },
      ),
      { seed: 20_270_127, numRuns: 1500 },
    )
  })
})

describe('keys', () => {
  test("derives m/44'/501'/i'/0' as Phantom and Solflare do (the published vector of the abandon…about mnemonic)", async () => {
    const [first] = await deriveSolanaAccounts(
      'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
      1,
    )
    expect(first).toEqual({
      index: 0,
      path: "m/44'/501'/0'/0'",
      address: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk',
    })
    await expect(deriveSolanaAccounts('not a mnemonic')).rejects.toMatchObject({ code: 'SOLANA_DEVNET_BAD_MNEMONIC' })
  })
})
