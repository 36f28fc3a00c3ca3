/**
 * The key security rules Infura documents (secret, JWT, allowlists; docs/key-security.md), framework-free. The gateway
 * calls
 * `evaluateKeyAccess` once per HTTP request, at a WebSocket upgrade (no calls) and for every WebSocket message
 * (with the upgrade's headers, so settings changed while a socket is open apply), after the key and network are
 * known. A refusal is a code; the edge writes Infura's bytes for it.
 */
import { createHash } from 'node:crypto'
import type { CryptoKey, JWTPayload } from 'jose'
import { LRUCache } from 'lru-cache'
import { constantTimeEqual } from '../../shared/constant-time.ts'
import { touchedAddresses } from './addresses.ts'
import { originAllowed } from './origins.ts'
import { JWT_INVALID, KEY_SETTINGS_REJECTED, SECRET_INVALID } from './rejections.ts'
import {
  hasAllowlists,
  type Allowlists,
  type CallInfo,
  type Credential,
  type CredentialResult,
  type JwtPublicKey,
  type KeySecurity,
  type Rejection,
} from './types.ts'

export interface KeyAccessRequest {
  /** The raw Authorization header. */
  authorization?: string | undefined
  origin?: string | undefined
  userAgent?: string | undefined
  /** Every call of the request (one for a single call, all items of a batch, none for a WS upgrade). */
  calls: readonly CallInfo[]
}

export interface KeyAccessOptions {
  /** The `aud` a JWT must carry (Infura: "infura.io"); config `dashboard.jwtAudience`. */
  jwtAudience: string
  /** ms since the epoch (clock.now()), for JWT `exp`. */
  now: number
}

const NO_CREDENTIAL: Credential = Object.freeze({ kind: 'none' })
const SECRET_CREDENTIAL: Credential = Object.freeze({ kind: 'secret' })

/** sha256 hex, the stored form of a key secret. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex')
}

/**
 * One check per request: credentials (secret, JWT), then allowlists. Null means "let it through".
 * Resolves immediately when the key has no security settings.
 */
export async function evaluateKeyAccess(
  security: KeySecurity | null,
  request: KeyAccessRequest,
  options: KeyAccessOptions,
): Promise<Rejection | null> {
  if (security === null || !isActive(security, request.authorization)) return null
  const result = await checkCredentials(security, request, options)
  if (!result.ok) return result.rejection
  return checkAllowlists(security, result.credential, request)
}

/** Whether anything about the key can refuse this request; false lets the gateway skip all work. */
function isActive(security: KeySecurity, authorization: string | undefined): boolean {
  if (security.requireSecret || security.requireJwt || hasAllowlists(security.allowlists)) return true
  // A JWT may carry allowlist claims that restrict a key with no other settings (Infura: "JWT allowlists can
  // still restrict a subset" without "Require JWT").
  return security.jwtKeys.length > 0 && authorization !== undefined && /^bearer\s/i.test(authorization)
}

/**
 * Reads the Authorization header: `Basic base64(":" + secret)` (empty user) or `Bearer <jwt>`.
 * - Secret required and not valid → 401 `invalid project id or project secret`.
 * - JWT required and not valid, or a JWT presented to a key with JWT keys that does not verify → 401 `invalid JWT`.
 * - A wrong secret on a key that does not require one just earns no credential (no allowlist override).
 */
export async function checkCredentials(
  security: KeySecurity,
  request: { authorization?: string | undefined },
  options: KeyAccessOptions,
): Promise<CredentialResult> {
  const auth = parseAuthorization(request.authorization)
  if (auth.kind === 'basic') {
    const valid = auth.user === '' && secretMatches(security.secretHash, auth.password)
    if (!valid && security.requireSecret) return { ok: false, rejection: SECRET_INVALID }
    if (security.requireJwt) return { ok: false, rejection: JWT_INVALID }
    return { ok: true, credential: valid ? SECRET_CREDENTIAL : NO_CREDENTIAL }
  }
  if (security.requireSecret) return { ok: false, rejection: SECRET_INVALID }
  if (auth.kind === 'bearer' && (security.jwtKeys.length > 0 || security.requireJwt)) {
    const claims = await verifyJwt(security.jwtKeys, auth.token, options)
    if (claims === null) return { ok: false, rejection: JWT_INVALID }
    return { ok: true, credential: { kind: 'jwt', claims } }
  }
  if (security.requireJwt) return { ok: false, rejection: JWT_INVALID }
  return { ok: true, credential: NO_CREDENTIAL }
}

/**
 * Allowlists (https://docs.metamask.io/developer-tools/dashboard/how-to/secure-an-api/use-an-allowlist/): every
 * non-empty list must pass (types AND), one matching entry is enough (entries OR). A valid secret
 * skips all lists when the key says so. A verified JWT's allowlist claims replace the key's list of the same type
 * (Infura: "JWT allowlists override all other security settings"); types the token does not name keep the key's
 * list. Batches: every call must pass, else the whole request is refused (Infura leaves batches undocumented).
 */
