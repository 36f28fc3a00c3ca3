/**
 * Storage of key security settings (table `api_key_security`, migration 0200_key_security). The gateway reads
 * everything with `loadAllKeySecurity` on each settings_version change; the dashboard and CLI change one key at a
 * time through the setters, each of which bumps settings_version so running servers reload within a second.
 * Callers check ownership of the key first; these functions only check that the key exists.
 */
import { randomUUID } from 'node:crypto'
import type { Db } from '../../db/database.ts'
import { bumpSettingsVersion } from '../../db/settings-version.ts'
import { errors } from '../../errors/index.ts'
import type { ApiKeySecurityTable } from '../../db/tables.ts'
import { hashSecret } from './evaluate.ts'
import {
  ALLOWLIST_TYPES,
  defaultKeySecurity,
  emptyAllowlists,
  MAX_JWT_KEYS,
  type Allowlists,
  type AllowlistType,
  type JwtPublicKey,
  type KeySecurity,
} from './types.ts'
import { addAllowlistEntries, checkJwtPublicKey, generateKeySecret } from './validate.ts'

/** Every key's settings, by key id (revoked keys included; the snapshot drops those itself). */
export async function loadAllKeySecurity(db: Db): Promise<Map<string, KeySecurity>> {
  const rows = await db.selectFrom('api_key_security').selectAll().execute()
  const out = new Map<string, KeySecurity>()
  for (const row of rows) out.set(row.key_id, fromRow(row))
  return out
}

/** One key's settings; defaults when it has none. */
export async function getKeySecurity(db: Db, keyId: string): Promise<KeySecurity> {
  const row = await db.selectFrom('api_key_security').selectAll().where('key_id', '=', keyId).executeTakeFirst()
  return row ? fromRow(row) : defaultKeySecurity()
}

/** Creates or replaces the key secret; returns the secret, which is never stored and cannot be shown again. */
export async function rotateKeySecret(db: Db, keyId: string, nowMs: number): Promise<string> {
  const secret = generateKeySecret()
  await update(db, keyId, nowMs, (s) => ({ ...s, secretHash: hashSecret(secret) }))
  return secret
}

export interface SecurityFlags {
  requireSecret?: boolean
  secretOverridesAllowlists?: boolean
  requireJwt?: boolean
}

export async function setSecurityFlags(
  db: Db,
  keyId: string,
  flags: SecurityFlags,
  nowMs: number,
): Promise<KeySecurity> {
  return update(db, keyId, nowMs, (s) => {
    const next = { ...s }
    if (flags.requireSecret !== undefined) next.requireSecret = flags.requireSecret
    if (flags.secretOverridesAllowlists !== undefined) next.secretOverridesAllowlists = flags.secretOverridesAllowlists
    if (flags.requireJwt !== undefined) next.requireJwt = flags.requireJwt
    if (next.requireSecret && next.secretHash === null) throw errors.validation('create a secret before requiring it')
    if (next.requireJwt && next.jwtKeys.length === 0)
      throw errors.validation('add a JWT public key before requiring JWTs')
    // Both travel in the one Authorization header (Basic vs Bearer), so no request could satisfy both.
    if (next.requireSecret && next.requireJwt)
      throw errors.validation('a key cannot require both a secret and a JWT: both use the Authorization header')
    return next
  })
}

/** Adds entries to one allowlist (normalised, deduplicated, at most 30). */
export async function addAllowlistEntriesTo(
  db: Db,
  keyId: string,
  type: AllowlistType,
  entries: readonly string[],
  nowMs: number,
): Promise<KeySecurity> {
  return update(db, keyId, nowMs, (s) => {
    const checked = addAllowlistEntries(type, s.allowlists[type], entries)
    if (!checked.ok) throw errors.validation(checked.message)
    return { ...s, allowlists: { ...s.allowlists, [type]: checked.value } }
  })
}

/** Replaces the given allowlists (each checked like `addAllowlistEntriesTo`); types not given keep their entries. */
export async function replaceAllowlists(
  db: Db,
  keyId: string,
  lists: Partial<Allowlists>,
  nowMs: number,
): Promise<KeySecurity> {
  return update(db, keyId, nowMs, (s) => {
    const allowlists = { ...s.allowlists }
    for (const type of ALLOWLIST_TYPES) {
      const entries = lists[type]
      if (entries === undefined) continue
      const checked = addAllowlistEntries(type, [], entries)
      if (!checked.ok) throw errors.validation(checked.message, type)
      allowlists[type] = checked.value
    }
    return { ...s, allowlists }
  })
}

