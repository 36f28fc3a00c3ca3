/**
 * `chaingate key create|list|show|enable-network|disable-network|limits|rename|revoke`: the key commands of
 * ./admin-commands.ts, which opens the database, resolves the account or key named and audits the change.
 */
import type { Account } from '../accounts/repository.ts'
import type { ApiKey, KeysRepository } from '../keys/repository.ts'
import { maskKey } from '../keys/repository.ts'
import { formatKey, keyView } from '../keys/view.ts'
import type { CliContext } from './context.ts'
import { UsageError } from './usage-error.ts'

export interface KeyCommandEnv {
  keys: KeysRepository
  now: number
  /** The account named (an id or email), recorded as the audit's target; a UsageError without one. */
  needAccount(ref: string | undefined): Promise<Account>
  /** The key named (an id or the key), recorded as the audit's target; a UsageError without one. */
  needKey(ref: string | undefined): Promise<ApiKey>
}

export async function keyCommand(
  sub: string | undefined,
  rest: string[],
  values: Record<string, unknown>,
  { config, json, out }: CliContext,
  { keys, now, needAccount, needKey }: KeyCommandEnv,
): Promise<number> {
  const showKey = (k: ApiKey) => {
    if (json) out(JSON.stringify(keyView(k, config), null, 2))
    else out(formatKey(k, config))
  }
  switch (sub) {
    case 'create': {
      const a = await needAccount(values.account as string | undefined)
      const networks =
        typeof values.networks === 'string'
          ? values.networks
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          : undefined
      const k = await keys.create(
        { accountId: a.id, name: (values.name as string) ?? 'key', ...(networks ? { networks } : {}) },
        now,
      )
      showKey(k)
      return 0
    }
    case 'list': {
      const list = await keys.list({
        ...(values.account ? { accountId: (await needAccount(values.account as string)).id } : {}),
        includeRevoked: Boolean(values.all),
      })
      if (json)
        out(
          JSON.stringify(
            list.map((k) => keyView(k, config)),
            null,
            2,
          ),
        )
      else
        for (const k of list)
          out(
            `${k.id}  ${maskKey(k.key)}  ${k.name.padEnd(20)} ${k.revokedAt ? 'REVOKED ' : ''}` +
              `networks: ${k.networks.join(',') || '(none)'}`,
          )
      return 0
    }
    case 'show':
      showKey(await needKey(rest[0]))
      return 0
    case 'enable-network':
    case 'disable-network': {
      const k = await needKey(rest[0])
      if (!rest[1]) throw new UsageError(`usage: key ${sub} <key-id> <network>`)
      showKey(await keys.setNetwork(k.id, rest[1], sub === 'enable-network'))
      return 0
    }
    case 'limits': {
      const k = await needKey(rest[0])
      const num = (v: unknown, name: string) => {
        if (v === undefined) return undefined
        const n = Number(v)
        if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a whole number (0 = plan default)`)
        return n
      }
      const cps = num(values['credits-per-second'], 'credits-per-second')
      const cpd = num(values['credits-per-day'], 'credits-per-day')
      showKey(
        await keys.setLimits(k.id, {
          ...(cps !== undefined ? { creditsPerSecond: cps } : {}),
          ...(cpd !== undefined ? { creditsPerDay: cpd } : {}),
        }),
      )
      return 0
    }
    case 'rename': {
      const k = await needKey(rest[0])
      if (!rest[1]) throw new UsageError('usage: key rename <key-id> <name>')
      showKey(await keys.rename(k.id, rest.slice(1).join(' ')))
      return 0
    }
    case 'revoke':
      showKey(await keys.revoke((await needKey(rest[0])).id, now))
      return 0
    default:
      throw new UsageError(`unknown command "key ${sub ?? ''}"; see chaingate help key`)
  }
}
