/**
 * The embedded Solana devnet judged by @solana/kit (with @solana-program/system and /token), over HTTP and PubSub.
 */
import { getTransferSolInstruction } from '@solana-program/system'
import {
  airdropFactory,
  createKeyPairSignerFromPrivateKeyBytes,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
  lamports,
} from '@solana/kit'
import { beforeAll, describe, expect, test } from 'vitest'
import {
  mintAndTransferChecked,
  sendConfirmedBySubscription,
  signedTransaction,
} from '../../../../test/e2e/helpers/solana.ts'
import { LAMPORTS_PER_SOL, rpc, useTestDevnet } from './devnet.test-support.ts'

const t = useTestDevnet()

describe('@solana/kit', () => {
  const rpcClient = () => createSolanaRpc(t.devnet.url)
  const subscriptions = () => createSolanaRpcSubscriptions(t.devnet.wsUrl)
  let payer: KeyPairSigner

  beforeAll(async () => {
    payer = await createKeyPairSignerFromPrivateKeyBytes(t.funded[0]!.privateKey)
  })

  const send = (instructions: Instruction[]) =>
    sendConfirmedBySubscription(rpcClient(), subscriptions(), payer, instructions)

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
    const alice = await generateKeyPairSigner()
    const {
      mint,
      payerAta,
      toAta: aliceAta,
      signature,
    } = await mintAndTransferChecked(rpcClient(), send, payer, alice.address)
    const balance = await rpcClient().getTokenAccountBalance(aliceAta, { commitment: 'confirmed' }).send()
    expect(balance.value).toMatchObject({ amount: '1500000', decimals: 6, uiAmountString: '1.5' })
    const supply = await rpcClient().getTokenSupply(mint, { commitment: 'confirmed' }).send()
    expect(supply.value.amount).toBe('5000000')
    const owned = await rpcClient()
      .getTokenAccountsByOwner(alice.address, { mint }, { encoding: 'jsonParsed', commitment: 'confirmed' })
      .send()
    expect(owned.value).toHaveLength(1)
    expect(owned.value[0]?.pubkey).toBe(aliceAta)
    expect(owned.value[0]?.account.data.parsed.info).toMatchObject({
      mint,
      owner: alice.address,
      state: 'initialized',
    })
    const largest = await rpcClient().getTokenLargestAccounts(mint, { commitment: 'confirmed' }).send()
    expect(largest.value.map((a) => a.address)).toEqual([payerAta, aliceAta])
    const tx = await rpcClient()
      .getTransaction(signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send()
    expect(tx?.meta?.postTokenBalances?.find((b) => b.owner === alice.address)?.uiTokenAmount.amount).toBe('1500000')
  })

  test('a failing transaction is refused by preflight with the logs, as a validator does (-32002)', async () => {
    const poor = await generateKeyPairSigner()
    const tx = await signedTransaction(rpcClient(), payer, [
      getTransferSolInstruction({ source: payer, destination: poor.address, amount: lamports(10n ** 15n) }),
    ])
    const body = await rpc(t.devnet.url, 'sendTransaction', [
      getBase64EncodedWireTransaction(tx),
      { encoding: 'base64' },
    ])
    expect(body.error.code).toBe(-32002)
    expect(body.error.message).toBe(
      'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1',
    )
    expect(body.error.data.err).toEqual({ InstructionError: [0, { Custom: 1 }] })
    expect(body.error.data.logs.join('\n')).toContain('insufficient lamports')
  })
})
