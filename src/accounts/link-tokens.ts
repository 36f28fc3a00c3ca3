/**
 * Single-use, expiring tokens for mailed links (table `link_tokens`): sign-up confirmation, password reset, team
 * invitations, and a log-in waiting for its second factor. The token (32 random bytes, base64url) goes only into
 * the link; the table holds its sha256 with its purpose, so a copy of the database cannot be replayed and a token
 * of one purpose never passes as another. `consume` marks a token used in one conditional UPDATE, so two clicks at
 * the same moment cannot both succeed.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Db } from '../db/database.ts'

export type LinkPurpose = 'confirm' | 'reset' | 'invite' | 'login-2fa'

export interface LinkToken {
  purpose: LinkPurpose
  accountId: string | null
  email: string | null
  /** Free text of the purpose's owner (e.g. an invitation's team and role as JSON). */
  data: string | null
  createdAt: number
  expiresAt: number
}

export interface IssueInput {
  purpose: LinkPurpose
  accountId?: string | null
  email?: string | null
  data?: string | null
  ttlMs: number
}

export interface LinkTokens {
  /** A new token; the raw value is returned once and never stored. */
  issue(input: IssueInput, nowMs: number): Promise<string>
  /** The token's record when it is of this purpose, unused and unexpired; it stays usable. */
  peek(purpose: LinkPurpose, token: string, nowMs: number): Promise<LinkToken | undefined>
  /** Like `peek`, and marks it used: a second `consume` of the same token finds nothing. */
  consume(purpose: LinkPurpose, token: string, nowMs: number): Promise<LinkToken | undefined>
  /** Ends every unused token of this purpose for the account (a new reset link replaces the older ones). */
  revokeAll(purpose: LinkPurpose, accountId: string, nowMs: number): Promise<void>
  /** Deletes tokens that expired more than a day ago. */
  prune(nowMs: number): Promise<void>
}

/** The shape of a token this module makes: anything else is refused before the database is asked. */
const SHAPE = /^[A-Za-z0-9_-]{43}$/
export const hashLinkToken = (token: string): string => createHash('sha256').update(token).digest('hex')

export function createLinkTokens(db: Db): LinkTokens {
  const find = async (purpose: LinkPurpose, hash: string, nowMs: number) => {
    const row = await db
      .selectFrom('link_tokens')
      .selectAll()
      .where('token_hash', '=', hash)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('expires_at', '>', nowMs)
      .executeTakeFirst()
    return (
      row && {
        purpose: row.purpose as LinkPurpose,
        accountId: row.account_id,
        email: row.email,
        data: row.data,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
      }
    )
  }
  const tokens: LinkTokens = {
    async issue(input, nowMs) {
      const token = randomBytes(32).toString('base64url')
      await db
        .insertInto('link_tokens')
        .values({
          token_hash: hashLinkToken(token),
          purpose: input.purpose,
          account_id: input.accountId ?? null,
          email: input.email ?? null,
          data: input.data ?? null,
          created_at: nowMs,
          expires_at: nowMs + input.ttlMs,
        })
        .execute()
      return token
    },
    async peek(purpose, token, nowMs) {
      if (!SHAPE.test(token)) return undefined
      return find(purpose, hashLinkToken(token), nowMs)
    },
    async consume(purpose, token, nowMs) {
      if (!SHAPE.test(token)) return undefined
      const hash = hashLinkToken(token)
      const found = await find(purpose, hash, nowMs)
      if (!found) return undefined
      const r = await db
        .updateTable('link_tokens')
        .set({ used_at: nowMs })
        .where('token_hash', '=', hash)
        .where('used_at', 'is', null)
        .executeTakeFirst()
      return Number(r.numUpdatedRows) === 1 ? found : undefined
    },
    async revokeAll(purpose, accountId, nowMs) {
      await db
        .updateTable('link_tokens')
        .set({ used_at: nowMs })
        .where('account_id', '=', accountId)
        .where('purpose', '=', purpose)
        .where('used_at', 'is', null)
        .execute()
    },
    async prune(nowMs) {
      await db
        .deleteFrom('link_tokens')
        .where('expires_at', '<', nowMs - 86_400_000)
        .execute()
    },
  }
  return tokens
}
