import type { KeySecurity } from '../api-keys/security/types.ts'

/** A key-security refusal: exact status, content type and body (../shared/reference/infura.md §3.4). */
export interface AccessRefusal {
  status: number
  contentType: string
  body: string
  code: string
}

/**
 * Key security check (secret, JWT, allowlists) for one request; implemented in src/api-keys/security and
 * injected by app.ts so the pipeline stays independent of it.
 */
export type AccessCheck = (
  security: KeySecurity,
  request: { authorization?: string | undefined; origin?: string | undefined; userAgent?: string | undefined; calls: { method: string; params: unknown }[] },
) => Promise<AccessRefusal | null>
