/**
 * The forms of a key's page: each one is a POST on an owned, active key (log-in, CSRF, ownership checked first);
 * a validation error re-renders the page with the message.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ApiKey } from '../../keys/repository.ts'
import {
  addAllowlistEntriesTo,
  addJwtKey,
  removeAllowlistEntry,
  removeJwtKey,
  rotateKeySecret,
  setSecurityFlags,
} from '../../keys/security/repository.ts'
import { ALLOWLIST_TYPES, type AllowlistType } from '../../keys/security/types.ts'
import { errors, isChaingateError } from '../../errors/index.ts'
import { field, type Dash } from '../context.ts'
import { checkPost } from '../middleware/csrf.ts'
import { noteChange } from '../middleware/audit.ts'
import { requireTeam } from '../middleware/team.ts'
import { capitalize, renderKey } from './keys.ts'

type Action = (
  key: ApiKey,
  body: unknown,
  req: FastifyRequest,
  reply: FastifyReply,
  planName: string,
) => Promise<string | FastifyReply>

const validation = (message: string) => errors.validation(message)

function allowlistType(v: string): AllowlistType {
  if ((ALLOWLIST_TYPES as readonly string[]).includes(v)) return v as AllowlistType
  throw validation('Unknown allowlist type')
}

export function registerKeyActionRoutes(app: FastifyInstance, dash: Dash): void {
  const { clock, logger } = dash
  const db = dash.deps.db

  /** `run` returns the `done` code of the redirect back to the key page, or answers itself. */
  const keyAction = (action: string, run: Action) =>
    app.post(`/keys/:id/${action}`, async (req, reply) => {
      const who = await requireTeam(dash, req, reply, 'keys.manage')
      if (!who) return reply
      const key = await dash.ownedKey(who.team.id, (req.params as { id: string }).id)
      if (!key) return dash.notFound(req, reply)
      if (!(await checkPost(dash, req, reply, who.session.csrfToken))) return reply
      if (key.revokedAt !== null)
        return renderKey(dash, req, reply, {
          key,
          planName: who.team.plan,
          status: 409,
          flash: { kind: 'error', message: 'This key is revoked and can no longer be changed.' },
        })
      try {
        const result = await run(key, req.body, req, reply, who.team.plan)
        if (typeof result !== 'string') return result
        logger.info({ accountId: who.account.id, keyId: key.id, action }, 'dashboard key changed')
        return reply.redirect(`/keys/${key.id}?done=${result}`, 303)
      } catch (err) {
        if (!isChaingateError(err) || (err.code !== 'VALIDATION' && err.code !== 'CONFLICT')) throw err
        const fresh = (await dash.keys.get(key.id)) ?? key
        return renderKey(dash, req, reply, {
          key: fresh,
          planName: who.team.plan,
          status: 400,
          flash: { kind: 'error', message: `${capitalize(err.message)}.` },
        })
      }
    })

  keyAction('rename', async (key, body, req) => {
    await dash.keys.rename(key.id, field(body, 'name'))
    noteChange(req, { summary: `key renamed to ${JSON.stringify(field(body, 'name'))}` })
    return 'renamed'
  })

  keyAction('networks', async (key, body, req) => {
    const network = field(body, 'network')
    if (!dash.networkNames.includes(network)) throw validation('Unknown network')
    await dash.keys.setNetwork(key.id, network, field(body, 'enabled') === 'true')
    noteChange(req, { summary: `key network ${network} ${field(body, 'enabled') === 'true' ? 'enabled' : 'disabled'}` })
    return field(body, 'enabled') === 'true' ? 'network-enabled' : 'network-disabled'
  })

  keyAction('revoke', async (key, body) => {
    if (field(body, 'confirm') !== 'yes') throw validation('Tick the confirmation box to revoke the key')
    await dash.keys.revoke(key.id, clock.now())
    return 'revoked'
  })

  keyAction('secret', async (key, _body, req, reply, planName) => {
    const secret = await rotateKeySecret(db, key.id, clock.now())
    logger.info({ keyId: key.id }, 'dashboard key secret rotated')
    return renderKey(dash, req, reply, {
      key,
      planName,
      flash: { kind: 'ok', message: 'New secret created.' },
      newSecret: secret,
    })
  })

  keyAction('security', async (key, body) => {
    const flags = {
      requireSecret: field(body, 'requireSecret') === 'on',
      secretOverridesAllowlists: field(body, 'secretOverridesAllowlists') === 'on',
      requireJwt: field(body, 'requireJwt') === 'on',
    }
    await setSecurityFlags(db, key.id, flags, clock.now())
    return 'security-saved'
  })

  keyAction('allowlists', async (key, body) => {
    const type = allowlistType(field(body, 'type'))
    const entries = field(body, 'entries')
      .split(/[\s,]+/)
      .filter((e) => e !== '')
    if (entries.length === 0) throw validation('Enter at least one entry')
    await addAllowlistEntriesTo(db, key.id, type, entries, clock.now())
    return 'allowlist-added'
  })

  keyAction('allowlists/remove', async (key, body) => {
    await removeAllowlistEntry(db, key.id, allowlistType(field(body, 'type')), field(body, 'entry'), clock.now())
    return 'allowlist-removed'
  })

  keyAction('jwt', async (key, body) => {
    await addJwtKey(
      db,
      key.id,
      { name: field(body, 'name'), alg: field(body, 'alg'), publicKeyPem: field(body, 'publicKeyPem') },
      clock.now(),
    )
    return 'jwt-added'
  })

  keyAction('jwt/remove', async (key, body) => {
    await removeJwtKey(db, key.id, field(body, 'jwtKeyId'), clock.now())
    return 'jwt-removed'
  })

  keyAction('limits', async (key, body, req) => {
    const parse = (name: string) => {
      const raw = field(body, name).trim()
      if (raw === '') return 0
      if (!/^\d{1,15}$/.test(raw)) throw validation('Limits are whole numbers of credits (0 for the plan default)')
      return Number(raw)
    }
    const limits = { creditsPerSecond: parse('creditsPerSecond'), creditsPerDay: parse('creditsPerDay') }
    await dash.keys.setLimits(key.id, limits)
    noteChange(req, {
      summary: `key limits: ${limits.creditsPerSecond} credits/s, ${limits.creditsPerDay} credits/day`,
    })
    return 'limits-saved'
  })
}