export async function removeAllowlistEntry(
  db: Db,
  keyId: string,
  type: AllowlistType,
  entry: string,
  nowMs: number,
): Promise<KeySecurity> {
  return update(db, keyId, nowMs, (s) => ({
    ...s,
    allowlists: { ...s.allowlists, [type]: s.allowlists[type].filter((e) => e !== entry) },
  }))
}

export async function addJwtKey(
  db: Db,
  keyId: string,
  input: { name: string; alg: string; publicKeyPem: string },
  nowMs: number,
): Promise<JwtPublicKey> {
  const name = input.name.trim()
  if (name.length === 0 || name.length > 100) throw errors.validation('a JWT key name needs 1 to 100 characters')
  const checked = checkJwtPublicKey(input.alg, input.publicKeyPem)
  if (!checked.ok) throw errors.validation(checked.message)
  const key: JwtPublicKey = { id: randomUUID().replaceAll('-', ''), name, ...checked.value }
  await update(db, keyId, nowMs, (s) => {
    if (s.jwtKeys.length >= MAX_JWT_KEYS) throw errors.validation(`at most ${MAX_JWT_KEYS} JWT public keys per API key`)
    if (s.jwtKeys.some((k) => k.fingerprint === key.fingerprint))
      throw errors.validation('this public key is already registered')
    return { ...s, jwtKeys: [...s.jwtKeys, key] }
  })
  return key
}

export async function removeJwtKey(db: Db, keyId: string, jwtKeyId: string, nowMs: number): Promise<KeySecurity> {
  return update(db, keyId, nowMs, (s) => {
    const jwtKeys = s.jwtKeys.filter((k) => k.id !== jwtKeyId)
    // Removing the last key of a key that requires JWTs would lock it; drop the requirement with it.
    return { ...s, jwtKeys, requireJwt: jwtKeys.length > 0 && s.requireJwt }
  })
}

// ---- internals ------------------------------------------------------------------------------------------------

async function update(
  db: Db,
  keyId: string,
  nowMs: number,
  mutate: (s: KeySecurity) => KeySecurity,
): Promise<KeySecurity> {
  const exists = await db.selectFrom('api_keys').select('id').where('id', '=', keyId).executeTakeFirst()
  if (!exists) throw errors.notFound(`key ${keyId}`)
  const next = mutate(await getKeySecurity(db, keyId))
  const row = toRow(keyId, next, nowMs)
  await db
    .insertInto('api_key_security')
    .values(row)
    .onConflict((oc) => oc.column('key_id').doUpdateSet({ ...row, key_id: undefined }))
    .execute()
  await bumpSettingsVersion(db)
  return next
}

function toRow(keyId: string, s: KeySecurity, nowMs: number): ApiKeySecurityTable {
  return {
    key_id: keyId,
    secret_hash: s.secretHash,
    require_secret: s.requireSecret ? 1 : 0,
    secret_overrides_allowlists: s.secretOverridesAllowlists ? 1 : 0,
    require_jwt: s.requireJwt ? 1 : 0,
    allowlists: JSON.stringify(s.allowlists),
    jwt_keys: JSON.stringify(s.jwtKeys),
    updated_at: nowMs,
  }
}

function fromRow(row: ApiKeySecurityTable): KeySecurity {
  const parsed = safeJson(row.allowlists) as Partial<Allowlists> | null
  const allowlists = emptyAllowlists()
  for (const t of ALLOWLIST_TYPES) {
    const v = parsed?.[t]
    if (Array.isArray(v)) allowlists[t] = Object.freeze(v.filter((e): e is string => typeof e === 'string')) as string[]
  }
  const jwtKeys = safeJson(row.jwt_keys)
  return Object.freeze({
    secretHash: row.secret_hash,
    requireSecret: row.require_secret === 1,
    allowlists: Object.freeze(allowlists),
    secretOverridesAllowlists: row.secret_overrides_allowlists === 1,
    requireJwt: row.require_jwt === 1,
    jwtKeys: Array.isArray(jwtKeys) ? (jwtKeys as JwtPublicKey[]) : [],
  })
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}
