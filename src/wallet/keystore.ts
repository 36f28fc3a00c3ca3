/**
 * The HD wallet at rest: a BIP-39 mnemonic encrypted with scrypt + AES-256-GCM in one JSON file under the data
 * dir. Parameters (documented in docs/wallet.md): scrypt N = 2^logN (default 2^17), r = 8, p = 1, 32-byte salt,
 * 32-byte key; AES-256-GCM with a 12-byte IV and 16-byte tag. Version 2 authenticates every header field (version,
 * kind, publicTestMnemonic, createdAt, cipher, iv, kdf and all its params) as additional data, so no field can be
 * edited unnoticed; version 1 files (older) covered only version, kind and the kdf params, and are rewritten as
 * version 2 the first time the wallet unlocks them. Account i is BIP-44 eip155 m/44'/60'/0'/0/i and, from the same
 * seed, the Solana (ed25519, SLIP-0010) m/44'/501'/i'/0' (./solana-keys.ts).
 *
 * Nothing here logs, and no error message ever contains the mnemonic, a seed or a private key.
 */
import { createCipheriv, createDecipheriv, createHash, pbkdf2Sync, randomBytes, scryptSync } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { HDKey, english, generateMnemonic, hdKeyToAccount, type HDAccount } from 'viem/accounts'
import { solanaKeysFromSeed, type SolanaKeys } from './solana-keys.ts'

/** anvil's default mnemonic: its accounts are funded on the devnets, and PUBLIC. */
export const ANVIL_TEST_MNEMONIC = 'test test test test test test test test test test test junk'

export interface KeystoreFile {
  version: 1 | 2
  kind: 'chaingate-hd-keystore'
  /** True when the mnemonic is the public anvil test mnemonic (shown plainly at start). */
  publicTestMnemonic: boolean
  createdAt: string
  crypto: {
    cipher: 'aes-256-gcm'
    ciphertext: string
    iv: string
    tag: string
    kdf: 'scrypt'
    kdfparams: { n: number; r: number; p: number; dklen: 32; salt: string }
  }
}

export class KeystoreError extends Error {
  override readonly name = 'KeystoreError'
}

/** BIP-39 check (english wordlist, checksum). */
export function isValidMnemonic(mnemonic: string): boolean {
  const words = normalizeMnemonic(mnemonic).split(' ')
  if (![12, 15, 18, 21, 24].includes(words.length)) return false
  const indices = words.map((w) => english.indexOf(w))
  if (indices.some((i) => i < 0)) return false
  const bits = indices.map((i) => i.toString(2).padStart(11, '0')).join('')
  const checksumBits = words.length / 3
  const entropyBits = bits.slice(0, bits.length - checksumBits)
  const entropy = Buffer.from(entropyBits.match(/.{8}/g)!.map((b) => Number.parseInt(b, 2)))
  const hash = createHash('sha256').update(entropy).digest()
  const expected = [...hash]
    .map((b) => b.toString(2).padStart(8, '0'))
    .join('')
    .slice(0, checksumBits)
  return expected === bits.slice(bits.length - checksumBits)
}

function normalizeMnemonic(m: string): string {
  return m.normalize('NFKD').trim().split(/\s+/).join(' ').toLowerCase()
}

export function newMnemonic(words: 12 | 24 = 12): string {
  return generateMnemonic(english, words === 24 ? 256 : 128)
}

function kdf(passphrase: string, salt: Buffer, n: number, r: number, p: number): Buffer {
  return scryptSync(Buffer.from(passphrase.normalize('NFKC'), 'utf8'), salt, 32, {
    N: n,
    r,
    p,
    maxmem: 256 * n * r + 1024 * 1024,
  })
}

/** The additional authenticated data: every field but the ciphertext and the tag, in a fixed order. */
function header(file: KeystoreFile): Buffer {
  const k = file.crypto.kdfparams
  if (file.version === 1)
    return Buffer.from(`${file.version}|${file.kind}|${file.crypto.kdf}|${k.n}|${k.r}|${k.p}|${k.salt}`)
  return Buffer.from(
    JSON.stringify([
      file.version,
      file.kind,
      file.publicTestMnemonic,
      file.createdAt,
      file.crypto.cipher,
      file.crypto.iv,
      file.crypto.kdf,
      [k.n, k.r, k.p, k.dklen, k.salt],
    ]),
  )
}

