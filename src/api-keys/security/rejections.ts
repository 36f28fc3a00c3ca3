/**
 * The exact refusals of I§3.4 (../shared/reference/infura.md). Clients match these bytes, so they are constants.
 * The secret and JWT bodies are documented without a trailing newline (the table only shows `\n` where bytes
 * were observed); the allowlist body was observed with one, 90 bytes, no `id`, JSON sent as text/plain.
 */
import type { Rejection } from './types.ts'

export const SECRET_INVALID_BODY = 'invalid project id or project secret'
export const JWT_INVALID_BODY = 'invalid JWT'
export const KEY_SETTINGS_REJECTED_BODY =
  '{"jsonrpc":"2.0","error":{"code":-32002,"message":"rejected due to project ID settings"}}\n'

const TEXT_PLAIN = 'text/plain; charset=utf-8'

export const SECRET_INVALID: Rejection = Object.freeze({
  status: 401,
  contentType: TEXT_PLAIN,
  body: SECRET_INVALID_BODY,
  code: 'SECRET_INVALID',
})

export const JWT_INVALID: Rejection = Object.freeze({
  status: 401,
  contentType: TEXT_PLAIN,
  body: JWT_INVALID_BODY,
  code: 'JWT_INVALID',
})

export const KEY_SETTINGS_REJECTED: Rejection = Object.freeze({
  status: 403,
  contentType: TEXT_PLAIN,
  body: KEY_SETTINGS_REJECTED_BODY,
  code: 'KEY_SETTINGS_REJECTED',
})
