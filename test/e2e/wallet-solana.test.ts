/**
 * Issue 28: one wallet session for EVM and Solana. The whole app (gateway + wallet, the wallet's calls charged to
 * its own key) with anvil (eip155:31337) and the embedded Solana devnet; a dapp drives
 * `@metamask/multichain-api-client`; the user approves in the console in Chromium (the session, a message) or
 * through the console API. Every signature is checked with @solana/kit, every send confirmed on the devnet.
 */
import { getTransferSolInstruction } from '@solana-program/system'
import {
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getTransferCheckedInstruction,
} from '@solana-program/token'
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createKeyPairSignerFromPrivateKeyBytes,
  createNoopSigner,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getPublicKeyFromAddress,
  lamports,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  verifySignature,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { WALLET_ACCOUNT_EMAIL } from '../../src/app/parts/wallet.ts'
import { ANVIL_TEST_MNEMONIC } from '../../src/upstreams/devnet/anvil.ts'
import { deriveSolanaKeys } from '../../src/upstreams/devnet/solana/keys.ts'
import { describeWithPrograms, programPath } from '../support/programs.ts'
import { startTestServer, type TestServer } from './helpers/server.ts'
import {
  associatedTokenAccount,
  confirmed as confirmedBy,
  createMintWithAccounts,
  sendConfirmed,
} from './helpers/solana.ts'
import { ACCOUNT_0, UNAUTHORIZED, dapp, failure, type Dapp } from './helpers/wallet.ts'

const NETWORK = 'solana-devnet'
const ORIGIN = 'https://multichain-dapp.example'
const EVM = 'eip155:31337'
const SOLANA_METHODS = ['signMessage', 'signTransaction', 'signAllTransactions', 'signAndSendTransaction', 'signIn']

let s: TestServer
let browser: Browser
let page: Page
let d: Dapp
let SOL: string // the chain's CAIP-2 id
let SOL0: string // the wallet's Solana account #0
let setupPayer: KeyPairSigner // account #1, used directly to set up the SPL mint

const rpc = () => createSolanaRpc(s.endpoint(NETWORK))
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64')

