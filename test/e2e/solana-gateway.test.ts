/**
 * Solana through the gateway (docs/upstreams.md, "Chain families"): the real clients, @solana/kit and
 * @solana/web3.js 1.x, against a key's `/networks/<name>/v3/<key>` endpoint of a network whose node is the embedded
 * Solana devnet, over HTTP (reads, airdrop, transfers confirmed by polling, an SPL token), and what the gateway adds:
 * the network's id from the genesis hash, credits equal to the usage ledger, another family's methods refused,
 * heavy scans priced, Solana address allowlists, and slots that never go back for a key across two nodes.
 */
import { getTransferSolInstruction } from '@solana-program/system'
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import {
  address,
  createKeyPairSignerFromPrivateKeyBytes,
  createSolanaRpc,
  generateKeyPairSigner,
  type Instruction,
  type KeyPairSigner,
  lamports,
  type Signature,
} from '@solana/kit'
import * as web3 from '@solana/web3.js'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addAllowlistEntriesTo } from '../../src/keys/security/repository.ts'
import { ANVIL_TEST_MNEMONIC } from '../../src/upstreams/devnet/anvil.ts'
import { queryUsage } from '../../src/usage/queries.ts'
import {
  deriveSolanaKeys,
  type RunningSolanaDevnet,
  startSolanaDevnet,
} from '../../src/upstreams/devnet/solana/devnet.ts'
import { startTestServer, type TestServer } from './helpers/server.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'
import { confirmed as confirmedBy, mintAndTransferChecked, sendConfirmed } from './helpers/solana.ts'

const NETWORK = 'solana-devnet'
let server: TestServer
let payer: KeyPairSigner
let funded: { address: string; privateKey: Uint8Array }[]

const rpcClient = () => createSolanaRpc(server.endpoint(NETWORK))

const confirmed = (signature: string) => confirmedBy(rpcClient(), signature)
const send = (instructions: Instruction[]) => sendConfirmed(rpcClient(), payer, instructions)

beforeAll(async () => {
  server = await startTestServer({
    networks: [{ name: NETWORK, family: 'solana', embedded: { port: 0, slotMs: 100 } }],
  })
  funded = await deriveSolanaKeys(ANVIL_TEST_MNEMONIC, 2)
  payer = await createKeyPairSignerFromPrivateKeyBytes(funded[0]!.privateKey)
}, 90_000)
afterAll(async () => {
  await server?.stop()
})

