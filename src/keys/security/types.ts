/**
 * Per-key security settings as Infura documents them
 * (https://docs.metamask.io/developer-tools/dashboard/how-to/secure-an-api/ ):
 * the key secret, JWT and the four allowlists (docs/key-security.md). Plain data, no framework; the gateway keeps one
 * per key in its snapshot.
 */

/** Infura: "Each API key has a maximum of 30 allowlist entries per type." */
export const MAX_ALLOWLIST_ENTRIES = 30
/** Infura: "Upload up to 3 public keys per API key". */
export const MAX_JWT_KEYS = 3

export type JwtAlgorithm = 'RS256' | 'ES256'
export const JWT_ALGORITHMS: readonly JwtAlgorithm[] = ['RS256', 'ES256']

export interface JwtPublicKey {
  /** The `kid` a token must carry to be verified with this key. */
  id: string
  name: string
  alg: JwtAlgorithm
  /** SPKI PEM (`-----BEGIN PUBLIC KEY-----`). */
  publicKeyPem: string
  /** base64(sha256(DER of the public key)), as Infura shows it. */
  fingerprint: string
}

export interface Allowlists {
  /** Origin entries: `https://*.example.com`, `mydapp.example.com`, `localhost:3000`, `https://` (scheme only). */
  origins: string[]
  /** Substrings of the User-Agent header. */
  userAgents: string[]
  /** 0x-prefixed 20-byte addresses, compared case-insensitively. */
  addresses: string[]
  /** JSON-RPC method names, compared exactly. */
  methods: string[]
}

export type AllowlistType = keyof Allowlists
export const ALLOWLIST_TYPES: readonly AllowlistType[] = ['origins', 'userAgents', 'addresses', 'methods']

export interface KeySecurity {
  /** sha256 hex of the secret (the secret itself, 32 hex chars, is shown once at creation/rotation). */
  secretHash: string | null
  /** Infura's "Require API Key secret for all requests". */
  requireSecret: boolean
  allowlists: Allowlists
  /** Infura's "OVERRIDE ALLOWLIST": a valid secret bypasses the allowlists. */
  secretOverridesAllowlists: boolean
  /** Infura's "Require JWT for all requests". */
  requireJwt: boolean
  jwtKeys: JwtPublicKey[]
}

export function emptyAllowlists(): Allowlists {
  return { origins: [], userAgents: [], addresses: [], methods: [] }
}

export function defaultKeySecurity(): KeySecurity {
  return {
    secretHash: null,
    requireSecret: false,
    allowlists: emptyAllowlists(),
    secretOverridesAllowlists: false,
    requireJwt: false,
    jwtKeys: [],
  }
}

export function hasAllowlists(lists: Allowlists): boolean {
  return lists.origins.length + lists.userAgents.length + lists.addresses.length + lists.methods.length > 0
}

/** One call of a (possibly batched) request, as far as the allowlists care. */
export interface CallInfo {
  method: string
  params: unknown
}

/** What the Authorization header proved. */
export type Credential =
  | { kind: 'none' }
  | { kind: 'secret' }
  /** A verified JWT; its allowlist claims, when present, replace the key's list of the same type. */
  | { kind: 'jwt'; claims: Partial<Allowlists> }

export type KeyAccessCode = 'SECRET_INVALID' | 'JWT_INVALID' | 'KEY_SETTINGS_REJECTED'

/**
 * A refusal, as its error code (src/errors/registry.ts); the edge writes Infura's bytes
 * (src/gateway/http/infura-bodies.ts).
 */
export interface Rejection {
  code: KeyAccessCode
}

export type CredentialResult = { ok: true; credential: Credential } | { ok: false; rejection: Rejection }