export function encryptMnemonic(
  mnemonic: string,
  passphrase: string,
  opts: { scryptLogN: number; publicTestMnemonic: boolean },
): KeystoreFile {
  const m = normalizeMnemonic(mnemonic)
  if (!isValidMnemonic(m)) throw new KeystoreError('not a valid BIP-39 mnemonic (english wordlist, 12-24 words)')
  const salt = randomBytes(32)
  const iv = randomBytes(12)
  const n = 2 ** opts.scryptLogN
  const file: KeystoreFile = {
    version: 2,
    kind: 'chaingate-hd-keystore',
    publicTestMnemonic: opts.publicTestMnemonic,
    createdAt: new Date().toISOString(),
    crypto: {
      cipher: 'aes-256-gcm',
      ciphertext: '',
      iv: iv.toString('hex'),
      tag: '',
      kdf: 'scrypt',
      kdfparams: { n, r: 8, p: 1, dklen: 32, salt: salt.toString('hex') },
    },
  }
  const key = kdf(passphrase, salt, n, 8, 1)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(header(file))
  file.crypto.ciphertext = Buffer.concat([cipher.update(m, 'utf8'), cipher.final()]).toString('hex')
  file.crypto.tag = cipher.getAuthTag().toString('hex')
  return file
}

export function decryptMnemonic(file: KeystoreFile, passphrase: string): string {
  if (
    (file.version !== 1 && file.version !== 2) ||
    file.kind !== 'chaingate-hd-keystore' ||
    file.crypto?.cipher !== 'aes-256-gcm'
  )
    throw new KeystoreError('unsupported keystore file format')
  const k = file.crypto.kdfparams
  const key = kdf(passphrase, Buffer.from(k.salt, 'hex'), k.n, k.r, k.p)
  try {
    const d = createDecipheriv('aes-256-gcm', key, Buffer.from(file.crypto.iv, 'hex'))
    d.setAAD(header(file))
    d.setAuthTag(Buffer.from(file.crypto.tag, 'hex'))
    return Buffer.concat([d.update(Buffer.from(file.crypto.ciphertext, 'hex')), d.final()]).toString('utf8')
  } catch {
    throw new KeystoreError('wrong passphrase, or the keystore file is damaged')
  }
}

export function readKeystore(path: string): KeystoreFile | undefined {
  if (!existsSync(path)) return undefined
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as KeystoreFile
  } catch {
    throw new KeystoreError(`keystore file ${path} is not valid JSON`)
  }
}

export function writeKeystore(path: string, file: KeystoreFile, opts: { overwrite?: boolean } = {}): void {
  if (existsSync(path) && !opts.overwrite) throw new KeystoreError(`keystore ${path} already exists`)
  mkdirSync(dirname(path), { recursive: true })
  const tmp = `${path}.tmp-${process.pid}`
  writeFileSync(tmp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 })
  renameSync(tmp, path)
}

/** An unlocked HD wallet: derives accounts; the seed stays in this closure. */
export interface Keyring {
  readonly publicTestMnemonic: boolean
  /** The signer for BIP-44 index i. */
  account(index: number): HDAccount
  /** Lower-case address of BIP-44 index i. */
  addressAt(index: number): string
  /** The Solana keys of the same indexes (base58 addresses, ed25519 signers). */
  readonly solana: SolanaKeys
}

export function unlockKeyring(file: KeystoreFile, passphrase: string): Keyring {
  const mnemonic = decryptMnemonic(file, passphrase)
  // BIP-39 seed: PBKDF2-HMAC-SHA512, 2048 rounds, salt "mnemonic" (no BIP-39 passphrase).
  const seed = pbkdf2Sync(
    Buffer.from(mnemonic.normalize('NFKD'), 'utf8'),
    Buffer.from('mnemonic', 'utf8'),
    2048,
    64,
    'sha512',
  )
  const root = HDKey.fromMasterSeed(seed)
  const cache = new Map<number, HDAccount>()
  const account = (index: number): HDAccount => {
    let a = cache.get(index)
    if (!a) {
      a = hdKeyToAccount(root, { addressIndex: index })
      cache.set(index, a)
    }
    return a
  }
  return {
    publicTestMnemonic: file.publicTestMnemonic,
    account,
    addressAt: (index) => account(index).address.toLowerCase(),
    solana: solanaKeysFromSeed(seed),
  }
}
