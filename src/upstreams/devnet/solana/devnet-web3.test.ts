/**
 * The embedded Solana devnet judged by @solana/web3.js 1.x and @solana/spl-token, over HTTP and PubSub.
 */
import { createSolanaRpc } from '@solana/kit'
import * as splToken from '@solana/spl-token'
import * as web3 from '@solana/web3.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { confirmed } from '../../../../test/e2e/helpers/solana.ts'
import { useTestDevnet } from './devnet.test-support.ts'

const t = useTestDevnet()

describe('@solana/web3.js 1.x', () => {
  let connection: web3.Connection
  let payer: web3.Keypair

  beforeAll(() => {
    // Without wsEndpoint, web3.js opens PubSub on the RPC port + 1, Solana's default.
    connection = t.devnet.pubsubUrl
      ? new web3.Connection(t.devnet.url, 'confirmed')
      : new web3.Connection(t.devnet.url, { commitment: 'confirmed', wsEndpoint: t.devnet.wsUrl })
    payer = web3.Keypair.fromSeed(t.funded[1]!.privateKey)
  })
  // web3.js keeps its PubSub socket open (and reconnecting) for the Connection's life.
  afterAll(() => (connection as unknown as { _rpcWebSocket: { close(): void } })._rpcWebSocket.close())

  test('reads the funded balance, airdrops and confirms', async () => {
    expect(payer.publicKey.toBase58()).toBe(t.funded[1]!.address)
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
    await confirmed(createSolanaRpc(t.devnet.url), second)
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
