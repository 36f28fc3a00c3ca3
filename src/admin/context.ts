/**
 * What every admin route shares: the app's repositories and config, the upstream state, the optional live reload,
 * and the small helpers that find an account or key or fail with the taxonomy's 404.
 */
import type { FastifyRequest } from 'fastify'
import type { Account, AccountsRepository } from '../accounts/repository.ts'
import type { Config } from '../config/schema.ts'
import type { Db } from '../db/database.ts'
import { errors } from '../errors/index.ts'
import type { ApiKey, KeysRepository } from '../keys/repository.ts'
import type { NetworkRegistry } from '../networks/registry.ts'
import type { UpstreamPool } from '../upstreams/pool/pool.ts'
import type { DashboardLimiters } from '../accounts/login-limiter.ts'

/** Minimal logger shape (pino's Logger fits). */
export interface AdminLogger {
  info(obj: object, msg?: string): void
  warn(obj: object, msg?: string): void
  error(obj: object, msg?: string): void
}

/** What AdminDeps.reload answers: the outcome of every process reached. */
export interface ReloadOutcomes {
  ok: boolean
  expected: number
  processes: { process: string; ok: boolean; version: string; changes: string[]; error?: string }[]
}

export interface AdminDeps {
  db: Db
  config: Config
  clock: { now(): number }
  logger: AdminLogger
  accounts: AccountsRepository
  keys: KeysRepository
  networks: NetworkRegistry
  pools: Map<string, UpstreamPool>
  /**
   * The dashboard's log-in limiters of this process (in Redis with redis.url): the unlock clears them; unset:
   * `POST /accounts/:id/unlock` answers 503.
   */
  limiters?: Pick<DashboardLimiters, 'login'> | undefined
  /**
   * Reloads this process's key snapshot: a change serves here before its answer is sent (others poll or get a
   * push).
   */
  refreshKeys?: (() => Promise<void>) | undefined
  /**
   * Has every process re-read the config and apply it in place (live reload, docs/config.md), answering each
   * one's outcome; unset: `POST /admin/v1/reload` answers 503.
   */
  reload?: (() => Promise<ReloadOutcomes>) | undefined
}

/** What the audit records of one call (src/admin/audit-hook.ts); routes fill it in as they learn it. */
export interface AuditNote {
  actor: string
  target?: string | undefined
  summary?: string | undefined
}

declare module 'fastify' {
  interface FastifyRequest {
    adminAudit?: AuditNote
  }
}

export interface Admin {
  deps: AdminDeps
  /**
   * The account by id or email, or 404; the call's audit target becomes the account's id (a route may set another
   * after), so `GET /audit?target=<id>` finds calls that named the account by its email too.
   */
  account(ref: string, req: FastifyRequest): Promise<Account>
  /** The key by id, or 404 (the key itself is not accepted in a path: paths get logged). */
  key(id: string): Promise<ApiKey>
  /** Adds to what the audit records about this call. */
  note(req: FastifyRequest, note: Omit<AuditNote, 'actor'>): void
}

export function createAdmin(deps: AdminDeps): Admin {
  const note: Admin['note'] = (req, n) => {
    req.adminAudit = { actor: req.adminAudit?.actor ?? 'anonymous', ...req.adminAudit, ...n }
  }
  return {
    deps,
    async account(ref, req) {
      const a = await deps.accounts.resolve(ref)
      if (!a) throw errors.notFound(`account ${ref}`)
      note(req, { target: a.id })
      return a
    },
    async key(id) {
      const k = await deps.keys.get(id)
      if (!k) throw errors.notFound(`key ${id}`)
      return k
    },
    note,
  }
}
