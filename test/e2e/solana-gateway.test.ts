/**
 * Solana through the gateway (docs/upstreams.md, "Chain families"): the real clients, @solana/kit and
 * @solana/web3.js 1.x, against a key's `/networks/<name>/v3/<key>` endpoint of a network whose node is the embedded
 * Solana devnet, over HTTP (reads, airdrop, transfers confirmed by polling, an SPL token), and what the gateway adds:
 * the network's id from the genesis hash, credits equal to the usage ledger, another family's methods refused,
 * heavy scans priced, Solana address allowlists, and slots that never go back for a key across two nodes.
 */
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system'
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token'
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromPrivateKeyBytes,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type Instruction,
  type KeyPairSigner,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Signature,
} from '@solana/kit'
import * as web3 from '@solana/web3.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addAllowlistEntriesTo } from '../../src/keys/security/repository.ts'
import { ANVIL_TEST_MNEMONIC } from '../../src/upstreams/devnet/anvil.ts'
import { queryUsage } from '../../src/usage/queries.ts'
import { deriveSolanaKeys } from '../../src/upstreams/devnet/solana/devnet.ts'
import { startTestServer, type TestServer } from './helpers/server.ts'

const NETWORK = 'solana-devnet'
let server: TestServer
let payer: KeyPairSigner
let funded: { address: string; privateKey: Uint8Array }[]

const rpcClient = () => createSolanaRpc(server.endpoint(NETWORK))

/** Polls getSignatureStatuses until the signature is confirmed (no WebSocket needed). */
async function confirmed(signature: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { value } = await rpcClient()
      .getSignatureStatuses([signature as Signature])
      .send()
    const s = value[0]
    if (s?.err) throw new Error(`transaction failed: ${JSON.stringify(s.err)}`)
    if (s?.confirmationStatus === 'confirmed' || s?.confirmationStatus === 'finalized') return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`${signature} not confirmed`)
}

async function send(instructions: Instruction[]): Promise<string> {
  const { value: blockhash } = await rpcClient().getLatestBlockhash().send()
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  )
  const signed = await signTransactionMessageWithSigners(message)
  await rpcClient().sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send()
  const signature = getSignatureFromTransaction(signed)
  await confirmed(signature)
  return signature
}

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
    const mint = await generateKeyPairSigner()
    const alice = await generateKeyPairSigner()
    const space = BigInt(getMintSize())
    const rent = await rpcClient().getMinimumBalanceForRentExemption(space).send()
    await send([
      getCreateAccountInstruction({
        payer,
        newAccount: mint,
        lamports: rent,
        space,
        programAddress: TOKEN_PROGRAM_ADDRESS,
      }),
      getInitializeMint2Instruction({ mint: mint.address, decimals: 6, mintAuthority: payer.address }),
    ])
    const ata = async (owner: string) =>
      (
        await findAssociatedTokenPda({ mint: mint.address, owner: address(owner), tokenProgram: TOKEN_PROGRAM_ADDRESS })
      )[0]
    const [payerAta, aliceAta] = [await ata(payer.address), await ata(alice.address)]
    await send([
      await getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: payer.address, mint: mint.address }),
      await getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: alice.address, mint: mint.address }),
      getMintToInstruction({ mint: mint.address, token: payerAta, mintAuthority: payer, amount: 5_000_000n }),
    ])
    await send([
      getTransferCheckedInstruction({
        source: payerAta,
        mint: mint.address,
        destination: aliceAta,
        authority: payer,
        amount: 1_500_000n,
        decimals: 6,
      }),
    ])
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
    await server.app.ledger.flush()
    const day = new Date().toISOString().slice(0, 10)
    const report = await queryUsage(server.app.database.db, { day, by: 'method', accountId: account.id })
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
    await addAllowlistEntriesTo(server.app.database.db, key.id, 'addresses', [allowed], Date.now())
    await server.app.keySnapshot.reload()
    const balance = (who: string) =>
      server.rpc({ jsonrpc: '2.0', id: 1, method: 'getBalance', params: [who] }, { network: NETWORK, key: key.key })
    expect((await balance(allowed)).status).toBe(200)
    const other = await balance(funded[1]!.address)
    expect(other.status).toBe(403)
  })
})
