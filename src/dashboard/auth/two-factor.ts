/**
 * TOTP (RFC 6238: 6 digits, 30-second steps, SHA-1, as every authenticator app reads an otpauth:// URI) through
 * `otpauth`, the QR code drawn on the server (`qrcode`, an SVG in a data: URL, which the dashboard's CSP allows as
 * an image) and ten single-use recovery codes, stored as sha256.
 */
import { createHash, randomBytes } from 'node:crypto'
import { Secret, TOTP } from 'otpauth'
import QRCode from 'qrcode'
import type { TwoFactorRepository } from '../../accounts/two-factor-repository.ts'

const PERIOD_S = 30
export const RECOVERY_CODE_COUNT = 10

const totpOf = (secret: string, label = 'account', issuer = 'chaingate') =>
  new TOTP({ issuer, label, algorithm: 'SHA1', digits: 6, period: PERIOD_S, secret: Secret.fromBase32(secret) })

/** A new base32 secret (160 bits, RFC 4226's recommended length). */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32

/** The otpauth:// URI of the secret, and its QR code as an SVG data: URL. */
export async function totpEnrollment(secret: string, email: string, issuer: string) {
  const uri = totpOf(secret, email, issuer).toString()
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })
  return { uri, qr: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` }
}

/** The time step of a code valid now (one step either side for clock drift), or null. */
export function totpStep(secret: string, code: string, nowMs: number): number | null {
  const token = code.replace(/\s+/g, '')
  if (!/^\d{6}$/.test(token)) return null
  const delta = totpOf(secret).validate({ token, timestamp: nowMs, window: 1 })
  return delta === null ? null : Math.floor(nowMs / 1000 / PERIOD_S) + delta
}

/** The code of `secret` at `nowMs` (tests, and nothing else). */
export const totpCodeAt = (secret: string, nowMs: number): string => totpOf(secret).generate({ timestamp: nowMs })

const normalizeRecovery = (code: string) => code.toLowerCase().replace(/[^a-z0-9]/g, '')
export const hashRecoveryCode = (code: string): string =>
  createHash('sha256').update(normalizeRecovery(code)).digest('hex')

/** Ten codes like `k3f9-x2qa-7m`: 10 random base32 characters each (50 bits). */
export function newRecoveryCodes(): string[] {
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789'
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const s = [...randomBytes(10)].map((b) => alphabet[b % alphabet.length]).join('')
    return `${s.slice(0, 4)}-${s.slice(4, 8)}-${s.slice(8)}`
  })
}

/**
 * Checks a second factor: a TOTP code (used once: a replay within its window is refused) or a recovery code
 * (used once). True when accepted.
 */
export async function checkSecondFactor(
  repo: TwoFactorRepository,
  accountId: string,
  code: string,
  nowMs: number,
): Promise<boolean> {
  const record = await repo.get(accountId)
  if (!record?.enabledAt) return false
  const step = totpStep(record.secret, code, nowMs)
  if (step !== null) return repo.useStep(accountId, step)
  const normalized = normalizeRecovery(code)
  if (normalized.length !== 10) return false
  return repo.useRecoveryCode(accountId, hashRecoveryCode(normalized), nowMs)
}