describe('Solana through the gateway (embedded devnet, HTTP)', () => {
  it('names the network by its genesis hash and serves the funded accounts', async () => {
    const genesis = await rpcClient().getGenesisHash().send()
    expect(server.app.networks.byName(NETWORK)?.chain).toBe(`solana:${genesis.slice(0, 32)}`)
    expect(server.app.networks.byChain(`solana:${genesis.slice(0, 32)}`)?.name).toBe(NETWORK)
    const { value } = await rpcClient().getBalance(address(funded[1]!.address)).send()
    expect(value).toBeGreaterThanOrEqual(900n * 1_000_000_000n)
    const health = await rpcClient().getHealth().send()
    expect(health).toBe('ok')
  })

  it('@solana/kit: a SOL transfer confirmed by polling, read back with getTransaction', async () => {
    const recipient = await generateKeyPairSigner()
    const signature = await send([
      getTransferSolInstruction({ source: payer, destination: recipient.address, amount: lamports(1_234_567n) }),
    ])
    const { value } = await rpcClient().getBalance(recipient.address, { commitment: 'confirmed' }).send()
    expect(value).toBe(1_234_567n)
    const tx = await rpcClient()
      .getTransaction(signature as Signature, {
        commitment: 'confirmed',
        encoding: 'json',
        maxSupportedTransactionVersion: 0,
      })
      .send()
    expect(tx?.meta?.err).toBeNull()
    expect(tx?.transaction.message.accountKeys).toContain(recipient.address)
  })

  it('@solana/kit: an SPL token mint, associated accounts, mintTo and transferChecked', async () => {
    const alice = await generateKeyPairSigner()
    const { toAta: aliceAta } = await mintAndTransferChecked(rpcClient(), send, payer, alice.address)
    const balance = await rpcClient().getTokenAccountBalance(aliceAta, { commitment: 'confirmed' }).send()
    expect(balance.value).toMatchObject({ amount: '1500000', decimals: 6 })
  })

  it('@solana/web3.js 1.x: balance, airdrop and a raw transfer confirmed by polling', async () => {
    const connection = new web3.Connection(server.endpoint(NETWORK), { commitment: 'confirmed' })
    const from = web3.Keypair.fromSeed(funded[1]!.privateKey)
    expect(from.publicKey.toBase58()).toBe(funded[1]!.address)
    const to = web3.Keypair.generate()
    const airdrop = await connection.requestAirdrop(to.publicKey, web3.LAMPORTS_PER_SOL)
    await confirmed(airdrop)
    expect(await connection.getBalance(to.publicKey)).toBe(web3.LAMPORTS_PER_SOL)
    const tx = new web3.Transaction().add(
      web3.SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to.publicKey, lamports: 2_000_000 }),
    )
    tx.recentBlockhash = (await connection.getLatestBlockhash()).blockhash
    tx.feePayer = from.publicKey
    tx.sign(from)
    const signature = await connection.sendRawTransaction(tx.serialize())
    await confirmed(signature)
    expect(await connection.getBalance(to.publicKey)).toBe(web3.LAMPORTS_PER_SOL + 2_000_000)
    const parsed = await connection.getParsedTransaction(signature, { maxSupportedTransactionVersion: 0 })
    expect(parsed?.transaction.signatures[0]).toBe(signature)
  })

  it('charges Infura’s 180 credits a Solana call, 10 times for a heavy scan, and the ledger agrees', async () => {
    const { key, account } = await server.newKey('team', [NETWORK])
    const call = (method: string, params: unknown[] = []) =>
      server.rpc({ jsonrpc: '2.0', id: 1, method, params }, { network: NETWORK, key: key.key })
    const charged: number[] = []
    for (const [m, p] of [
      ['getSlot', []],
      ['getBalance', [funded[0]!.address]],
      ['getProgramAccounts', [TOKEN_PROGRAM_ADDRESS, { filters: [{ dataSize: 82 }] }]],
      ['getProgramAccounts', [TOKEN_PROGRAM_ADDRESS]],
    ] as const) {
      const r = await call(m, [...p])
      expect(r.status, r.text).toBe(200)
      charged.push(r.credits)
    }
    expect(charged).toEqual([180, 180, 180, 1800])
    await server.parts.ledger.flush()
    const day = new Date().toISOString().slice(0, 10)
    const report = await queryUsage(server.parts.database.db, { day, by: 'method', accountId: account.id })
    expect(report.total.credits).toBe(180 * 3 + 1800)
    expect(report.rows.find((r) => r.group === 'getProgramAccounts')).toMatchObject({ calls: 2, credits: 1980 })
  })

  it('refuses another family’s methods with a clear error, and bad Solana params before the node', async () => {
    const evmOnSolana = await server.rpc({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' }, { network: NETWORK })
    expect(evmOnSolana.json().error).toEqual({
      code: -32601,
      message: `eth_blockNumber is an EVM method; this network (${NETWORK}) is Solana`,
    })
    const badKey = await server.rpc(
      { jsonrpc: '2.0', id: 1, method: 'getBalance', params: ['0xnot-base58'] },
      { network: NETWORK },
    )
    expect(badKey.json().error.code).toBe(-32602)
    expect(badKey.credits).toBe(5)
    const tooMany = await server.rpc(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'getMultipleAccounts',
        params: [Array.from({ length: 101 }, () => funded[0]!.address)],
      },
      { network: NETWORK },
    )
    expect(tooMany.json().error.message).toContain('at most 100')
    const overHttp = await server.rpc({ jsonrpc: '2.0', id: 1, method: 'slotSubscribe' }, { network: NETWORK })
    expect(overHttp.json().error.message).toContain('only available over WebSocket')
  })

  it('a key with an address allowlist of Solana accounts reaches those, and no others', async () => {
    const { key } = await server.newKey('team', [NETWORK])
    const allowed = funded[0]!.address
    await addAllowlistEntriesTo(server.parts.database.db, key.id, 'addresses', [allowed], Date.now())
    await server.parts.keySnapshot.reload()
    const balance = (who: string) =>
      server.rpc({ jsonrpc: '2.0', id: 1, method: 'getBalance', params: [who] }, { network: NETWORK, key: key.key })
    expect((await balance(allowed)).status).toBe(200)
    const other = await balance(funded[1]!.address)
    expect(other.status).toBe(403)
  })

  it('follows the slot at one commitment: pushed and polled heads never step back on a steady cluster', async () => {
    // slotSubscribe pushes the processed slot; the poll (every head poll asks the finalized slot on every fifth, with
    // the latest) must read the same commitment, or the tip steps back one slot each time and logs a replaced chain.
    const until = Date.now() + 6_500 // more than five head polls of 1 s while calls flow
    while (Date.now() < until) {
      expect((await server.rpc({ jsonrpc: '2.0', id: 1, method: 'getSlot' }, { network: NETWORK })).status).toBe(200)
      await new Promise((r) => setTimeout(r, 150))
    }
    const backwards = server.logs.filter((l) => l.network === NETWORK && /backwards|head reset/.test(String(l.msg)))
    expect(backwards).toEqual([])
    const tip = server.parts.pools.get(NETWORK)!.heads.latest()!
    const processed = (await rpcClient().getSlot({ commitment: 'processed' }).send()) as bigint
    expect(Number(processed) - tip).toBeLessThanOrEqual(20)
    expect(tip).toBeGreaterThan(0)
  }, 20_000)
})

