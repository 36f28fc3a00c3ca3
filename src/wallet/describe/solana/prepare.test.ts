/**
 * prepareSolanaTransactionContext against the embedded Solana devnet (LiteSVM): the simulation's balance changes
 * (SOL and SPL), a failing simulation, an expired blockhash, and reads that fail. The transactions are unsigned: the
 * wallet simulates before it signs (sigVerify false).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system'
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToInstruction,
  getTransferInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token'
import {
  type Address,
  appendTransactionMessageInstructions,
  type Blockhash,
  createKeyPairSignerFromPrivateKeyBytes,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  generateKeyPairSigner,
  type Instruction,
  type KeyPairSigner,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ANVIL_TEST_MNEMONIC } from '../../../upstreams/devnet/anvil.ts'
import {
  deriveSolanaKeys,
  type RunningSolanaDevnet,
  startSolanaDevnet,
} from '../../../upstreams/devnet/solana/devnet.ts'
import { describeSolanaTransaction, prepareSolanaTransactionContext, type SolanaChainReads } from './index.ts'
import { addr, buildTransaction, signer } from './transactions.test-support.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'chaingate-solana-describe-'))
let devnet: RunningSolanaDevnet
let payer: KeyPairSigner
let reads: SolanaChainReads
let calls: string[]

/** JSON-RPC straight to the devnet (in the wallet it goes through the gateway): the result, or a rejection. */
function devnetReads(url: string): SolanaChainReads {
  return {
    async rpc(method, params) {
      calls.push(method)
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      })
      const body = (await response.json()) as { result?: unknown; error?: { message: string } }
      if (body.error) throw new Error(body.error.message)
      return body.result
    },
  }
}

const env = () => ({
  cluster: devnet.caip2,
  network: 'solana-devnet',
  accounts: [{ address: payer.address, index: 0, label: 'main' }],
})
const row = (v: { rows: { label: string; value: string; detail?: string }[] }, label: string) =>
  v.rows.filter((r) => r.label === label)

async function latestBlockhash(): Promise<Blockhash> {
  const { value } = await createSolanaRpc(devnet.url).getLatestBlockhash({ commitment: 'confirmed' }).send()
  return value.blockhash
}

async function send(instructions: Instruction[]) {
  const { value: blockhash } = await createSolanaRpc(devnet.url).getLatestBlockhash({ commitment: 'confirmed' }).send()
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  )
  const tx = await signTransactionMessageWithSigners(message)
  const sendAndConfirm = sendAndConfirmTransactionFactory({
    rpc: createSolanaRpc(devnet.url),
    rpcSubscriptions: createSolanaRpcSubscriptions(devnet.wsUrl),
  })
  await sendAndConfirm(tx as Parameters<typeof sendAndConfirm>[0], { commitment: 'confirmed' })
}

