/**
 * `chaingate wallet approvals list` (issue 20): waiting requests read as the console shows them (network, amounts
 * and fees in ETH, the decoded call, the message text), not raw JSON with hex wei; `--json` keeps the stored rows.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { openDatabase, type OpenedDatabase } from '../db/database.ts'
import { createWalletRepository } from '../wallet/repository.ts'
import { runWalletCommand } from './wallet-commands.ts'

const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
let dir: string
let opened: OpenedDatabase

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chaingate-approvals-cli-'))
  opened = await openDatabase(join(dir, 'chaingate.sqlite'))
  const repository = createWalletRepository(opened.db)
  await repository.addAccount(ALICE, 0, 'savings', Date.now())
  const at = Date.now()
  const approval = (id: string, kind: any, request: unknown) =>
    repository.insertApproval({
      id,
      origin: 'https://dapp.example',
      kind,
      request,
      createdAt: at,
      expiresAt: at + 300_000,
    })
  await approval('tx-1', 'eth_sendTransaction', {
    scope: 'eip155:31337',
    transaction: {
      from: ALICE,
      to: TOKEN,
      value: '0x2386f26fc10000',
      gas: '0x5208',
      maxFeePerGas: '0x77359400',
      maxPriorityFeePerGas: '0x3b9aca00',
      // approve(0x7099…, 2^256-1): an unlimited token approval
      data:
        '0x095ea7b300000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8' +
        'ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
    },
  })
  await approval('sign-1', 'personal_sign', {
    scope: 'eip155:31337',
    address: ALICE,
    message: 'Sign in to dapp.example',
    messageHex: '0x5369676e20696e20746f20646170702e6578616d706c65',
  })
})
afterAll(async () => {
  await opened.close()
  rmSync(dir, { recursive: true, force: true })
})

async function list(json: boolean): Promise<string> {
  const outs: string[] = []
  const code = await runWalletCommand(['approvals', 'list', ...(json ? ['--json'] : [])], {
    dataDir: dir,
    json: false,
    db: opened.db,
    chains: [{ chainId: 31337, network: 'devnet-a' }],
    out: (t) => outs.push(t),
  })
  expect(code).toBe(0)
  return outs.join('\n')
}

test('the list reads like the console: network, ETH amounts and fees, decoded call, message text', async () => {
  const text = await list(false)
  expect(text).toMatch(/^tx-1 {2}Send a transaction {2}from https:\/\/dapp\.example {2}\(expires in [45] min\)$/m)
  expect(text).toContain('    Network: devnet-a (chain 31337)')
  expect(text).toContain(`    From: ${ALICE} (your account #0 "savings")`)
  expect(text).toContain('    Amount: 0.01 ETH')
  expect(text).toMatch(/ {4}Max fee: 0\.000042 ETH \(21000 gas × at most 2 gwei\)/)
  expect(text).toMatch(/ {4}Call: .*UNLIMITED/)
  expect(text).toMatch(/ {4}! .*unlimited/i)
  expect(text).toMatch(/^sign-1 {2}Sign a message {2}from https:\/\/dapp\.example/m)
  expect(text).toContain('    Message: "Sign in to dapp.example"')
  expect(text).not.toContain('0x2386f26fc10000')
})

test('--json prints the stored rows for scripts', async () => {
  const rows = JSON.parse(await list(true)) as { id: string; request: any }[]
  expect(rows.map((r) => r.id).sort()).toEqual(['sign-1', 'tx-1'])
  expect(rows.find((r) => r.id === 'tx-1')!.request.transaction.value).toBe('0x2386f26fc10000')
})
