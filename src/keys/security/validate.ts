/**
 * Input checks for the settings a key owner edits (dashboard, CLI): allowlist entries, JWT public keys, secrets.
 * Each returns a plain message a user can act on.
 */
import { createHash, createPublicKey, randomBytes } from 'node:crypto'
import { isPubkey } from '../../methods/solana/base58.ts'
import { isAddress } from './addresses.ts'
import { parseOriginEntry } from './origins.ts'
import { MAX_ALLOWLIST_ENTRIES, type AllowlistType, type JwtAlgorithm } from './types.ts'

const METHOD = /^[A-Za-z][A-Za-z0-9_]{0,99}$/

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string }

/** Normalises one allowlist entry of a type, or says why it is not valid. */
export function checkAllowlistEntry(type: AllowlistType, raw: string): Checked<string> {
  const entry = raw.trim()
  if (entry === '') return { ok: false, message: 'an entry cannot be empty' }
  if (entry.length > 200) return { ok: false, message: 'an entry is at most 200 characters' }
  switch (type) {
    case 'origins':
      return parseOriginEntry(entry)
        ? { ok: true, value: entry.toLowerCase().replace(/([^/])\/$/, '$1') }
        : {
            ok: false,
            message:
              `"${entry}" is not an origin ` +
              '(examples: https://*.example.com, mydapp.example.com, localhost:3000, https://)',
          }
    case 'userAgents':
      return { ok: true, value: entry }
    case 'addresses':
      if (isAddress(entry)) return { ok: true, value: entry.toLowerCase() }
      // A Solana account (base58, case-sensitive: kept as written).
      if (isPubkey(entry)) return { ok: true, value: entry }
      return { ok: false, message: `"${entry}" is not a 0x-prefixed 20-byte address nor a base58 Solana public key` }
    case 'methods':
      return METHOD.test(entry) ? { ok: true, value: entry } : { ok: false, message: `"${entry}" is not a method name` }
  }
}

/** Adds entries to a list: normalised, deduplicated, at most 30 (Infura's limit). */
export function addAllowlistEntries(
  type: AllowlistType,
  list: readonly string[],
  raw: readonly string[],
): Checked<string[]> {
  const next = [...list]
  for (const r of raw) {
    const checked = checkAllowlistEntry(type, r)
    if (!checked.ok) return checked
    if (!next.includes(checked.value)) next.push(checked.value)
  }
  if (next.length > MAX_ALLOWLIST_ENTRIES)
    return { ok: false, message: `at most ${MAX_ALLOWLIST_ENTRIES} entries per allowlist type` }
  return { ok: true, value: next }
}

export interface CheckedJwtKey {
  alg: JwtAlgorithm
  publicKeyPem: string
  fingerprint: string
}

/**
 * Accepts an SPKI PEM public key: RSA (≥2048 bits) for RS256, EC P-256 for ES256 (Infura's JWT rules). The fingerprint
 * is
 * base64(sha256(DER)), as Infura shows it.
 */
export function checkJwtPublicKey(alg: string, pem: string): Checked<CheckedJwtKey> {
  if (alg !== 'RS256' && alg !== 'ES256') return { ok: false, message: 'the algorithm must be RS256 or ES256' }
  let der: Buffer
  let keyType: string | undefined
  let details: { modulusLength?: number; namedCurve?: string }
  try {
    if (!pem.includes('-----BEGIN PUBLIC KEY-----')) throw new Error('not SPKI')
    const key = createPublicKey({ key: pem, format: 'pem' })
    keyType = key.asymmetricKeyType
    details = key.asymmetricKeyDetails ?? {}
    der = key.export({ type: 'spki', format: 'der' })
  } catch {
    return { ok: false, message: 'the public key must be a PEM "-----BEGIN PUBLIC KEY-----" block' }
  }
  if (alg === 'RS256' && (keyType !== 'rsa' || (details.modulusLength ?? 0) < 2048))
    return { ok: false, message: 'RS256 needs an RSA public key of at least 2048 bits' }
  if (alg === 'ES256' && (keyType !== 'ec' || details.namedCurve !== 'prime256v1'))
    return { ok: false, message: 'ES256 needs an EC P-256 public key' }
  const publicKeyPem = createPublicKey({ key: der, format: 'der', type: 'spki' })
    .export({ type: 'spki', format: 'pem' })
    .toString()
  return { ok: true, value: { alg, publicKeyPem, fingerprint: createHash('sha256').update(der).digest('base64') } }
}

/** A new key secret: 32 lowercase hex characters, shown once. */
export function generateKeySecret(): string {
  return randomBytes(16).toString('hex')
}
