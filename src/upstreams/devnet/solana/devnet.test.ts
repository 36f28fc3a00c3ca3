/**
 * The embedded Solana devnet as a process: named by its genesis hash, funding the mnemonic's accounts, answering
 * errors as a validator does, keeping its state across a restart and never outliving its parent. The clients'
 * view is devnet-kit.test.ts's and devnet-web3.test.ts's.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { getTransferSolInstruction } from '@solana-program/system'
import { address, createKeyPairSignerFromPrivateKeyBytes, createSolanaRpc, lamports } from '@solana/kit'
import * as web3 from '@solana/web3.js'
import { describe, expect, test } from 'vitest'
import { sendConfirmed } from '../../../../test/e2e/helpers/solana.ts'
import { SolanaDevnetError, startSolanaDevnet } from './devnet.ts'
import { LAMPORTS_PER_SOL, rpc, useTestDevnet } from './devnet.test-support.ts'

const t = useTestDevnet()

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('the devnet process', () => {
  test('names itself by its genesis hash and funds the mnemonic accounts with 1,000 SOL', async () => {
    expect(t.devnet.caip2).toBe(`solana:${t.devnet.genesisHash.slice(0, 32)}`)
    expect(t.devnet.accounts).toHaveLength(10)
    expect(t.devnet.accounts[0]).toMatchObject({ index: 0, path: "m/44'/501'/0'/0'", address: t.funded[0]?.address })
    const rpcClient = createSolanaRpc(t.devnet.url)
    for (const account of t.devnet.accounts.slice(0, 3)) {
      const { value } = await rpcClient.getBalance(address(account.address)).send()
      expect(value).toBe(1000n * LAMPORTS_PER_SOL)
    }
    expect(await rpcClient.getGenesisHash().send()).toBe(t.devnet.genesisHash)
  })
})

describe('errors as a validator answers them', () => {
  test('bad base58 and base64 transactions, more than 100 keys, a bad public key, a method that does not exist', async () => {
    expect((await rpc(t.devnet.url, 'sendTransaction', ['0OIl'])).error).toEqual({
      code: -32602,
      message: "invalid base58 encoding: InvalidCharacter { character: '0', index: 0 }",
    })
    expect((await rpc(t.devnet.url, 'sendTransaction', ['!!!!', { encoding: 'base64' }])).error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^invalid base64 encoding: /),
    })
    expect((await rpc(t.devnet.url, 'sendTransaction', ['AAAA', { encoding: 'base64' }])).error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^failed to deserialize solana_transaction::versioned::VersionedTransaction/),
    })
    const keys = Array.from({ length: 101 }, () => t.devnet.accounts[0]!.address)
    expect((await rpc(t.devnet.url, 'getMultipleAccounts', [keys])).error).toEqual({
      code: -32602,
      message: 'Too many inputs provided; max 100',
    })
    expect((await rpc(t.devnet.url, 'getBalance', ['not-a-key'])).error).toEqual({
      code: -32602,
      message: 'Invalid param: Invalid',
    })
    expect((await rpc(t.devnet.url, 'eth_chainId')).error).toEqual({ code: -32601, message: 'Method not found' })
    expect((await rpc(t.devnet.url, 'getSlot', [{ minContextSlot: 10 ** 12 }])).error).toMatchObject({
      code: -32016,
      message: 'Minimum context slot has not been reached',
    })
  })

  test('answers a batch in order', async () => {
    const response = await fetch(t.devnet.url, {
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
    const signature = (await rpc(t.devnet.url, 'requestAirdrop', [recipient, 1_000_000_000])).result as string
    // The first funded account spends (a transfer and its fee) before the restart.
    const spender = await createKeyPairSignerFromPrivateKeyBytes(t.funded[0]!.privateKey)
    const destination = address(recipient)
    await sendConfirmed(createSolanaRpc(t.devnet.url), spender, [
      getTransferSolInstruction({ source: spender, destination, amount: lamports(1_000_000n) }),
    ])
    const { genesisHash } = t.devnet
    await t.devnet.stop()
    t.devnet = await startSolanaDevnet({ port: 0, slotMs: 100, stateFile: t.stateFile })
    expect(t.devnet.genesisHash).toBe(genesisHash)
    expect((await rpc(t.devnet.url, 'getBalance', [recipient, { commitment: 'processed' }])).result.value).toBe(
      1_001_000_000,
    )
    const status = await rpc(t.devnet.url, 'getSignatureStatuses', [[signature], { searchTransactionHistory: true }])
    expect(status.result.value[0]).toMatchObject({ err: null })
    // Funded accounts are funded once: what they spent stays spent.
    const { result } = await rpc(t.devnet.url, 'getBalance', [t.funded[0]!.address, { commitment: 'processed' }])
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
      validatorBinary: join(t.dataDir, 'no-such-dir', 'solana-test-validator'),
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SolanaDevnetError)
    expect((error as SolanaDevnetError).code).toBe('SOLANA_VALIDATOR_MISSING')
    expect((error as Error).message).toMatch(/solana-test-validator not found.*install the Agave tools/)
  })
})
