/**
 * Two-factor log-in records (tables `account_totp`, `account_recovery_codes`; docs/dashboard.md, "Two-factor
 * log-in"). A TOTP code is accepted once: `useStep` moves the last accepted time step forward in one conditional
 * UPDATE, so a code replayed within its window (or two requests at once) fails. Recovery codes are stored as sha256
 * and used once the same way.
 */
import type { Db } from '../db/database.ts'

export interface TotpRecord {
  secret: string
  /** null: set up but not yet confirmed with a code. */
  enabledAt: number | null
  lastStep: number | null
}

export interface TwoFactorRepository {
  get(accountId: string): Promise<TotpRecord | undefined>
  /** A new secret waiting for its first code (replaces a pending one; refused while 2FA is on: returns false). */
  setPending(accountId: string, secret: string, nowMs: number): Promise<boolean>
  /** Turns 2FA on with the step of the first code and the hashes of the recovery codes. */
  enable(accountId: string, step: number, codeHashes: string[], nowMs: number): Promise<void>
  /** Accepts time step `step` once: false when it (or a later one) was already used. */
  useStep(accountId: string, step: number): Promise<boolean>
  /** Uses one recovery code: false when unknown or used. */
  useRecoveryCode(accountId: string, codeHash: string, nowMs: number): Promise<boolean>
  /** Recovery codes left. */
  recoveryCodesLeft(accountId: string): Promise<number>
  /** Turns 2FA off (the user, or an operator for a locked-out user); false when it was not set up. */
  disable(accountId: string): Promise<boolean>
}

export function createTwoFactorRepository(db: Db): TwoFactorRepository {
  return {
    async get(accountId) {
      const r = await db.selectFrom('account_totp').selectAll().where('account_id', '=', accountId).executeTakeFirst()
      return r && { secret: r.secret, enabledAt: r.enabled_at, lastStep: r.last_step }
    },
    async setPending(accountId, secret, nowMs) {
      return db.transaction().execute(async (tx) => {
        const r = await tx
          .selectFrom('account_totp')
          .select('enabled_at')
          .where('account_id', '=', accountId)
          .executeTakeFirst()
        if (r?.enabled_at != null) return false
        await tx.deleteFrom('account_totp').where('account_id', '=', accountId).execute()
        await tx
          .insertInto('account_totp')
          .values({ account_id: accountId, secret, enabled_at: null, last_step: null, updated_at: nowMs })
          .execute()
        return true
      })
    },
    async enable(accountId, step, codeHashes, nowMs) {
      await db.transaction().execute(async (tx) => {
        await tx
          .updateTable('account_totp')
          .set({ enabled_at: nowMs, last_step: step, updated_at: nowMs })
          .where('account_id', '=', accountId)
          .execute()
        await tx.deleteFrom('account_recovery_codes').where('account_id', '=', accountId).execute()
        if (codeHashes.length > 0)
          await tx
            .insertInto('account_recovery_codes')
            .values(codeHashes.map((code_hash) => ({ account_id: accountId, code_hash })))
            .execute()
      })
    },
    async useStep(accountId, step) {
      const r = await db
        .updateTable('account_totp')
        .set({ last_step: step })
        .where('account_id', '=', accountId)
        .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
        .executeTakeFirst()
      return Number(r.numUpdatedRows) === 1
    },
    async useRecoveryCode(accountId, codeHash, nowMs) {
      const r = await db
        .updateTable('account_recovery_codes')
        .set({ used_at: nowMs })
        .where('account_id', '=', accountId)
        .where('code_hash', '=', codeHash)
        .where('used_at', 'is', null)
        .executeTakeFirst()
      return Number(r.numUpdatedRows) === 1
    },
    async recoveryCodesLeft(accountId) {
      const r = await db
        .selectFrom('account_recovery_codes')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .where('used_at', 'is', null)
        .executeTakeFirst()
      return Number(r?.n ?? 0)
    },
    async disable(accountId) {
      return db.transaction().execute(async (tx) => {
        await tx.deleteFrom('account_recovery_codes').where('account_id', '=', accountId).execute()
        const r = await tx.deleteFrom('account_totp').where('account_id', '=', accountId).executeTakeFirst()
        return Number(r.numDeletedRows) === 1
      })
    },
  }
}
