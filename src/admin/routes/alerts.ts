/**
 * An account's usage alerts (docs/alerts.md): its settings (never the secret, except once in the answer that made
 * it), and the alerts that fired with their delivery log. The same domain code as `chaingate alerts` and the
 * dashboard's account page (src/alerts).
 */
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { createAlertLog, type AlertRecord } from '../../alerts/log.ts'
import { createAlertSettingsRepository, webhookChangeSummary } from '../../alerts/settings.ts'
import type { Admin } from '../context.ts'
import { routeSchema } from '../route-schema.ts'
import { IdParams } from '../schemas.ts'

const Settings = z.object({
  accountId: z.string(),
  creditThresholds: z.array(z.number()).describe('percentages of the daily credit balance'),
  refusalsPerMinute: z.number().nullable().describe('refused calls (402/429) a minute; null: none'),
  webhookUrl: z.string().nullable(),
  updatedAt: z.number(),
})
const SetAlerts = z.object({
  creditThresholds: z.array(z.number().int()).max(10).optional().describe('e.g. [80, 100]; [] for none'),
  refusalsPerMinute: z.number().int().nullable().optional(),
  webhookUrl: z.string().max(2048).nullable().optional().describe('http(s) only; null: none (dashboard only)'),
  rotateSecret: z.boolean().optional().describe('a new signing secret, returned once'),
})
const Attempt = z.object({
  attempt: z.number(),
  at: z.number(),
  status: z.number().nullable(),
  error: z.string().nullable(),
  durationMs: z.number(),
})
const Alert = z.object({
  id: z.string(),
  kind: z.enum(['credits', 'refusals']),
  threshold: z.number(),
  day: z.number().describe('days since 1970-01-01 (UTC)'),
  createdAt: z.number(),
  status: z.enum(['pending', 'delivered', 'failed', 'none']),
  attempts: z.number(),
  nextAttemptAt: z.number().nullable(),
  lastStatus: z.number().nullable(),
  lastError: z.string().nullable(),
  deliveredAt: z.number().nullable(),
  payload: z.record(z.string(), z.unknown()).describe('the webhook body (docs/alerts.md, "Payload")'),
})

const alertJson = ({ accountId: _, payload, ...a }: AlertRecord) => ({
  ...a,
  payload: JSON.parse(payload) as Record<string, unknown>,
})

export function registerAlertRoutes(app: FastifyInstance, admin: Admin): void {
  const settings = () => createAlertSettingsRepository(admin.deps.db, admin.deps.config.alerts)
  const log = () => createAlertLog(admin.deps.db)

  app.get<{ Params: z.infer<typeof IdParams> }>(
    '/accounts/:id/alerts',
    {
      schema: routeSchema({
        tag: 'alerts',
        summary: "an account's usage alert settings (null: none)",
        params: IdParams,
        response: z.object({ settings: Settings.nullable() }),
      }),
    },
    async (req) => {
      const account = await admin.account(req.params.id, req)
      return { settings: (await settings().get(account.id)) ?? null }
    },
  )

  app.put<{ Params: z.infer<typeof IdParams>; Body: z.infer<typeof SetAlerts> }>(
    '/accounts/:id/alerts',
    {
      schema: routeSchema({
        tag: 'alerts',
        summary: "set an account's usage alerts; `secret` is in the answer only when one was made",
        params: IdParams,
        body: SetAlerts,
        response: z.object({ settings: Settings, secret: z.string().optional() }),
      }),
    },
    async (req) => {
      const account = await admin.account(req.params.id, req)
      const repo = settings()
      admin.note(req, { target: account.id })
      // A webhook change names both URLs (masked: src/alerts/settings.ts), also when the new one is refused.
      if (req.body.webhookUrl !== undefined) {
        const change = webhookChangeSummary((await repo.get(account.id))?.webhookUrl, req.body.webhookUrl)
        if (change) admin.note(req, { summary: `set an account's usage alerts; ${change}` })
      }
      return repo.set(account.id, req.body, admin.deps.clock.now())
    },
  )

  app.get<{ Params: z.infer<typeof IdParams> }>(
    '/accounts/:id/alerts/deliveries',
    {
      schema: routeSchema({
        tag: 'alerts',
        summary: "an account's alerts that fired, newest first, with every delivery attempt",
        params: IdParams,
        response: z.object({ alerts: z.array(Alert.extend({ attemptLog: z.array(Attempt) })) }),
      }),
    },
    async (req) => {
      const account = await admin.account(req.params.id, req)
      const l = log()
      const recent = await l.recent(account.id, 50)
      return {
        alerts: await Promise.all(recent.map(async (a) => ({ ...alertJson(a), attemptLog: await l.attempts(a.id) }))),
      }
    },
  )
}
