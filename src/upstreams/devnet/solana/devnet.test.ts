/**
 * The embedded Solana devnet judged by the real clients: @solana/kit and @solana/web3.js 1.x against the devnet
 * process, over HTTP and PubSub.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { getTransferSolInstruction } from '@solana-program/system'
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token'
import { getCreateAccountInstruction } from '@solana-program/system'
import {
  address,
  airdropFactory,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromPrivateKeyBytes,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type Instruction,
  type KeyPairSigner,
  lamports,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit'
import * as splToken from '@solana/spl-token'
import * as web3 from '@solana/web3.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ANVIL_TEST_MNEMONIC } from '../anvil.ts'
import { deriveSolanaKeys, type RunningSolanaDevnet, SolanaDevnetError, startSolanaDevnet } from './devnet.ts'

const LAMPORTS_PER_SOL = 1_000_000_000n
const dataDir = mkdtempSync(join(tmpdir(), 'chaingate-solana-test-'))
const stateFile = join(dataDir, 'chains', 'solana.json')
let devnet: RunningSolanaDevnet
let funded: Array<{ address: string; privateKey: Uint8Array }>

async function rpc(url: string, method: string, params: unknown[] = []): Promise<Record<string, any>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return (await response.json()) as Record<string, any>
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

beforeAll(async () => {
  ;[devnet, funded] = await Promise.all([
    startSolanaDevnet({ port: 0, slotMs: 100, stateFile }),
    deriveSolanaKeys(ANVIL_TEST_MNEMONIC, 2),
  ])
}, 60_000)
afterAll(async () => {
  await devnet?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('the devnet process', () => {
  test('names itself by its genesis hash and funds the mnemonic accounts with 1,000 SOL', async () => {
    expect(devnet.caip2).toBe(`solana:${devnet.genesisHash.slice(0, 32)}`)
    expect(devnet.accounts).toHaveLength(10)
    expect(devnet.accounts[0]).toMatchObject({ index: 0, path: "m/44'/501'/0'/0'", address: funded[0]?.address })
    const rpcClient = createSolanaRpc(devnet.url)
    for (const account of devnet.accounts.slice(0, 3)) {
      const { value } = await rpcClient.getBalance(address(account.address)).send()
      expect(value).toBe(1000n * LAMPORTS_PER_SOL)
    }
    expect(await rpcClient.getGenesisHash().send()).toBe(devnet.genesisHash)
  })
})

describe('@solana/kit', () => {
  const rpcClient = () => createSolanaRpc(devnet.url)
  const subscriptions = () => createSolanaRpcSubscriptions(devnet.wsUrl)
  let payer: KeyPairSigner

  beforeAll(async () => {
    payer = await createKeyPairSignerFromPrivateKeyBytes(funded[0]!.privateKey)
  })

  async function send(instructions: Instruction[], signers: KeyPairSigner[] = []) {
    const { value: blockhash } = await rpcClient().getLatestBlockhash({ commitment: 'confirmed' }).send()
    void signers // signers are carried by the instructions' account metas
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    )
    const tx = await signTransactionMessageWithSigners(message)
    const sendAndConfirm = sendAndConfirmTransactionFactory({ rpc: rpcClient(), rpcSubscriptions: subscriptions() })
    await sendAndConfirm(tx as Parameters<typeof sendAndConfirm>[0], { commitment: 'confirmed' })
    return getSignatureFromTransaction(tx)
  }

  test('airdrops and confirms through airdropFactory', async () => {
    const recipient = await generateKeyPairSigner()
    const airdrop = airdropFactory({ rpc: rpcClient(), rpcSubscriptions: subscriptions() })
    await airdrop({
      recipientAddress: recipient.address,
      lamports: lamports(2n * LAMPORTS_PER_SOL),
      commitment: 'confirmed',
    })
    const { value } = await rpcClient().getBalance(recipient.address, { commitment: 'confirmed' }).send()
    expect(value).toBe(2n * LAMPORTS_PER_SOL)
  })

  // A new account needs the rent-exempt minimum (890,880 lamports for no data), as on any cluster.
  test('transfers SOL, confirmed by signatureSubscribe, and reads the transaction back', async () => {
    const recipient = await generateKeyPairSigner()
    const signature = await send([
      getTransferSolInstruction({ source: payer, destination: recipient.address, amount: lamports(1_234_567n) }),
    ])
    const { value } = await rpcClient().getBalance(recipient.address, { commitment: 'confirmed' }).send()
    expect(value).toBe(1_234_567n)
    const tx = await rpcClient()
      .getTransaction(signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send()
    expect(tx?.meta?.err).toBeNull()
    expect(tx?.meta?.fee).toBe(5000n)
    expect(tx?.version).toBe(0)
    expect(tx?.transaction.message.accountKeys).toContain(recipient.address)
    const parsed = await rpcClient()
      .getTransaction(signature, { commitment: 'confirmed', encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 })
      .send()
    expect(parsed?.transaction.message.instructions[0]).toMatchObject({
      program: 'system',
      parsed: { type: 'transfer', info: { destination: recipient.address, lamports: 1_234_567n } },
    })
    const signatures = await rpcClient().getSignaturesForAddress(recipient.address, { commitment: 'confirmed' }).send()
    expect(signatures.map((s) => s.signature)).toEqual([signature])
  })

  test('creates an SPL token mint and an associated token account, mints and transfers', async () => {
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
    const [payerAta] = await findAssociatedTokenPda({
      mint: mint.address,
      owner: payer.address,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    })
    const [aliceAta] = await findAssociatedTokenPda({
      mint: mint.address,
      owner: alice.address,
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    })
    await send([
      await getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: payer.address, mint: mint.address }),
      await getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: alice.address, mint: mint.address }),
      getMintToInstruction({ mint: mint.address, token: payerAta, mintAuthority: payer, amount: 5_000_000n }),
    ])
    const signature = await send([
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
    expect(balance.value).toMatchObject({ amount: '1500000', decimals: 6, uiAmountString: '1.5' })
    const supply = await rpcClient().getTokenSupply(mint.address, { commitment: 'confirmed' }).send()
    expect(supply.value.amount).toBe('5000000')
    const owned = await rpcClient()
      .getTokenAccountsByOwner(
        alice.address,
        { mint: mint.address },
        { encoding: 'jsonParsed', commitment: 'confirmed' },
      )
      .send()
    expect(owned.value).toHaveLength(1)
    expect(owned.value[0]?.pubkey).toBe(aliceAta)
    expect(owned.value[0]?.account.data.parsed.info).toMatchObject({
      mint: mint.address,
      owner: alice.address,
      state: 'initialized',
    })
    const largest = await rpcClient().getTokenLargestAccounts(mint.address, { commitment: 'confirmed' }).send()
    expect(largest.value.map((a) => a.address)).toEqual([payerAta, aliceAta])
    const tx = await rpcClient()
      .getTransaction(signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send()
    expect(tx?.meta?.postTokenBalances?.find((b) => b.owner === alice.address)?.uiTokenAmount.amount).toBe('1500000')
  })

  test('a failing transaction is refused by preflight with the logs, as a validator does (-32002)', async () => {
    const poor = await generateKeyPairSigner()
    const { value: blockhash } = await rpcClient().getLatestBlockhash().send()
    const tx = await signTransactionMessageWithSigners(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(payer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
        (m) =>
          appendTransactionMessageInstructions(
            [getTransferSolInstruction({ source: payer, destination: poor.address, amount: lamports(10n ** 15n) })],
            m,
          ),
      ),
    )
    const body = await rpc(devnet.url, 'sendTransaction', [getBase64EncodedWireTransaction(tx), { encoding: 'base64' }])
    expect(body.error.code).toBe(-32002)
    expect(body.error.message).toBe(
      'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1',
    )
    expect(body.error.data.err).toEqual({ InstructionError: [0, { Custom: 1 }] })
    expect(body.error.data.logs.join('\n')).toContain('insufficient lamports')
  })
})

describe('@solana/web3.js 1.x', () => {
  let connection: web3.Connection
  let payer: web3.Keypair

  beforeAll(() => {
    // Without wsEndpoint, web3.js opens PubSub on the RPC port + 1, Solana's default.
    connection = devnet.pubsubUrl
      ? new web3.Connection(devnet.url, 'confirmed')
      : new web3.Connection(devnet.url, { commitment: 'confirmed', wsEndpoint: devnet.wsUrl })
    payer = web3.Keypair.fromSeed(funded[1]!.privateKey)
  })
  // web3.js keeps its PubSub socket open (and reconnecting) for the Connection's life.
  afterAll(() => (connection as unknown as { _rpcWebSocket: { close(): void } })._rpcWebSocket.close())

  test('reads the funded balance, airdrops and confirms', async () => {
    expect(payer.publicKey.toBase58()).toBe(funded[1]!.address)
    expect(await connection.getBalance(payer.publicKey)).toBe(1000 * web3.LAMPORTS_PER_SOL)
    const recipient = web3.Keypair.generate()
    const signature = await connection.requestAirdrop(recipient.publicKey, web3.LAMPORTS_PER_SOL)
    const latest = await connection.getLatestBlockhash()
    await connection.confirmTransaction({ signature, ...latest })
    expect(await connection.getBalance(recipient.publicKey)).toBe(web3.LAMPORTS_PER_SOL)
  })

  test('sendAndConfirmTransaction (onSignature) and a raw send confirmed by polling', async () => {
    const recipient = web3.Keypair.generate()
    const transfer = (lamportsToSend: number) =>
      new web3.Transaction().add(
        web3.SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: recipient.publicKey,
          lamports: lamportsToSend,
        }),
      )
    const first = await web3.sendAndConfirmTransaction(connection, transfer(1_000_000), [payer])
    const tx = transfer(2_000_000)
    tx.recentBlockhash = (await connection.getLatestBlockhash()).blockhash
    tx.feePayer = payer.publicKey
    tx.sign(payer)
    const second = await connection.sendRawTransaction(tx.serialize())
    let status: web3.SignatureStatus | null = null
    for (
      let i = 0;
      i < 100 && status?.confirmationStatus !== 'confirmed' && status?.confirmationStatus !== 'finalized';
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      status = (await connection.getSignatureStatuses([second])).value[0] ?? null
    }
    expect(status).toMatchObject({ err: null, confirmationStatus: expect.stringMatching(/confirmed|finalized/) })
    expect(await connection.getBalance(recipient.publicKey)).toBe(3_000_000)
    const parsed = await connection.getParsedTransaction(first, { maxSupportedTransactionVersion: 0 })
    expect(parsed?.meta?.fee).toBe(5000)
    expect(parsed?.transaction.signatures[0]).toBe(first)
  })

  test('SPL token with @solana/spl-token: mint, associated account, mintTo, transfer, parsed accounts', async () => {
    const owner = web3.Keypair.generate()
    const mint = await splToken.createMint(connection, payer, payer.publicKey, null, 2)
    const from = await splToken.getOrCreateAssociatedTokenAccount(connection, payer, mint, payer.publicKey)
    const to = await splToken.getOrCreateAssociatedTokenAccount(connection, payer, mint, owner.publicKey)
    await splToken.mintTo(connection, payer, mint, from.address, payer, 10_000)
    await splToken.transfer(connection, payer, from.address, to.address, payer, 2_550)
    const account = await splToken.getAccount(connection, to.address)
    expect(account.amount).toBe(2_550n)
    const parsed = await connection.getParsedTokenAccountsByOwner(owner.publicKey, { mint })
    expect(parsed.value).toHaveLength(1)
    expect(parsed.value[0]?.account.data.parsed.info.tokenAmount).toMatchObject({
      amount: '2550',
      decimals: 2,
      uiAmount: 25.5,
    })
  })
})

describe('errors as a validator answers them', () => {
  test('bad base58 and base64 transactions, more than 100 keys, a bad public key, a method that does not exist', async () => {
    expect((await rpc(devnet.url, 'sendTransaction', ['0OIl'])).error).toEqual({
      code: -32602,
      message: "invalid base58 encoding: InvalidCharacter { character: '0', index: 0 }",
    })
    expect((await rpc(devnet.url, 'sendTransaction', ['!!!!', { encoding: 'base64' }])).error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^invalid base64 encoding: /),
    })
    expect((await rpc(devnet.url, 'sendTransaction', ['AAAA', { encoding: 'base64' }])).error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^failed to deserialize solana_transaction::versioned::VersionedTransaction/),
    })
    const keys = Array.from({ length: 101 }, () => devnet.accounts[0]!.address)
    expect((await rpc(devnet.url, 'getMultipleAccounts', [keys])).error).toEqual({
      code: -32602,
      message: 'Too many inputs provided; max 100',
    })
    expect((await rpc(devnet.url, 'getBalance', ['not-a-key'])).error).toEqual({
      code: -32602,
      message: 'Invalid param: Invalid',
    })
    expect((await rpc(devnet.url, 'eth_chainId')).error).toEqual({ code: -32601, message: 'Method not found' })
    expect((await rpc(devnet.url, 'getSlot', [{ minContextSlot: 10 ** 12 }])).error).toMatchObject({
      code: -32016,
      message: 'Minimum context slot has not been reached',
    })
  })

  test('answers a batch in order', async () => {
    const response = await fetch(devnet.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'getHealth' },
        { jsonrpc: '2.0', id: 2, method: 'nope' },
      ]),
    })
    const body = (await response.json()) as Array<Record<string, unknown>>
    expect(body.map((b) => b.id)).toEqual([1, 2])
    expect(body[0]?.result).toBe('ok')
  })
})

describe('lifecycle', () => {
  test('a restart keeps balances, history and the genesis hash', async () => {
    const recipient = web3.Keypair.generate().publicKey.toBase58()
    const signature = (await rpc(devnet.url, 'requestAirdrop', [recipient, 1_000_000_000])).result as string
    const { genesisHash } = devnet
    await devnet.stop()
    devnet = await startSolanaDevnet({ port: 0, slotMs: 100, stateFile })
    expect(devnet.genesisHash).toBe(genesisHash)
    expect((await rpc(devnet.url, 'getBalance', [recipient, { commitment: 'processed' }])).result.value).toBe(
      1_000_000_000,
    )
    const status = await rpc(devnet.url, 'getSignatureStatuses', [[signature], { searchTransactionHistory: true }])
    expect(status.result.value[0]).toMatchObject({ err: null })
    // Funded accounts are funded once: what they spent stays spent.
    const { result } = await rpc(devnet.url, 'getBalance', [funded[0]!.address, { commitment: 'processed' }])
    expect(result.value).toBeLessThan(1000 * web3.LAMPORTS_PER_SOL)
  }, 60_000)

  test('does not outlive its parent when that is SIGKILLed', async () => {
    const fixture = fileURLToPath(new URL('../fixtures/start-solana-child.ts', import.meta.url))
    const parent = spawn(process.execPath, ['--import', 'tsx', fixture], { stdio: ['ignore', 'pipe', 'inherit'] })
    const line = await new Promise<string>((resolve, reject) => {
      let text = ''
      parent.stdout.on('data', (chunk: Buffer) => {
        text += chunk.toString()
        if (text.includes('\n')) resolve(text.split('\n')[0] as string)
      })
      parent.once('exit', () => reject(new Error(`fixture exited: ${text}`)))
    })
    const { pid } = JSON.parse(line) as { pid: number }
    expect(isAlive(pid)).toBe(true)
    parent.kill('SIGKILL')
    const deadline = Date.now() + 10_000
    while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(isAlive(pid)).toBe(false)
  }, 60_000)

  test('solana-test-validator that is not installed fails with a clear error', async () => {
    const error = await startSolanaDevnet({
      port: 0,
      engine: 'solana-test-validator',
      validatorBinary: join(dataDir, 'no-such-dir', 'solana-test-validator'),
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SolanaDevnetError)
    expect((error as SolanaDevnetError).code).toBe('SOLANA_VALIDATOR_MISSING')
    expect((error as Error).message).toMatch(/solana-test-validator not found.*install the Agave tools/)
  })
})
