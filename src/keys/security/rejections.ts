/**
 * The key-security refusals, as codes. Infura's exact bytes for them (401 texts, the 90-byte 403 body) are
 * written at the edge, in src/gateway/http/infura-bodies.ts.
 */
import type { Rejection } from './types.ts'

export const SECRET_INVALID: Rejection = Object.freeze({ code: 'SECRET_INVALID' })
export const JWT_INVALID: Rejection = Object.freeze({ code: 'JWT_INVALID' })
export const KEY_SETTINGS_REJECTED: Rejection = Object.freeze({ code: 'KEY_SETTINGS_REJECTED' })