export function checkAllowlists(
  security: KeySecurity,
  credential: Credential,
  request: Omit<KeyAccessRequest, 'authorization'>,
): Rejection | null {
  if (credential.kind === 'secret' && security.secretOverridesAllowlists) return null
  const lists: Allowlists =
    credential.kind === 'jwt' ? { ...security.allowlists, ...credential.claims } : security.allowlists

  if (lists.origins.length > 0 && !originAllowed(lists.origins, request.origin)) return KEY_SETTINGS_REJECTED

  if (lists.userAgents.length > 0) {
    const ua = request.userAgent
    if (ua === undefined || !lists.userAgents.some((entry) => entry !== '' && ua.includes(entry)))
      return KEY_SETTINGS_REJECTED
  }

  if (lists.methods.length > 0) {
    const methods = cachedSet(lists.methods, false)
    for (const call of request.calls) if (!methods.has(call.method)) return KEY_SETTINGS_REJECTED
  }

  if (lists.addresses.length > 0) {
    const addresses = cachedSet(lists.addresses, true)
    for (const call of request.calls) {
      const touched = touchedAddresses(call.method, call.params)
      if (touched === null) continue
      if (touched.length === 0) return KEY_SETTINGS_REJECTED
      for (const a of touched) if (!addresses.has(a)) return KEY_SETTINGS_REJECTED
    }
  }
  return null
}

// ---- Authorization header -------------------------------------------------------------------------------------

type ParsedAuthorization =
  | { kind: 'none' }
  | { kind: 'basic'; user: string; password: string }
  | { kind: 'bearer'; token: string }

function parseAuthorization(header: string | undefined): ParsedAuthorization {
  if (header === undefined) return { kind: 'none' }
  const m = /^\s*(\S+)\s+(\S+)\s*$/.exec(header)
  if (!m) return { kind: 'none' }
  const scheme = m[1]!.toLowerCase()
  if (scheme === 'bearer') return { kind: 'bearer', token: m[2]! }
  if (scheme !== 'basic') return { kind: 'none' }
  const decoded = Buffer.from(m[2]!, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return { kind: 'basic', user: decoded, password: '' }
  return { kind: 'basic', user: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

function secretMatches(secretHash: string | null, presented: string): boolean {
  if (secretHash === null || presented === '') return false
  return constantTimeEqual(secretHash, hashSecret(presented))
}

// ---- JWT ------------------------------------------------------------------------------------------------------

/** jose, loaded with the first JWT: most deployments never see one (~10 MiB of RSS a process need not carry). */
let joseModule: Promise<typeof import('jose')> | undefined
const jose = () => (joseModule ??= import('jose'))

/** Imported public keys by alg + PEM (importing parses the PEM each time); the least recently used go first. */
const importedKeys = new LRUCache<string, Promise<CryptoKey>>({ max: 1000 })

function importKey(key: JwtPublicKey): Promise<CryptoKey> {
  const cacheKey = `${key.alg}\n${key.publicKeyPem}`
  let imported = importedKeys.get(cacheKey)
  if (!imported) {
    imported = jose().then((j) => j.importSPKI(key.publicKeyPem, key.alg))
    // A bad PEM must not poison the cache for a fixed one.
    imported.catch(() => importedKeys.delete(cacheKey))
    importedKeys.set(cacheKey, imported)
  }
  return imported
}

const CLAIMS: readonly [claim: string, list: keyof Allowlists][] = [
  ['methods', 'methods'],
  ['addresses', 'addresses'],
  ['origins', 'origins'],
  ['user_agents', 'userAgents'],
]

/**
 * JWT (https://docs.metamask.io/services/how-to/json-web-token-jwt/): header alg RS256/ES256 and a `kid` naming one of
 * the key's registered public keys (whose alg must
 * match), signature valid, `exp` present and not passed, `aud` the configured audience. Returns the allowlist
 * claims, or null when anything is wrong.
 */
async function verifyJwt(
  keys: readonly JwtPublicKey[],
  token: string,
  options: KeyAccessOptions,
): Promise<Partial<Allowlists> | null> {
  let payload: JWTPayload
  try {
    const { decodeProtectedHeader, jwtVerify } = await jose()
    const header = decodeProtectedHeader(token)
    if (header.alg !== 'RS256' && header.alg !== 'ES256') return null
    if (header.typ !== undefined && header.typ.toUpperCase() !== 'JWT') return null
    const key = keys.find((k) => k.id === header.kid)
    if (key === undefined || key.alg !== header.alg) return null
    const cryptoKey = await importKey(key)
    ;({ payload } = await jwtVerify(token, cryptoKey, {
      algorithms: [key.alg],
      audience: options.jwtAudience,
      currentDate: new Date(options.now),
      requiredClaims: ['exp', 'aud'],
    }))
  } catch {
    return null
  }
  const claims: Partial<Allowlists> = {}
  for (const [claim, list] of CLAIMS) {
    const value = payload[claim]
    if (value === undefined) continue
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return null
    claims[list] = value
  }
  return claims
}

// ---- helpers --------------------------------------------------------------------------------------------------

const sets = new WeakMap<readonly string[], Set<string>>()

/** The list as a Set, built once per list (the key snapshot's arrays are immutable until the next reload). */
function cachedSet(list: readonly string[], lowercase: boolean): Set<string> {
  let set = sets.get(list)
  if (!set) {
    // EVM hex addresses compare lowercase; Solana's base58 keys are case-sensitive, kept as written.
    set = new Set(lowercase ? list.map((v) => (v.startsWith('0x') ? v.toLowerCase() : v)) : list)
    sets.set(list, set)
  }
  return set
}
