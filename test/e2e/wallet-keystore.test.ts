/**
 * Issue 3, point 8: the encrypted HD keystore and its CLI (create, import, accounts), the server refusing a
 * locked keystore, and the wallet config's loopback rule. No devnet needed.
 */
import { createCipheriv, randomBytes, scryptSync } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { afterEach, describe, expect, test } from 'vitest'
import { runWalletCommand } from '../../src/cli/wallet-commands.ts'
import { WalletConfigSchema } from '../../src/config/wallet-schema.ts'
import { openDatabase } from '../../src/db/database.ts'
import type { ChainAccess } from '../../src/wallet/ports.ts'
import { createWalletService } from '../../src/wallet/listener/start.ts'
import { decryptMnemonic } from '../../src/wallet/keystore.ts'

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const FIRST = '0x9858effd232b4033e47d90003d41ec34ecaeda94' // m/44'/60'/0'/0/0 of MNEMONIC
const PASS = 'correct horse battery staple'
const config = WalletConfigSchema.parse({ port: 0, keystore: { scryptLogN: 10, initialAccounts: 2 } })
const noChains: ChainAccess = {
  chains: () => [],
  request: async () => null,
  subscribe: async () => ({ id: '0x0', unsubscribe: async () => {} }),
}

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function cli(dataDir: string, env: NodeJS.ProcessEnv = { CHAINGATE_WALLET_PASSPHRASE: PASS }, stdin = '') {
  const out: string[] = []
  const err: string[] = []
  const run = (argv: string[]) =>
    runWalletCommand(argv, {
      dataDir,
      json: true,
      config,
      env,
      out: (t) => out.push(t),
      err: (t) => err.push(t),
      stdin: async () => stdin,
    })
  return { run, out, err }
}

describe('keystore CLI', () => {
  test('import from stdin derives BIP-44 accounts; the file holds no plaintext; create refuses to overwrite', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cg-ks-'))
    dirs.push(dataDir)
    const c = cli(dataDir, { CHAINGATE_WALLET_PASSPHRASE: PASS }, `  ${MNEMONIC.toUpperCase()}\n`)
    expect(await c.run(['keystore', 'import'])).toBe(0)
    const imported = JSON.parse(c.out.pop()!)
    expect(imported.accounts.map((a: any) => a.address)[0]).toBe(FIRST)
    expect(imported.accounts).toHaveLength(2)
    expect(JSON.stringify(imported)).not.toContain('abandon')
    const file = readFileSync(join(dataDir, 'wallet-keystore.json'), 'utf8')
    expect(file).not.toContain('abandon')
    expect(JSON.parse(file).crypto).toMatchObject({
      cipher: 'aes-256-gcm',
      kdf: 'scrypt',
      kdfparams: { n: 1024, r: 8, p: 1, dklen: 32 },
    })

    expect(await c.run(['keystore', 'create'])).toBe(2)
    expect(c.err.pop()).toMatch(/already exists/)

    expect(await c.run(['accounts', 'add', '--label', 'third'])).toBe(0)
    expect(JSON.parse(c.out.pop()!)).toMatchObject({ index: 2, label: 'third' })
    expect(await c.run(['accounts', 'list'])).toBe(0)
    expect(JSON.parse(c.out.pop()!).map((a: any) => a.index)).toEqual([0, 1, 2])

    const wrong = cli(dataDir, { CHAINGATE_WALLET_PASSPHRASE: 'not the passphrase' })
    expect(await wrong.run(['accounts', 'add'])).toBe(1)
    expect(wrong.err.pop()).toBe('wrong passphrase, or the keystore file is damaged')
  })

  test('an invalid mnemonic, a short passphrase, or a missing passphrase are refused', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cg-ks-'))
    dirs.push(dataDir)
    const bad = cli(dataDir, { CHAINGATE_WALLET_PASSPHRASE: PASS }, MNEMONIC.replace('about', 'abandon'))
    expect(await bad.run(['keystore', 'import'])).toBe(2)
    expect(bad.err.pop()).toMatch(/not a valid BIP-39 mnemonic/)
    const short = cli(dataDir, { CHAINGATE_WALLET_PASSPHRASE: 'short' })
    expect(await short.run(['keystore', 'create'])).toBe(2)
    const none = cli(dataDir, {})
    expect(await none.run(['keystore', 'create'])).toBe(2)
    expect(none.err.pop()).toMatch(/CHAINGATE_WALLET_PASSPHRASE/)
    expect(await none.run(['no', 'such'])).toBe(2)
  })

  test('create shows the new mnemonic once (its only backup) and the server then needs the passphrase', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cg-ks-'))
    dirs.push(dataDir)
    const c = cli(dataDir)
    expect(await c.run(['keystore', 'create', '--words', '24'])).toBe(0)
    const created = JSON.parse(c.out.pop()!)
    expect(created.mnemonic.split(' ')).toHaveLength(24)

    const db = await openDatabase(join(dataDir, 'chaingate.sqlite'))
    try {
      const lines: string[] = []
      const logger = pino({ level: 'trace' }, { write: (l: string) => void lines.push(l) })
      const locked = createWalletService({
        config,
        dataDir,
        db: db.db,
        chainAccess: noChains,
        networks: [],
        logger,
        env: {},
      })
      await expect(locked.start()).rejects.toThrow(/set CHAINGATE_WALLET_PASSPHRASE/)
      const svc = createWalletService({
        config,
        dataDir,
        db: db.db,
        chainAccess: noChains,
        networks: [],
        logger,
        env: { CHAINGATE_WALLET_PASSPHRASE: PASS },
      })
      const started = await svc.start()
      expect(started.publicTestKeys).toBe(false)
      expect(started.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/$/)
      await svc.stop()
      expect(lines.join('\n')).not.toContain(created.mnemonic)
      expect(lines.join('\n')).not.toContain('PUBLIC')
    } finally {
      await db.close()
    }
  })
})

