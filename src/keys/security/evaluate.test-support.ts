/** What the key-security test files share: a fixed clock, example secret and addresses, and key settings. */
import { evaluateKeyAccess } from './evaluate.ts'
import { defaultKeySecurity, type KeySecurity } from './types.ts'

export const NOW = Date.UTC(2026, 0, 1, 12, 0, 0)
export const OPTS = { jwtAudience: 'chaingate', now: NOW }
export const SECRET = '0123456789abcdef0123456789abcdef'
export const ADDR_A = '0x1937c5f8dcaa1f55d0ab1ed35a5d5c3a4ac40284'
export const ADDR_B = '0xfe05a3e72235c9f92fd9f2282f41a8154d6d342b'

/** Key settings: the defaults with `patch` over them (`lists` patches the allowlists). */
export function sec(patch: Partial<KeySecurity> & { lists?: Partial<KeySecurity['allowlists']> } = {}): KeySecurity {
  const base = defaultKeySecurity()
  const { lists, ...rest } = patch
  return { ...base, ...rest, allowlists: { ...base.allowlists, ...lists } }
}

export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
}

export const call = (method: string, params: unknown = []) => ({ method, params })

export async function evaluate(security: KeySecurity | null, req: Parameters<typeof evaluateKeyAccess>[1]) {
  return evaluateKeyAccess(security, req, OPTS)
}
