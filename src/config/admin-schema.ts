/** The `admin` section of the config: the operators' HTTP API (docs/admin-api.md). */
import { z } from 'zod'

const MIN_TOKEN_LENGTH = 32
const MIN_DISTINCT = 8
/** Bits estimated from the characters' frequencies (Shannon); a random 32-hex-digit token scores 90 or more. */
const MIN_BITS = 80

/**
 * Why `token` is too weak to guard the admin API, or undefined: under 32 characters, few different characters, a
 * short text repeated, or little estimated entropy. Guesses are also slowed (docs/admin-api.md); this keeps out
 * the tokens a guess list would hold.
 */
export function adminTokenWeakness(token: string): string | undefined {
  const how = '(from the config or CHAINGATE_ADMIN_TOKEN); generate one with `openssl rand -hex 32`'
  if (token.length < MIN_TOKEN_LENGTH) return `at least ${MIN_TOKEN_LENGTH} characters ${how}`
  const counts = new Map<string, number>()
  for (const c of token) counts.set(c, (counts.get(c) ?? 0) + 1)
  let bits = 0
  for (const n of counts.values()) bits -= n * Math.log2(n / token.length)
  const repeated = /^(.+?)\1+$/s.test(token)
  if (counts.size < MIN_DISTINCT || repeated || bits < MIN_BITS)
    return `too easy to guess: use random text, at least ${MIN_DISTINCT} different characters, not repeated ${how}`
  return undefined
}

export const AdminConfigSchema = z
  .object({
    /**
     * Bearer token of `/admin/v1/…`; null (the default, unless CHAINGATE_ADMIN_TOKEN is set): the API is off and
     * its paths answer 404 like any unknown path. `${ENV}` expansion applies, like every config string.
     */
    token: z
      .string()
      .superRefine((token, ctx) => {
        const weakness = adminTokenWeakness(token)
        if (weakness !== undefined) ctx.addIssue({ code: 'custom', message: weakness })
      })
      .nullable()
      // prefault: a value from the environment is validated like one from the file.
      .prefault(() => process.env.CHAINGATE_ADMIN_TOKEN || null),
    /**
     * Days the admin audit (API, CLI and dashboard changes) is kept; older rows are pruned hourly by every process,
     * in bounded runs (src/audit/retention.ts).
     */
    auditRetentionDays: z.number().int().min(1).max(36_500).default(90),
    /**
     * Wrong bearer tokens one source address may send in a minute (per process); after that, every call from it
     * answers 429 `TOO_MANY_ATTEMPTS` with Retry-After until the minute ends, the right token too.
     */
    tokenFailuresPerMinute: z.number().int().min(1).max(100_000).default(10),
  })
  .strict()
