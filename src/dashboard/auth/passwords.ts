/**
 * Dashboard passwords: scrypt (node:crypto) with N=2^15, r=8, p=1, a 16-byte random salt and a 32-byte key
 * (32 MiB of memory per hash; OWASP suggests N=2^17 — 2^15 keeps a login under ~100 ms on the small machines
 * this runs on). Stored self-describing, so parameters can rise later without a migration:
 *   scrypt$N=32768,r=8,p=1$<salt base64>$<key base64>
 * Verification recomputes with the stored parameters and compares in constant time.
 */
import { randomBytes, scrypt as scryptCb, type ScryptOptions } from 'node:crypto'
import { constantTimeEqual } from '../../shared/constant-time.ts'

export const SCRYPT_PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const
const SALT_BYTES = 16
const KEY_BYTES = 32
export const MIN_PASSWORD_LENGTH = 8
export const MAX_PASSWORD_LENGTH = 1024

function scrypt(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password.normalize('NFKC'), salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
  )
}

/** 128·N·r bytes are needed; allow twice that. */
const maxmem = (N: number, r: number) => 256 * N * r

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES)
  const { N, r, p } = SCRYPT_PARAMS
  const key = await scrypt(password, salt, KEY_BYTES, { N, r, p, maxmem: maxmem(N, r) })
  return `scrypt$N=${N},r=${r},p=${p}$${salt.toString('base64')}$${key.toString('base64')}`
}

const STORED = /^scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = STORED.exec(stored)
  if (!m) return false
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (N > 2 ** 20 || r > 32 || p > 16) return false
  const salt = Buffer.from(m[4]!, 'base64')
  const expected = Buffer.from(m[5]!, 'base64')
  const actual = await scrypt(password, salt, expected.length, { N, r, p, maxmem: maxmem(N, r) })
  return constantTimeEqual(expected, actual)
}

/** Spends the same time as a real verification, so an unknown email is not told apart by timing. */
let dummyHash: Promise<string> | undefined
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hashPassword('chaingate-dummy-password')
  await verifyPassword(password, await dummyHash)
  return false
}

/** Why a new password is not acceptable, or null. */
export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `a password needs at least ${MIN_PASSWORD_LENGTH} characters`
  if (password.length > MAX_PASSWORD_LENGTH) return `a password has at most ${MAX_PASSWORD_LENGTH} characters`
  return null
}