beforeAll(async () => {
  const [started, keys] = await Promise.all([
    startSolanaDevnet({ port: 0, slotMs: 100, stateFile: join(dataDir, 'solana.json') }),
    deriveSolanaKeys(ANVIL_TEST_MNEMONIC, 1),
  ])
  devnet = started
  payer = await createKeyPairSignerFromPrivateKeyBytes(keys[0]!.privateKey)
  reads = devnetReads(devnet.url)
}, 60_000)
afterAll(async () => {
  await devnet?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('prepareSolanaTransactionContext on the devnet', () => {
  test('a SOL transfer: balance changes of both sides, the fee paid by the fee payer', async () => {
    calls = []
    const recipient = addr(91)
    const tx = buildTransaction(
      payer.address,
      [getTransferSolInstruction({ source: signer(payer.address), destination: recipient, amount: 500_000_000n })],
      { blockhash: await latestBlockhash() },
    )
    const ctx = await prepareSolanaTransactionContext(tx, reads)
    expect(JSON.parse(JSON.stringify(ctx))).toEqual(ctx) // stored as JSON with the request
    expect(ctx.simulation).toMatchObject({ ok: true, replacedBlockhash: true })
    expect(ctx.blockhashValid).toBe(true)
    expect(ctx.unavailable).toEqual([])
    const v = describeSolanaTransaction(tx, ctx, env())
    expect(row(v, 'Simulation')[0]!.value).toBe('succeeds')
    expect(row(v, 'Balance change')).toEqual([
      { label: 'Balance change', value: '-0.500005 SOL', detail: `${payer.address} (your account #0 "main")` },
      { label: 'Balance change', value: '+0.5 SOL', detail: recipient },
    ])
    expect(v.warnings).toEqual([])
    expect(v.logs.length).toBeGreaterThan(0)
    expect(calls.sort()).toEqual(['getMultipleAccounts', 'isBlockhashValid', 'simulateTransaction'])
  })

  test('a failing simulation is a warning with the reason; an unknown blockhash is reported expired', async () => {
    const tx = buildTransaction(payer.address, [
      getTransferSolInstruction({ source: signer(payer.address), destination: addr(92), amount: 5_000n * 10n ** 9n }),
    ])
    const ctx = await prepareSolanaTransactionContext(tx, reads)
    expect(ctx.simulation?.ok).toBe(false)
    expect(ctx.blockhashValid).toBe(false)
    const v = describeSolanaTransaction(tx, ctx, env())
    expect(row(v, 'Simulation')[0]!.value).toMatch(/^fails: instruction #1 failed: custom program error 0x1/)
    expect(v.warnings[0]).toMatch(/^The simulation failed: instruction #1 failed: custom program error 0x1\. Sending/)
    expect(v.warnings).toContain(
      'The recent blockhash has expired: sending will fail. Ask the dapp to build the transaction again.',
    )
    expect(row(v, 'Balance change')).toEqual([])
  })

  test('an SPL transfer without decimals in it: decimals and token balance changes from the reads', async () => {
    const mint = await generateKeyPairSigner()
    const alice = await generateKeyPairSigner()
    const space = BigInt(getMintSize())
    const rent = await createSolanaRpc(devnet.url).getMinimumBalanceForRentExemption(space).send()
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
    const ata = async (owner: Address) =>
      (await findAssociatedTokenPda({ mint: mint.address, owner, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0]
    const [mine, hers] = [await ata(payer.address), await ata(alice.address)]
    await send([
      await getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: payer.address, mint: mint.address }),
      getMintToInstruction({ mint: mint.address, token: mine, mintAuthority: payer, amount: 5_000_000n }),
    ])
    const tx = buildTransaction(
      payer.address,
      [
        await getCreateAssociatedTokenIdempotentInstructionAsync({
          payer: signer(payer.address),
          owner: alice.address,
          mint: mint.address,
        }),
        getTransferInstruction({
          source: mine,
          destination: hers,
          authority: signer(payer.address),
          amount: 1_500_000n,
        }),
      ],
      { blockhash: await latestBlockhash() },
    )
    const ctx = await prepareSolanaTransactionContext(tx, reads)
    expect(ctx.simulation?.ok).toBe(true)
    const v = describeSolanaTransaction(tx, ctx, env())
    expect(row(v, '#2 Token Program')[0]!.value).toBe(`Transfer 1.5 of token ${mint.address}`)
    expect(row(v, 'Token balance change')).toEqual([
      {
        label: 'Token balance change',
        value: `-1.5 of token ${mint.address}`,
        detail: `token account ${mine} (owner: ${payer.address} (your account #0 "main"))`,
      },
      {
        label: 'Token balance change',
        value: `+1.5 of token ${mint.address}`,
        detail: `token account ${hers} (owner: ${alice.address})`,
      },
    ])
    // The payer also pays the new token account's rent.
    expect(row(v, 'Balance change')[0]).toMatchObject({ detail: `${payer.address} (your account #0 "main")` })
  })

  test('a v0 transaction naming a lookup table that does not exist: shown as table and entry, simulation fails', async () => {
    const table = addr(93)
    const tx = buildTransaction(
      payer.address,
      [getTransferSolInstruction({ source: signer(payer.address), destination: addr(94), amount: 1_000_000n })],
      { version: 0, lookupTables: { [table]: [addr(94)] }, blockhash: await latestBlockhash() },
    )
    const ctx = await prepareSolanaTransactionContext(tx, reads)
    expect(ctx.lookupTables).toEqual({})
    expect(ctx.simulation?.ok).toBe(false)
    const v = describeSolanaTransaction(tx, ctx, env())
    expect(row(v, '#1 System Program')[0]!.detail).toContain(`entry 0 of lookup table ${table}`)
    expect(v.warnings.some((w) => w.startsWith('The simulation failed: address lookup table not found'))).toBe(true)
  })

  test('reads that fail or hang leave a view that says what could not be checked', async () => {
    const tx = buildTransaction(payer.address, [
      getTransferSolInstruction({ source: signer(payer.address), destination: addr(95), amount: 1n }),
    ])
    const failing: SolanaChainReads = { rpc: async () => Promise.reject(new Error('upstream unavailable')) }
    const ctx = await prepareSolanaTransactionContext(tx, failing)
    expect(ctx.simulation).toBeUndefined()
    expect(ctx.unavailable).toEqual([
      'The accounts could not be read (upstream unavailable).',
      'The transaction could not be simulated (upstream unavailable).',
    ])
    const v = describeSolanaTransaction(tx, ctx, env())
    expect(row(v, 'Simulation')[0]!.value).toBe('not run')
    expect(v.warnings).toEqual(ctx.unavailable)
  })
})
