/**
 * API keys: create, list (by account), get, revoke, limits, networks, name, allowlists and the key secret
 * (src/keys/repository.ts, src/keys/security/repository.ts). A key is named by its id in paths, never by the key
 * itself (paths are audited and may be logged by proxies); answers carry the key, as `chaingate key show --json`.
 */
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { errors } from '../../errors/index.ts'
import { getKeySecurity, replaceAllowlists, rotateKeySecret } from '../../keys/security/repository.ts'
import type { KeySecurity } from '../../keys/security/types.ts'
import { keyView } from '../../keys/view.ts'
import type { Admin } from '../context.ts'
import { routeSchema } from '../route-schema.ts'
import {
  CreateKey,
  IdParams,
  Key,
  KeyListQuery,
  RotatedSecret,
  Security,
  SetAllowlists,
  SetLimits,
  SetName,
  SetNetworks,
} from '../schemas.ts'

const tag = 'keys'
type Id = { Params: z.infer<typeof IdParams> }

const securityView = (s: KeySecurity): z.infer<typeof Security> => ({
  hasSecret: s.secretHash !== null,
  requireSecret: s.requireSecret,
  secretOverridesAllowlists: s.secretOverridesAllowlists,
  requireJwt: s.requireJwt,
  allowlists: s.allowlists,
})

export function registerKeyRoutes(app: FastifyInstance, admin: Admin): void {
  const { keys, clock, config, db } = admin.deps
  const view = (k: Parameters<typeof keyView>[0]) => keyView(k, config)
  const doc = (summary: string, body?: z.ZodType) => ({
    schema: routeSchema({ tag, summary, params: IdParams, ...(body ? { body } : {}), response: Key }),
  })

  app.post<{ Body: z.infer<typeof CreateKey> }>(
    '/keys',
    { schema: routeSchema({ tag, summary: 'create a key', body: CreateKey, response: Key, status: 201 }) },
    async (req, reply) => {
      const account = await admin.account(req.body.account, req)
      const k = await keys.create(
        {
          accountId: account.id,
          name: req.body.name ?? 'key',
          ...(req.body.networks ? { networks: req.body.networks } : {}),
        },
        clock.now(),
      )
      admin.note(req, { target: k.id, summary: `created key for account ${account.id}` })
      return reply.code(201).send(view(k))
    },
  )
  app.get<{ Querystring: z.infer<typeof KeyListQuery> }>(
    '/keys',
    {
      schema: routeSchema({
        tag,
        summary: 'list keys',
        query: KeyListQuery,
        response: z.object({ keys: z.array(Key) }),
      }),
    },
    async (req) => {
      const account = req.query.account ? await admin.account(req.query.account, req) : undefined
      const list = await keys.list({
        ...(account ? { accountId: account.id } : {}),
        includeRevoked: req.query.all === true,
      })
      return { keys: list.map(view) }
    },
  )
  app.get<Id>('/keys/:id', doc('one key'), async (req) => view(await admin.key(req.params.id)))
  app.post<Id>('/keys/:id/revoke', doc('revoke a key'), async (req) => {
    const k = await admin.key(req.params.id)
    if (k.revokedAt !== null) throw errors.conflict(`key ${k.id} is already revoked`)
    return view(await keys.revoke(k.id, clock.now()))
  })
  app.put<Id & { Body: z.infer<typeof SetLimits> }>(
    '/keys/:id/limits',
    doc("set the key's own limits", SetLimits),
    async (req) => {
      const k = await admin.key(req.params.id)
      admin.note(req, { summary: `limits ${JSON.stringify(req.body)}` })
      return view(await keys.setLimits(k.id, req.body))
    },
  )
  app.put<Id & { Body: z.infer<typeof SetNetworks> }>(
    '/keys/:id/networks',
    doc('set the networks enabled on the key', SetNetworks),
    async (req) => {
      const k = await admin.key(req.params.id)
      admin.note(req, { summary: `networks ${req.body.networks.join(',') || '(none)'}` })
      return view(await keys.setNetworks(k.id, req.body.networks))
    },
  )
  app.put<Id & { Body: z.infer<typeof SetName> }>('/keys/:id/name', doc('rename the key', SetName), async (req) => {
    const k = await admin.key(req.params.id)
    return view(await keys.rename(k.id, req.body.name))
  })
  app.get<Id>(
    '/keys/:id/security',
    { schema: routeSchema({ tag, summary: "the key's security settings", params: IdParams, response: Security }) },
    async (req) => securityView(await getKeySecurity(db, (await admin.key(req.params.id)).id)),
  )
  app.put<Id & { Body: z.infer<typeof SetAllowlists> }>(
    '/keys/:id/allowlists',
    {
      schema: routeSchema({
        tag,
        summary: 'replace allowlists (the types given)',
        params: IdParams,
        body: SetAllowlists,
        response: Security,
      }),
    },
    async (req) => {
      const k = await admin.key(req.params.id)
      admin.note(req, { summary: `allowlists ${Object.keys(req.body).join(',') || '(none)'} replaced` })
      return securityView(await replaceAllowlists(db, k.id, req.body, clock.now()))
    },
  )
  app.post<Id>(
    '/keys/:id/secret',
    {
      schema: routeSchema({
        tag,
        summary: 'create or rotate the key secret (shown once)',
        params: IdParams,
        response: RotatedSecret,
      }),
    },
    async (req) => {
      const k = await admin.key(req.params.id)
      if (k.revokedAt !== null) throw errors.conflict(`key ${k.id} is revoked`)
      return { id: k.id, secret: await rotateKeySecret(db, k.id, clock.now()) }
    },
  )
}