async function consoleApi(path: string, body?: unknown): Promise<any> {
  const u = new URL(s.app.info['wallet console']!)
  const res = await fetch(`${u.origin}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${u.searchParams.get('token')}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return res.json()
}

async function pending(kind: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const p = (await consoleApi('/console/api/state')).pending.find((x: any) => x.kind === kind)
    if (p) return p
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`no pending ${kind}`)
}

/** Invokes on `scope` and approves the request it raises through the console API; resolves with the result. */
async function approved(scope: string, method: string, params: unknown): Promise<any> {
  const call = invoke(scope, method, params)
  const p = await pending(method)
  await consoleApi(`/console/api/approvals/${p.id}/approve`, {})
  return (await call).result.result
}

const invoke = (scope: string, method: string, params: unknown) =>
  d.client.invokeMethod({ scope: scope as any, request: { method, params } as any }) as Promise<any>

const confirmed = (signature: string) => confirmedBy(rpc(), signature)

/** An unsigned wire transaction (base64) paid by `feePayer`. */
async function unsigned(feePayer: string, instructions: Instruction[], blockhash?: string): Promise<string> {
  const latest = (await rpc().getLatestBlockhash().send()).value
  const lifetime = blockhash ? { blockhash: blockhash as never, lastValidBlockHeight: 0n } : latest
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(feePayer), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  )
  return getBase64EncodedWireTransaction(compileTransaction(message))
}

describeWithPrograms(['chromium'], 'one wallet session for EVM and Solana', () => {
  beforeAll(async () => {
    s = await startTestServer(
      {
        networks: [
          { name: 'devnet-a', chainId: 31337, embedded: { port: 0 } },
          { name: NETWORK, family: 'solana', embedded: { port: 0, slotMs: 100 } },
        ],
        wallet: { enabled: true, port: 0, pollMs: 100, keystore: { scryptLogN: 10 } },
      },
      { parts: { wallet: true } },
    )
    SOL = s.app.networks.byName(NETWORK)!.chain!
    const keys = await deriveSolanaKeys(ANVIL_TEST_MNEMONIC, 2)
    SOL0 = keys[0]!.address
    setupPayer = await createKeyPairSignerFromPrivateKeyBytes(keys[1]!.privateKey)
    browser = await chromium.launch({ executablePath: programPath('chromium'), args: ['--no-sandbox'] })
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(s.app.info['wallet console']!)
    await page.locator('#live.on').waitFor()
    d = dapp(s.app.info['wallet (CAIP-25 over WebSocket)']!, ORIGIN)
  }, 120_000)
  afterAll(async () => {
    await d?.close()
    await browser?.close()
    await s?.stop()
  })

  test('one request for both chains, approved in the console with an EVM and a Solana account', async () => {
    const created = d.client.createSession({
      optionalScopes: {
        [EVM]: { methods: ['eth_blockNumber', 'personal_sign'], notifications: [] },
        solana: { references: [SOL.split(':')[1]!], methods: [...SOLANA_METHODS, 'getBalance'], notifications: [] },
      },
      sessionProperties: { solana_accountChanged_notifications: true },
    } as any)
    const card = page.locator('article.request[data-kind="session"]')
    await card.waitFor()
    await card.getByText('EVM accounts to share').waitFor()
    await card.getByText('Solana accounts to share').waitFor()
    await card.getByText(`${NETWORK} ·`).waitFor()
    expect(await card.locator(`input[value="${SOL0}"]`).isChecked()).toBe(true)
    expect(await card.locator(`input[value="${ACCOUNT_0}"]`).isChecked()).toBe(true)
    await card.getByRole('button', { name: 'Connect' }).click()
    const session = (await created) as any
    expect(session.sessionScopes[SOL]).toEqual({
      methods: SOLANA_METHODS,
      notifications: [],
      accounts: [`${SOL}:${SOL0}`],
    })
    expect(session.sessionScopes[EVM].accounts).toEqual([`${EVM}:${ACCOUNT_0}`])
    expect(session.sessionProperties).toEqual({ solana_accountChanged_notifications: true })
    // The console lists SOL balances beside the ETH ones.
    await page.getByText(`${NETWORK} (Solana)`).waitFor()
    await page.locator('td.sol', { hasText: 'SOL' }).first().waitFor()
  })

  test('signMessage, approved in Chromium, verifies as ed25519 over the message', async () => {
    const message = b64(new TextEncoder().encode('hello from chaingate'))
    const call = invoke(SOL, 'signMessage', { account: { address: SOL0 }, message })
    const card = page.locator('article.request[data-kind="signMessage"]')
    await card.getByText('hello from chaingate').waitFor()
    await card.getByRole('button', { name: 'Sign' }).click()
    const r = (await call).result.result
    expect(r).toMatchObject({ signedMessage: message, signatureType: 'ed25519' })
    const key = await getPublicKeyFromAddress(address(SOL0))
    const sig = getBase58Encoder().encode(r.signature) as never
    expect(await verifySignature(key, sig, new TextEncoder().encode('hello from chaingate'))).toBe(true)
  })

  test('signAndSendTransaction: a SOL transfer sent through the gateway (charged to the wallet key), confirmed', async () => {
    const walletAccount = (await s.parts.accounts.findByEmail(WALLET_ACCOUNT_EMAIL))!
    const before = s.parts.limits.usedToday(walletAccount.id, Date.now())
    const to = await generateKeyPairSigner()
    const transaction = await unsigned(SOL0, [
      getTransferSolInstruction({
        source: createNoopSigner(address(SOL0)),
        destination: to.address,
        amount: lamports(2_000_000n),
      }),
    ])
    const r = await approved(SOL, 'signAndSendTransaction', { account: { address: SOL0 }, transaction, scope: SOL })
    await confirmed(r.signature)
    expect((await rpc().getBalance(to.address, { commitment: 'confirmed' }).send()).value).toBe(2_000_000n)
    expect(s.parts.limits.usedToday(walletAccount.id, Date.now()) - before).toBeGreaterThan(0)
    const activity = await consoleApi('/console/api/activity')
    expect(activity.entries.some((e: any) => e.kind === 'signAndSendTransaction' && e.outcome === 'sent')).toBe(true)
  })

  test('signAndSendTransaction: an SPL transferChecked, confirmed', async () => {
    const {
      mint,
      accounts: [mine],
    } = await createMintWithAccounts(rpc(), (ix) => sendConfirmed(rpc(), setupPayer, ix), setupPayer, {
      decimals: 6,
      holders: [SOL0],
      amount: 5_000_000n,
    })
    const ata = (owner: string) => associatedTokenAccount(mint, owner)
    const bob = await generateKeyPairSigner()
    const me = createNoopSigner(address(SOL0))
    const transaction = await unsigned(SOL0, [
      await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: me, owner: bob.address, mint }),
      getTransferCheckedInstruction({
        source: mine!,
        mint,
        destination: await ata(bob.address),
        authority: me,
        amount: 1_250_000n,
        decimals: 6,
      }),
    ])
    const r = await approved(SOL, 'signAndSendTransaction', { account: { address: SOL0 }, transaction, scope: SOL })
    await confirmed(r.signature)
    const balance = await rpc()
      .getTokenAccountBalance(await ata(bob.address), { commitment: 'confirmed' })
      .send()
    expect(balance.value).toMatchObject({ amount: '1250000', decimals: 6 })
  })

  test('signTransaction, then sent through the gateway with @solana/kit', async () => {
    const to = await generateKeyPairSigner()
    const transaction = await unsigned(SOL0, [
      getTransferSolInstruction({
        source: createNoopSigner(address(SOL0)),
        destination: to.address,
        amount: lamports(3_000_000n),
      }),
    ])
    const { signedTransaction } = await approved(SOL, 'signTransaction', {
      account: { address: SOL0 },
      transaction,
      scope: SOL,
    })
    const signature = await rpc().sendTransaction(signedTransaction, { encoding: 'base64' }).send()
    await confirmed(signature)
    expect((await rpc().getBalance(to.address, { commitment: 'confirmed' }).send()).value).toBe(3_000_000n)
  })

  test('signIn (SIWS): the message names the dapp; a foreign domain is flagged in the console', async () => {
    const host = new URL(ORIGIN).host
    const r = await approved(SOL, 'signIn', { domain: host, statement: 'Sign in to the dapp', nonce: 'abc12345' })
    expect(r.account).toEqual({ address: SOL0 })
    const text = Buffer.from(r.signedMessage, 'base64').toString('utf8')
    expect(text).toBe(
      `${host} wants you to sign in with your Solana account:\n${SOL0}\n\nSign in to the dapp\n\nNonce: abc12345`,
    )
    const key = await getPublicKeyFromAddress(address(SOL0))
    expect(
      await verifySignature(key, getBase58Encoder().encode(r.signature) as never, new TextEncoder().encode(text)),
    ).toBe(true)

    const refused = failure(invoke(SOL, 'signIn', { domain: 'evil.example' }))
    const card = page.locator('article.request[data-kind="signIn"]')
    await card.getByText('names another site than the one asking').waitFor()
    await card.getByRole('button', { name: 'Reject' }).click()
    expect(await refused).toMatchObject({ code: 4001 })
  })

  test('bad input: clear errors as MetaMask answers them, nothing asked, nothing signed', async () => {
    const before = (await consoleApi('/console/api/state')).pending.length
    const other = await generateKeyPairSigner()
    const notOurs = await unsigned(other.address, [
      getTransferSolInstruction({
        source: createNoopSigner(other.address),
        destination: address(SOL0),
        amount: lamports(1n),
      }),
    ])
    const cases: [string, string, unknown, number][] = [
      [SOL, 'signTransaction', { account: { address: SOL0 }, transaction: 'not base64!', scope: SOL }, -32602],
      [
        SOL,
        'signTransaction',
        { account: { address: SOL0 }, transaction: b64(new Uint8Array(40)), scope: SOL },
        -32602,
      ],
      [SOL, 'signAndSendTransaction', { account: { address: SOL0 }, transaction: notOurs, scope: SOL }, -32602],
      [SOL, 'signMessage', { account: { address: other.address }, message: 'aGk=' }, 4100],
      [SOL, 'getBalance', [SOL0], 4100], // not granted (not a wallet method)
      [SOL, 'personal_sign', ['0x68', ACCOUNT_0], 4100], // an EVM method on a Solana scope
      [EVM, 'signMessage', { account: { address: SOL0 }, message: 'aGk=' }, 4100], // and the reverse
      ['solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z', 'signMessage', { account: { address: SOL0 }, message: 'aGk=' }, 4100],
    ]
    for (const [scope, method, params, code] of cases)
      expect((await failure(invoke(scope, method, params))).code, `${method} ${JSON.stringify(params)}`).toBe(code)
    expect((await consoleApi('/console/api/state')).pending.length).toBe(before)

    // An expired blockhash: refused at send time, saying so; nothing sent.
    const stale = await unsigned(
      SOL0,
      [
        getTransferSolInstruction({
          source: createNoopSigner(address(SOL0)),
          destination: other.address,
          amount: lamports(1_000_000n),
        }),
      ],
      '11111111111111111111111111111111',
    )
    const call = invoke(SOL, 'signAndSendTransaction', { account: { address: SOL0 }, transaction: stale, scope: SOL })
    const p = await pending('signAndSendTransaction')
    await consoleApi(`/console/api/approvals/${p.id}/approve`, {})
    const e = await failure(call)
    expect(e.code).toBe(-32002)
    expect(e.message).toMatch(/blockhash .* has expired/)
  })

  test('revoking the Solana scope only: wallet_sessionChanged, Solana refused, EVM still working', async () => {
    await d.client.revokeSession({ scopes: [SOL] } as any)
    const n = await d.next((x) => x.method === 'wallet_sessionChanged' && !(SOL in x.params.sessionScopes))
    expect(Object.keys(n.params.sessionScopes)).toEqual([EVM])
    expect(Object.keys((await d.client.getSession())!.sessionScopes)).toEqual([EVM])
    expect(await failure(invoke(SOL, 'signMessage', { account: { address: SOL0 }, message: 'aGk=' }))).toEqual(
      UNAUTHORIZED,
    )
    expect((await invoke(EVM, 'eth_blockNumber', [])).result.result).toMatch(/^0x/)
  })
})
