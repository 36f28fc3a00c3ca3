/**
 * The one check of an email address, wherever one enters (dashboard sign-up, `chaingate account create`, the admin
 * API, the config's dev account): all go through the accounts repository's `create`.
 */

/** Longest address (RFC 5321's 64-octet local part, `@` and 255-octet domain), as the admin API's schema says. */
export const MAX_EMAIL_LENGTH = 320

const SHAPE = /^[^\s@]+@[^\s@]+$/
/**
 * Control characters (C0 such as NUL, BEL and ESC, DEL, C1) and invisible format characters (zero-width ones,
 * bidirectional overrides and isolates, the byte order mark: Unicode category Cf): printed raw they move a
 * terminal's cursor or reorder text, and `dev@localhost` followed by a NUL would look like `dev@localhost`.
 */
const UNSAFE = /[\p{Cc}\p{Cf}]/u

/** The address as stored and looked up: trimmed, lower case. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

/** Why `email` (normalized) is not accepted, or undefined. The reason never repeats an unsafe address. */
export function emailProblem(email: string): string | undefined {
  if (email.length > MAX_EMAIL_LENGTH) return `an email address has at most ${MAX_EMAIL_LENGTH} characters`
  if (UNSAFE.test(email)) return 'an email address cannot hold control or invisible (format) characters'
  if (!SHAPE.test(email)) return `not an email address: ${email}`
  return undefined
}
