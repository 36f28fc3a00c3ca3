/**
 * The one constant-time comparison of secrets (console tokens, key secrets, session ids, password hashes).
 * Both sides are hashed first, so neither the content nor the length of the expected value leaks through timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto'

const digest = (v: string | Uint8Array) => createHash('sha256').update(v).digest()

export function constantTimeEqual(expected: string | Uint8Array, actual: string | Uint8Array): boolean {
  return timingSafeEqual(digest(expected), digest(actual))
}
