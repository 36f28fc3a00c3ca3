/**
 * Solana test steps shared by the devnet's own tests (src/upstreams/devnet/solana/) and the gateway's Solana end to
 * end tests: a transaction sent over HTTP and confirmed by polling (no WebSocket needed), and an SPL Token mint with
 * associated token accounts, built with @solana/kit and @solana-program/token.
 */
import { getCreateAccountInstruction } from '@solana-program/system'
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
  type Address,
  address,
  appendTransactionMessageInstructions,
  type Commitment,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  type Instruction,
  type KeyPairSigner,
  pipe,
  type Rpc,
  type RpcSubscriptions,
  sendAndConfirmTransactionFactory,
  type Signature,
  type SolanaRpcApi,
  type SolanaRpcSubscriptionsApi,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit'

export type SolanaRpc = Rpc<SolanaRpcApi>
export type SolanaRpcSubscriptions = RpcSubscriptions<SolanaRpcSubscriptionsApi>
/** Sends instructions in one transaction and resolves once it is confirmed. */
export type SendInstructions = (instructions: Instruction[]) => Promise<unknown>

/** Polls getSignatureStatuses until the signature is confirmed; throws if the transaction failed or never lands. */
export async function confirmed(rpc: SolanaRpc, signature: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { value } = await rpc.getSignatureStatuses([signature as Signature]).send()
    const status = value[0]
    if (status?.err) throw new Error(`transaction failed: ${JSON.stringify(status.err)}`)
    if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`${signature} not confirmed`)
}

/**
 * `instructions` in one version-0 transaction paid by `payer`, on the latest blockhash (at `commitment`, else the
 * node's default), signed by every signer they name.
 */
export async function signedTransaction(
  rpc: SolanaRpc,
  payer: KeyPairSigner,
  instructions: Instruction[],
  commitment?: Commitment,
) {
  const { value: blockhash } = await (commitment
    ? rpc.getLatestBlockhash({ commitment })
    : rpc.getLatestBlockhash()
  ).send()
  return signTransactionMessageWithSigners(
    pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    ),
  )
}

/** Signs `instructions` paid by `payer`, sends them as base64 and polls until confirmed; resolves to the signature. */
export async function sendConfirmed(rpc: SolanaRpc, payer: KeyPairSigner, instructions: Instruction[]) {
  const signed = await signedTransaction(rpc, payer, instructions)
  await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send()
  const signature = getSignatureFromTransaction(signed)
  await confirmed(rpc, signature)
  return signature
}

/** Signs and sends with @solana/kit's sendAndConfirmTransactionFactory: confirmed through signatureSubscribe. */
export async function sendConfirmedBySubscription(
  rpc: SolanaRpc,
  rpcSubscriptions: SolanaRpcSubscriptions,
  payer: KeyPairSigner,
  instructions: Instruction[],
) {
  const tx = await signedTransaction(rpc, payer, instructions, 'confirmed')
  const sendAndConfirm = sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions })
  await sendAndConfirm(tx as Parameters<typeof sendAndConfirm>[0], { commitment: 'confirmed' })
  return getSignatureFromTransaction(tx)
}

/** The associated token account of `owner` for `mint` (Token program). */
export async function associatedTokenAccount(mint: Address, owner: string): Promise<Address> {
  return (await findAssociatedTokenPda({ mint, owner: address(owner), tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0]
}

/**
 * A new SPL Token mint (`authority` its mint authority and the payer), the associated token accounts of `holders`,
 * and `amount` minted into the first holder's: two transactions, each sent with `send`.
 */
export async function createMintWithAccounts(
  rpc: SolanaRpc,
  send: SendInstructions,
  authority: KeyPairSigner,
  options: { decimals: number; holders: string[]; amount: bigint },
): Promise<{ mint: Address; accounts: Address[] }> {
  const mint = await generateKeyPairSigner()
  const space = BigInt(getMintSize())
  const rent = await rpc.getMinimumBalanceForRentExemption(space).send()
  await send([
    getCreateAccountInstruction({
      payer: authority,
      newAccount: mint,
      lamports: rent,
      space,
      programAddress: TOKEN_PROGRAM_ADDRESS,
    }),
    getInitializeMint2Instruction({ mint: mint.address, decimals: options.decimals, mintAuthority: authority.address }),
  ])
  const accounts = await Promise.all(options.holders.map((owner) => associatedTokenAccount(mint.address, owner)))
  await send([
    ...(await Promise.all(
      options.holders.map((owner) =>
        getCreateAssociatedTokenIdempotentInstructionAsync({
          payer: authority,
          owner: address(owner),
          mint: mint.address,
        }),
      ),
    )),
    getMintToInstruction({
      mint: mint.address,
      token: accounts[0] as Address,
      mintAuthority: authority,
      amount: options.amount,
    }),
  ])
  return { mint: mint.address, accounts }
}

/**
 * createMintWithAccounts for two holders (5 tokens of 6 decimals minted to the first), then 1.5 tokens moved to the
 * second with `transferChecked`: the SPL round trip the devnet and gateway tests both read back.
 */
export async function mintAndTransferChecked(rpc: SolanaRpc, send: SendInstructions, payer: KeyPairSigner, to: string) {
  const {
    mint,
    accounts: [payerAta, toAta],
  } = await createMintWithAccounts(rpc, send, payer, { decimals: 6, holders: [payer.address, to], amount: 5_000_000n })
  const signature = await send([
    getTransferCheckedInstruction({
      source: payerAta!,
      mint,
      destination: toAta!,
      authority: payer,
      amount: 1_500_000n,
      decimals: 6,
    }),
  ])
  return { mint, payerAta: payerAta!, toAta: toAta!, signature: signature as Signature }
}