describe('Solana through the gateway: two nodes of one cluster', () => {
  let devnet: RunningSolanaDevnet
  let honest: TcpProxy
  let behind: Server
  let two: TestServer
  const LAG = 20

  beforeAll(async () => {
    devnet = await startSolanaDevnet({ port: 0, slotMs: 50 })
    honest = await startTcpProxy(devnet.url)
    // A node of the same cluster that is LAG slots behind: its slots (getSlot, single or in a batch) are lower.
    behind = createServer(async (req, res) => {
      const chunks: Buffer[] = []
      for await (const c of req) chunks.push(c as Buffer)
      const answer = await (
        await fetch(devnet.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: Buffer.concat(chunks),
        })
      ).json()
      type Call = { method?: string; params?: unknown[] }
      type Answer = { result?: any; error?: unknown; id?: unknown }
      const sent = JSON.parse(Buffer.concat(chunks).toString()) as Call | Call[]
      // Its getSlot and the context slots of its reads are LAG lower, and it refuses a minContextSlot above that.
      const lower = (call: Call, a: Answer): Answer => {
        if (call.method === 'getSlot' && typeof a.result === 'number')
          return { ...a, result: Math.max(0, a.result - LAG) }
        const slot = a.result?.context?.slot
        if (typeof slot !== 'number') return a
        const own = Math.max(0, slot - LAG)
        const min = (call.params?.find((p) => (p as { minContextSlot?: number })?.minContextSlot) as any)
          ?.minContextSlot
        if (typeof min === 'number' && min > own)
          return {
            jsonrpc: '2.0',
            id: a.id,
            error: { code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: own } },
          } as Answer
        return { ...a, result: { ...a.result, context: { ...a.result.context, slot: own } } }
      }
      const body = Array.isArray(sent)
        ? (answer as { result?: unknown }[]).map((a, i) => lower(sent[i]!, a))
        : lower(sent, answer as { result?: unknown })
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify(body))
    })
    await new Promise<void>((r) => behind.listen(0, '127.0.0.1', r))
    const port = (behind.address() as AddressInfo).port
    two = await startTestServer({
      networks: [
        {
          name: NETWORK,
          family: 'solana',
          upstreams: [
            { url: honest.url, wsUrl: devnet.wsUrl },
            { url: `http://127.0.0.1:${port}`, wsUrl: devnet.wsUrl },
          ],
          upstreamPolicy: { hedge: { enabled: false } },
        },
      ],
    })
  }, 90_000)
  afterAll(async () => {
    await two?.stop()
    behind?.close()
    await honest?.close()
    await devnet?.stop()
  })

  it('takes the cluster id from the nodes: both answer the same genesis hash', () => {
    expect(two.app.networks.byName(NETWORK)?.chain).toBe(devnet.caip2)
  })

  it('getSlot never goes back for a key, though one node answers slots behind the other', async () => {
    const slots: number[] = []
    for (let i = 0; i < 40; i++) {
      const r = await two.rpc(
        { jsonrpc: '2.0', id: i, method: 'getSlot', params: [{ commitment: 'processed' }] },
        { network: NETWORK },
      )
      slots.push(r.json().result as number)
    }
    for (let i = 1; i < slots.length; i++) expect(slots[i]!).toBeGreaterThanOrEqual(slots[i - 1]!)
    // Both nodes answered (else the floor was never needed): the pool spreads reads over healthy nodes.
    const upstreams = two.parts.pools.get(NETWORK)!.status()
    expect(upstreams.every((u) => u.answers > 0)).toBe(true)
  })

  it('account reads never answer from a slot behind what the key was told (minContextSlot)', async () => {
    const slots: number[] = []
    for (let i = 0; i < 40; i++) {
      const r = await two.rpc(
        i % 4 === 0
          ? { jsonrpc: '2.0', id: i, method: 'getSlot', params: [{ commitment: 'processed' }] }
          : { jsonrpc: '2.0', id: i, method: 'getBalance', params: [funded[0]!.address, { commitment: 'processed' }] },
        { network: NETWORK },
      )
      const result = r.json().result as number | { context: { slot: number } }
      slots.push(typeof result === 'number' ? result : result.context.slot)
    }
    for (let i = 1; i < slots.length; i++) expect(slots[i]!, `call ${i}`).toBeGreaterThanOrEqual(slots[i - 1]!)
    const upstreams = two.parts.pools.get(NETWORK)!.status()
    expect(upstreams.every((u) => u.answers > 0)).toBe(true)
  })

  it('a node killed mid-run: every read is answered by the other', async () => {
    const reads = Array.from({ length: 60 }, async (_, i) => {
      await new Promise((r) => setTimeout(r, i * 5))
      if (i === 20) await honest.cut()
      return two.rpc(
        { jsonrpc: '2.0', id: i, method: 'getBalance', params: [funded[0]!.address] },
        { network: NETWORK },
      )
    })
    const answers = await Promise.all(reads)
    const failed = answers.filter((a) => a.status !== 200 || a.json().error !== undefined)
    expect(failed.map((a) => a.text)).toEqual([])
    await honest.restore()
  })
})
