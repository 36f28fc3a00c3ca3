/**
 * The admin API's inputs and outputs, each written once as a zod schema: fastify validates requests with the JSON
 * Schema made from it (`z.toJSONSchema`), and the OpenAPI document (/admin/v1/openapi.json) is built from the same
 * route schemas by @fastify/swagger. Shapes follow the domain types (src/accounts, src/keys, src/usage).
 */
import { z } from 'zod'

/** JSON Schema (draft-07, what fastify's validator reads; OpenAPI 3.1 accepts it as it is) of a zod schema. */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' })
  return rest
}

const id = z.string().min(1).max(200)
const whole = z.number().int().min(0)

export const IdParams = z.object({ id: id.describe('an account id (or email) / a key id') })

export const Account = z.object({
  id: z.string(),
  email: z.string(),
  plan: z.string(),
  role: z.enum(['user', 'operator']),
  createdAt: z.number().describe('unix milliseconds'),
  disabledAt: z.number().nullable().describe('unix milliseconds; null: enabled'),
  emailConfirmedAt: z
    .number()
    .nullable()
    .describe('unix milliseconds; null: a dashboard sign-up that has not confirmed its email (it cannot create keys)'),
})

export const AccountSessions = z.object({
  sessions: z.array(
    z.object({
      userAgent: z.string().nullable(),
      ip: z.string().nullable(),
      createdAt: z.number().describe('unix milliseconds'),
      lastSeenAt: z.number().describe('unix milliseconds'),
      expiresAt: z.number().describe('unix milliseconds'),
    }),
  ),
})
export const TwoFactorReset = z.object({ reset: z.boolean().describe('false: two-factor log-in was not set up') })
export const AccountUnlock = z.object({
  cleared: z.boolean().describe('false: no failed log-ins were counted for its email'),
  scope: z
    .enum(['redis', 'process'])
    .describe('redis: cleared for every replica; process: only in the process that answered (no redis.url)'),
})

export const CreateAccount = z.object({
  email: z.string().min(3).max(320),
  plan: z.string().min(1).optional().describe("default: the config's gateway.defaultPlan"),
})
export const SetPlan = z.object({ plan: z.string().min(1) })
export const SetRole = z.object({ role: z.enum(['user', 'operator']) })

export const Key = z.object({
  id: z.string(),
  key: z.string().describe('the API key itself, used in /v3/<key>'),
  accountId: z.string(),
  name: z.string(),
  createdAt: z.number(),
  revokedAt: z.number().nullable(),
  networks: z.array(z.string()),
  creditsPerSecond: z.number().nullable().describe("null: the plan's"),
  creditsPerDay: z.number().nullable().describe("null: the plan's"),
  endpoints: z.record(z.string(), z.object({ http: z.string(), ws: z.string(), host: z.string() })),
})

export const CreateKey = z.object({
  account: id.describe('account id or email'),
  name: z.string().min(1).max(100).optional().describe('default: "key"'),
  networks: z.array(z.string()).optional().describe('default: every network'),
})
export const KeyListQuery = z.object({
  account: id.optional().describe('only this account (id or email)'),
  all: z.boolean().optional().describe('include revoked keys'),
})
export const SetLimits = z.object({
  creditsPerSecond: whole.optional().describe("0: the plan's"),
  creditsPerDay: whole.optional().describe("0: the plan's"),
})
export const SetNetworks = z.object({ networks: z.array(z.string()).describe('exactly the networks to enable') })
export const SetName = z.object({ name: z.string().min(1).max(100) })

const list = z.array(z.string()).max(30)
export const SetAllowlists = z.object({
  origins: list.optional(),
  userAgents: list.optional(),
  addresses: list.optional(),
  methods: list.optional(),
})
export const Security = z.object({
  hasSecret: z.boolean(),
  requireSecret: z.boolean(),
  secretOverridesAllowlists: z.boolean(),
  requireJwt: z.boolean(),
  allowlists: z.object({ origins: list, userAgents: list, addresses: list, methods: list }),
})
export const RotatedSecret = z.object({
  id: z.string(),
  secret: z.string().describe('shown once: only its hash is stored'),
})

export const UsageQuery = z.object({
  day: z.string().optional().describe('YYYY-MM-DD (UTC); default today'),
  by: z.enum(['method', 'network', 'key', 'upstream']).optional().describe('default: method'),
  account: id.optional(),
  key: id.optional().describe('a key id'),
})
export const AccountUsageQuery = z.object({
  range: z.enum(['24h', '7d', '30d']).optional().describe('default: 24h'),
  by: z.enum(['method', 'network', 'key']).optional().describe('default: method'),
  key: id.optional().describe('only this key of the account'),
})

export const RequestsQuery = z.object({
  method: z.string().max(200).optional().describe('only this method'),
  status: z
    .string()
    .max(40)
    .optional()
    .describe('ok, a stored status (rpc:-32000, http:429) or a bare code (429, -32000)'),
  errors: z.boolean().optional().describe('only calls whose status is not ok'),
  limit: z.number().int().min(1).max(1000).optional().describe('default 50'),
  offset: z.number().int().min(0).optional().describe('rows skipped (newest first): paging'),
})
export const RequestRecord = z.object({
  at: z.string().describe('ISO 8601, UTC'),
  time: z.number().describe('unix ms'),
  keyId: z.string(),
  accountId: z.string(),
  network: z.string(),
  method: z.string(),
  status: z.string().describe('ok, rpc:<JSON-RPC code>, http:<status>, http:undelivered'),
  latencyMs: z.number(),
  credits: z.number(),
  served: z.string().nullable().describe("cache, dedup or the upstream's label; null: the gateway itself or no node"),
  client: z.string().nullable().describe('the Origin header, else the client IP'),
})

export const AuditQuery = z.object({
  limit: z.number().int().min(1).max(1000).optional().describe('default 100'),
  before: z.number().int().optional().describe('entries older than this (unix ms): the last `at` of a page'),
  target: id.optional().describe('only entries about this account or key id'),
})
export const AuditEntry = z.object({
  id: z.string(),
  at: z.number(),
  actor: z.string(),
  action: z.string(),
  target: z.string().nullable(),
  summary: z.string(),
  status: z.number(),
})

export const ErrorAnswer = z.object({
  error: z.object({
    code: z.string().describe('a code of docs/errors.md'),
    message: z.string(),
    field: z.string().optional().describe('422: the input at fault'),
    processes: z
      .array(z.record(z.string(), z.unknown()))
      .optional()
      .describe('POST /reload refused or unanswered: each process outcome'),
  }),
})

/** Anything JSON (reports whose shape docs/admin-api.md describes). */
export const AnyObject = { type: 'object', additionalProperties: true } as const

/** Teams (docs/admin-api.md, "Teams"). */
export const Team = z.object({
  id: z.string().describe('the team id, also the `accountId` of its keys, usage and alerts'),
  name: z.string(),
  personal: z.boolean().describe("a person's own team (its id is their account id)"),
  plan: z.string(),
  createdAt: z.number().describe('unix milliseconds'),
  members: z.number().int(),
})
export const TeamMember = z.object({
  accountId: z.string(),
  email: z.string(),
  role: z.enum(['owner', 'admin', 'developer', 'viewer']),
  since: z.number().describe('unix milliseconds'),
})
export const MoveKey = z.object({ teamId: id.describe('the team the key moves to') }).strict()