/** A keystore as version 1 wrote it: only version, kind and the KDF parameters were authenticated. */
function v1Keystore(mnemonic: string, passphrase: string) {
  const salt = randomBytes(32)
  const iv = randomBytes(12)
  const n = 1024
  const key = scryptSync(Buffer.from(passphrase, 'utf8'), salt, 32, { N: n, r: 8, p: 1 })
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(Buffer.from(`1|chaingate-hd-keystore|scrypt|${n}|8|1|${salt.toString('hex')}`))
  const ciphertext = Buffer.concat([cipher.update(mnemonic, 'utf8'), cipher.final()]).toString('hex')
  return {
    version: 1,
    kind: 'chaingate-hd-keystore',
    publicTestMnemonic: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    crypto: {
      cipher: 'aes-256-gcm',
      ciphertext,
      iv: iv.toString('hex'),
      tag: cipher.getAuthTag().toString('hex'),
      kdf: 'scrypt',
      kdfparams: { n, r: 8, p: 1, dklen: 32, salt: salt.toString('hex') },
    },
  }
}

describe('keystore format upgrade (issue 8 item 7)', () => {
  test('a version 1 keystore still opens, and is rewritten as version 2 (every header field authenticated)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cg-ks-'))
    dirs.push(dataDir)
    writeFileSync(join(dataDir, 'wallet-keystore.json'), JSON.stringify(v1Keystore(MNEMONIC, PASS)), { mode: 0o600 })
    const db = await openDatabase(join(dataDir, 'chaingate.sqlite'))
    try {
      const svc = createWalletService({
        config,
        dataDir,
        db: db.db,
        chainAccess: noChains,
        networks: [],
        logger: pino({ level: 'silent' }),
        env: { CHAINGATE_WALLET_PASSPHRASE: PASS },
      })
      await svc.start()
      await svc.stop()
      const file = JSON.parse(readFileSync(join(dataDir, 'wallet-keystore.json'), 'utf8'))
      expect(file.version).toBe(2)
      expect(decryptMnemonic(file, PASS)).toBe(MNEMONIC)
      expect(() => decryptMnemonic({ ...file, publicTestMnemonic: true }, PASS)).toThrow(/damaged/)
      const c = cli(dataDir)
      expect(await c.run(['accounts', 'list'])).toBe(0)
      expect(JSON.parse(c.out.pop()!)[0].address).toBe(FIRST)
    } finally {
      await db.close()
    }
  })
})

describe('wallet config', () => {
  test('a non-loopback host needs allowNonLoopback; defaults are documented values', () => {
    const r = WalletConfigSchema.safeParse({ host: '0.0.0.0' })
    expect(r.success).toBe(false)
    expect(r.error!.issues[0]!.path).toEqual(['host'])
    expect(WalletConfigSchema.safeParse({ host: '0.0.0.0', allowNonLoopback: true }).success).toBe(true)
    expect(WalletConfigSchema.parse({})).toMatchObject({
      host: '127.0.0.1',
      port: 8546,
      allowNonLoopback: false,
      autoApprove: false,
      approvalTimeoutMs: 300_000,
      maxMessageBytes: 1_048_576,
      keystore: {
        file: 'wallet-keystore.json',
        passphraseEnv: 'CHAINGATE_WALLET_PASSPHRASE',
        useTestMnemonic: true,
        scryptLogN: 17,
      },
    })
  })
})
