/**
 * The Solana methods against a fake context (no chain): what is refused before the user is asked, signatures that
 * verify, the Sign-In With Solana text, and hostile bytes that never crash the parser.
 */
import { pbkdf2Sync, randomBytes } from 'node:crypto'
import { getTransferSolInstruction } from '@solana-program/system'
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getPublicKeyFromAddress,
  lamports,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  verifySignature,
} from '@solana/kit'
import { describe, expect, test } from 'vitest'
import { JsonRpcError } from '../../errors.ts'
import { ANVIL_TEST_MNEMONIC } from '../../keystore.ts'
import { solanaKeysFromSeed } from '../../solana-keys.ts'
import type { SolanaMethodContext } from './context.ts'
import { SOLANA_LOCAL_METHODS } from './index.ts'
import { signInMessageText } from './sign-in.ts'
import { readWireTransaction } from './wire-transaction.ts'

const SCOPE = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'
const keys = solanaKeysFromSeed(pbkdf2Sync(ANVIL_TEST_MNEMONIC, 'mnemonic', 2048, 64, 'sha512'))
const ME = keys.addressAt(0)
const OTHER = keys.addressAt(5) // the wallet's, but not in the session

function fakeCtx(over: Partial<SolanaMethodContext> = {}) {
  const asked: unknown[] = []
  const ctx: SolanaMethodContext = {
    origin: 'https://dapp.example',
    scope: SCOPE,
    sessionScope: { methods: Object.keys(SOLANA_LOCAL_METHODS), notifications: [], accounts: [`${SCOPE}:${ME}`] },
    signerFor: (a) => [0, 5].map((i) => keys.signer(i)).find((s) => s.address === a),
    rpc: async (m) =>
      m === 'isBlockhashValid' ? { value: true } : m === 'sendTransaction' ? 'sig' : { value: { err: null, logs: [] } },
    approve: async (_k, r) => void asked.push(r),
    assertStillAuthorized: async () => {},
    ...over,
  }
  return { ctx, asked }
}

const tx = (feePayer: string) =>
  getBase64EncodedWireTransaction(
    compileTransaction(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayer(address(feePayer), m),
        (m) =>
          setTransactionMessageLifetimeUsingBlockhash(
            { blockhash: '11111111111111111111111111111111' as never, lastValidBlockHeight: 0n },
            m,
          ),
        (m) =>
          appendTransactionMessageInstructions(
            [
              getTransferSolInstruction({
                source: createNoopSigner(address(feePayer)),
                destination: address(ME),
                amount: lamports(1n),
              }),
            ],
            m,
          ),
      ),
    ),
  )

const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e) => (e as { code: number }).code,
  )

describe('Solana methods', () => {
  test('refused before asking the user: not base64, not a transaction, foreign fee payer, account not in session', async () => {
    const { ctx, asked } = fakeCtx()
    const account = { address: ME }
    expect(await code(SOLANA_LOCAL_METHODS.signTransaction!(ctx, { account, transaction: '%%%' }))).toBe(-32602)
    expect(await code(SOLANA_LOCAL_METHODS.signTransaction!(ctx, { account, transaction: 'AAAA' }))).toBe(-32602)
    expect(await code(SOLANA_LOCAL_METHODS.signTransaction!(ctx, { account, transaction: tx(OTHER) }))).toBe(-32602)
    expect(await code(SOLANA_LOCAL_METHODS.signMessage!(ctx, { account: { address: OTHER }, message: 'aGk=' }))).toBe(
      4100,
    )
    expect(await code(SOLANA_LOCAL_METHODS.signMessage!(ctx, { account: ME, message: 'aGk=' }))).toBe(-32602)
    expect(await code(SOLANA_LOCAL_METHODS.signMessage!(ctx, 'nope'))).toBe(-32602)
    expect(await code(SOLANA_LOCAL_METHODS.signIn!(ctx, { address: OTHER }))).toBe(4100)
    expect(await code(SOLANA_LOCAL_METHODS.signIn!(ctx, { statement: 'a\nURI: https://evil' }))).toBe(-32602)
    expect(await code(SOLANA_LOCAL_METHODS.signAllTransactions!(ctx, { account, transactions: [] }))).toBe(-32602)
    expect(asked).toEqual([])
  })

  test('signTransaction adds a signature that verifies; an expired blockhash stops signAndSendTransaction', async () => {
    const { ctx, asked } = fakeCtx()
    const r = (await SOLANA_LOCAL_METHODS.signTransaction!(ctx, { account: { address: ME }, transaction: tx(ME) })) as {
      signedTransaction: string
    }
    const wire = readWireTransaction(new Uint8Array(Buffer.from(r.signedTransaction, 'base64')), 'x')
    const sig = wire.transaction.signatures[address(ME)]!
    const key = await getPublicKeyFromAddress(address(ME))
    expect(await verifySignature(key, sig, wire.transaction.messageBytes)).toBe(true)
    expect(asked).toHaveLength(1)

    let sent = false
    const expired = fakeCtx({
      rpc: async (m) => {
        if (m === 'sendTransaction') sent = true
        return m === 'isBlockhashValid' ? { value: false } : { value: { err: null } }
      },
    })
    const e = (await SOLANA_LOCAL_METHODS.signAndSendTransaction!(expired.ctx, {
      account: { address: ME },
      transaction: tx(ME),
    }).catch((x: unknown) => x)) as Error
    expect(e).toBeInstanceOf(JsonRpcError)
    expect(e.message).toMatch(/has expired/)
    expect(sent).toBe(false)
  })

  test('signIn: domain and address filled from the dapp and the session; a foreign domain is marked', async () => {
    const { ctx, asked } = fakeCtx()
    const r = (await SOLANA_LOCAL_METHODS.signIn!(ctx, { nonce: 'n1' })) as { signedMessage: string; signature: string }
    const text = Buffer.from(r.signedMessage, 'base64').toString()
    expect(text).toBe(`dapp.example wants you to sign in with your Solana account:\n${ME}\n\nNonce: n1`)
    const key = await getPublicKeyFromAddress(address(ME))
    expect(
      await verifySignature(key, getBase58Encoder().encode(r.signature) as never, new TextEncoder().encode(text)),
    ).toBe(true)
    await SOLANA_LOCAL_METHODS.signIn!(ctx, { domain: 'evil.example' })
    expect(asked.map((a) => (a as { signIn: { domainMatches: boolean } }).signIn.domainMatches)).toEqual([true, false])
    expect(signInMessageText({ domain: 'd', address: 'A', statement: 'S', uri: 'u', resources: ['r1', 'r2'] })).toBe(
      'd wants you to sign in with your Solana account:\nA\n\nS\n\nURI: u\nResources:\n- r1\n- r2',
    )
  })

  test('hostile bytes: random, truncated or oversized transactions are -32602, never a crash', () => {
    const good = new Uint8Array(Buffer.from(tx(ME), 'base64'))
    const inputs: Uint8Array[] = [
      new Uint8Array(0),
      new Uint8Array(2000),
      good.slice(0, good.length - 1),
      new Uint8Array([...good, 0]),
    ]
    for (let i = 0; i < 300; i++) inputs.push(new Uint8Array(randomBytes(1 + (i % 400))))
    // Too many accounts: the header's count says 255 signers.
    const many = good.slice()
    many[0] = 255
    inputs.push(many)
    for (const bytes of inputs) {
      try {
        readWireTransaction(bytes, 'request.params.transaction')
      } catch (e) {
        expect((e as { code?: number }).code).toBe(-32602)
      }
    }
    expect(readWireTransaction(good, 'x').feePayer).toBe(ME)
  })
})
