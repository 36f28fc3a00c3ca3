/**
 * The one configuration schema: types, defaults and validation. docs/config.md documents every key here;
 * change both together.
 */
import { z } from 'zod'
import { DEFAULT_METHOD_COSTS, DEFAULT_EVENT_COSTS, DEV_METHOD_COSTS, SOLANA_METHOD_COSTS } from '../methods/prices.ts'
import { WalletConfigSchema } from './wallet-schema.ts'
import { DashboardConfigSchema } from './dashboard-schema.ts'
import { AdminConfigSchema } from './admin-schema.ts'
import { GatewayConfigSchema } from './gateway-schema.ts'
import { AlertsConfigSchema } from './alerts-schema.ts'
import { MailConfigSchema } from './mail-schema.ts'
import { NetworkSchema } from './network-schema.ts'
import { CacheConfigSchema } from './cache-schema.ts'
import { RequestsConfigSchema } from './requests-schema.ts'
import { LogConfigSchema, TracingConfigSchema } from './observability-schema.ts'
import { defaultHostname } from '../shared/rpc-paths.ts'

const PlanSchema = z
  .object({
    creditsPerDay: z.number().int().positive(),
    creditsPerSecond: z.number().int().positive(),
    /** null: unlimited. */
    maxKeys: z.number().int().positive().nullable(),
    /** WebSocket connections one key may hold open (per process); none: gateway.maxWsConnectionsPerKey. */
    maxWsConnectionsPerKey: z.number().int().min(1).max(1_000_000).optional(),
    /** Subscriptions one key may hold across its connections (per process); none: gateway.maxSubscriptionsPerKey. */
    maxSubscriptionsPerKey: z.number().int().min(1).max(10_000_000).optional(),
  })
  .strict()

const CostTable = z.record(z.string().min(1), z.number().int().min(0))

export const DEFAULT_NETWORKS = [
  { name: 'devnet-a', chainId: 31337, embedded: { blockTimeSeconds: 0, port: 0 } },
  { name: 'devnet-b', chainId: 31338, embedded: { blockTimeSeconds: 0, port: 0 } },
  // A local Solana cluster (LiteSVM behind chaingate's JSON-RPC front): its id comes from its genesis hash.
  { name: 'solana-devnet', family: 'solana' as const, embedded: { port: 0 } },
]

export const DEFAULT_PLANS = {
  // Infura's plans (https://docs.metamask.io/services/get-started/pricing/).
  free: { creditsPerDay: 3_000_000, creditsPerSecond: 500, maxKeys: 1 },
  developer: { creditsPerDay: 15_000_000, creditsPerSecond: 4_000, maxKeys: 5 },
  team: { creditsPerDay: 75_000_000, creditsPerSecond: 40_000, maxKeys: null },
  // For the key `npm start` prints: generous enough for local benchmarks.
  dev: { creditsPerDay: 1_000_000_000_000, creditsPerSecond: 100_000_000, maxKeys: null },
}

export const ConfigSchema = z
  .object({
    /** Folder for the SQLite database, chain state and the wallet keystore. */
    dataDir: z.string().min(1).default('./.chaingate'),
    gateway: GatewayConfigSchema.prefault({}),
    networks: z.array(NetworkSchema).min(1).prefault(DEFAULT_NETWORKS),
    /** Answers kept in process and calls shared while in flight (docs/caching.md). */
    cache: CacheConfigSchema.prefault({}),
    /** Merged over the default plans (free, developer, team, dev): name a plan to change or add it. */
    plans: z
      .record(z.string().min(1), PlanSchema)
      .default({})
      .transform((p) => ({ ...DEFAULT_PLANS, ...p })),
    credits: z
      .object({
        /** Cost of a method listed nowhere else (Infura: 80). */
        defaultCost: z.number().int().min(0).default(80),
        /**
         * Per-method costs for every network, merged over the default (Infura) tables: the EVM's and Solana's (method
         * names never repeat across families).
         */
        methods: CostTable.default({}).transform((m) => ({
          ...DEFAULT_METHOD_COSTS,
          ...DEV_METHOD_COSTS,
          ...SOLANA_METHOD_COSTS,
          ...m,
        })),
        /** Per-network overrides: network name → method → credits. */
        networks: z.record(z.string(), CostTable).default({}),
        /** Cost of each delivered subscription event, by subscription kind. */
        events: CostTable.default({}).transform((e) => ({ ...DEFAULT_EVENT_COSTS, ...e })),
        /** Charge for the batch envelope itself, on top of its calls (Infura leaves it undocumented). */
        batchEnvelope: z.number().int().min(0).default(0),
        /** Charge for a request refused for bad input (HTTP 4xx other than 402/429). */
        inputError: z.number().int().min(0).default(5),
      })
      .strict()
      .prefault({}),
    log: LogConfigSchema.prefault({}),
    /** OpenTelemetry traces (docs/deploy.md, "Traces"); the standard OTEL_* variables override it. */
    tracing: TracingConfigSchema.prefault({}),
    /** The request explorer's per-call records and their retention (docs/requests.md). */
    requests: RequestsConfigSchema.prefault({}),
    /**
     * Where accounts, keys, sessions and the usage ledger live (docs/storage.md): `<dataDir>/chaingate.sqlite` by
     * default, or PostgreSQL with `url`.
     */
    database: z
      .object({
        /**
         * postgres:// or postgresql:// URL; default from the environment variable CHAINGATE_DATABASE_URL; null: SQLite.
         */
        url: z
          .string()
          .regex(
            /^postgres(ql)?:\/\//,
            'a postgres:// or postgresql:// URL (from the config or CHAINGATE_DATABASE_URL)',
          )
          .nullable()
          // prefault: a value from the environment is validated like one from the file.
          .prefault(() => process.env.CHAINGATE_DATABASE_URL || null),
        /** PostgreSQL: connections in this process's pool. */
        poolSize: z.number().int().min(1).max(200).default(10),
        /**
         * Usage rows (hour × key × network × method) held in memory while the database cannot be written; usage
         * for rows beyond this is dropped and counted (docs/storage.md).
         */
        usageBufferRows: z.number().int().min(100).max(10_000_000).default(100_000),
      })
      .strict()
      .prefault({}),
    /**
     * Shared hot state for several replicas or workers (docs/scale-out.md): daily balances, credits/s buckets and
     * login limits in Redis. null (the default, unless CHAINGATE_REDIS_URL is set): in-process counters.
     */
    redis: z
      .object({
        /** redis:// or rediss:// URL; default from the environment variable CHAINGATE_REDIS_URL. */
        url: z
          .string()
          .regex(/^rediss?:\/\//, 'a redis:// or rediss:// URL (from the config or CHAINGATE_REDIS_URL)')
          .nullable()
          // prefault: a value from the environment is validated like one from the file.
          .prefault(() => process.env.CHAINGATE_REDIS_URL || null),
        /** Prefix of every key chaingate writes, so several deployments can share one Redis. */
        keyPrefix: z.string().min(1).max(64).default('chaingate:'),
        /** Credits a replica takes from Redis at once and then spends locally; 0: one Redis round trip per call. */
        leaseCredits: z.number().int().min(0).max(1_000_000).default(1000),
        /** How often a replica hands back what it leased and did not use (idle keys), and reads the shared totals. */
        leaseSyncMs: z.number().int().min(50).max(60_000).default(1000),
        /** Redis unreachable: each replica serves at most this share of every limit on its own (docs/scale-out.md). */
        insuranceShare: z.number().gt(0).max(1).default(0.5),
        /** A Redis command not answered within this counts as Redis being down. */
        commandTimeoutMs: z.number().int().min(20).max(60_000).default(500),
      })
      .strict()
      .prefault({}),
    wallet: WalletConfigSchema.prefault({}),
    dashboard: DashboardConfigSchema.prefault({}),
    admin: AdminConfigSchema.prefault({}),
    /** Usage alerts: thresholds checked per account, webhooks signed and retried (docs/alerts.md). */
    alerts: AlertsConfigSchema.prefault({}),
    /** Outgoing mail of the dashboard: SMTP, or files in `<dataDir>/mail/` (docs/config.md). */
    mail: MailConfigSchema.prefault({}),
  })
  .strict()

/**
 * Rules across fields: duplicate names, chain ids and hosts; plan names; embedded vs upstreams. They read the raw
 * input defensively so they are reported together with field errors (zod skips refinements once a field fails).
 */
export function crossFieldProblems(raw: unknown): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = []
  const obj = (v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
  const root = obj(raw) ?? {}
  const networks = Array.isArray(root.networks) ? root.networks : DEFAULT_NETWORKS
  const names = new Set<unknown>()
  const chainIds = new Set<unknown>()
  const hosts = new Set<unknown>()
  networks.forEach((entry, i) => {
    const n = obj(entry)
    if (!n) return
    if (n.name !== undefined && names.has(n.name))
      out.push({ path: ['networks', i, 'name'], message: `duplicate network ${String(n.name)}` })
    names.add(n.name)
    const solana = n.family === 'solana'
    if (!solana && n.chainId === undefined)
      out.push({ path: ['networks', i, 'chainId'], message: 'an EVM network needs its chainId' })
    if (solana && n.chainId !== undefined)
      out.push({
        path: ['networks', i, 'chainId'],
        message: 'a Solana network has no chainId (its id is the genesis hash: `chain`, or taken from the nodes)',
      })
    if (!solana && n.chain !== undefined)
      out.push({ path: ['networks', i, 'chain'], message: 'only a Solana network names its `chain`' })
    const embedded = obj(n.embedded)
    if (embedded && !solana && (embedded.slotMs !== undefined || embedded.engine !== undefined))
      out.push({ path: ['networks', i, 'embedded'], message: '`slotMs` and `engine` are for Solana devnets' })
    if (embedded && solana && embedded.blockTimeSeconds !== undefined)
      out.push({
        path: ['networks', i, 'embedded'],
        message: 'a Solana devnet makes slots: `slotMs`, not blockTimeSeconds',
      })
    const chainKey = solana ? n.chain : n.chainId
    if (chainKey !== undefined && chainIds.has(chainKey))
      out.push({
        path: ['networks', i, solana ? 'chain' : 'chainId'],
        message: `duplicate ${solana ? 'chain' : 'chainId'} ${String(chainKey)}`,
      })
    chainIds.add(chainKey)
    const hs = Array.isArray(n.hosts) ? n.hosts : [defaultHostname(String(n.name))]
    for (const h of hs) {
      const key = typeof h === 'string' ? h.toLowerCase() : h
      if (hosts.has(key)) out.push({ path: ['networks', i, 'hosts'], message: `duplicate host ${String(h)}` })
      hosts.add(key)
    }
    if ((n.embedded === undefined) === (n.upstreams === undefined))
      out.push({ path: ['networks', i], message: 'a network needs exactly one of `embedded` or `upstreams`' })
  })
  const credits = obj(root.credits)
  for (const net of Object.keys(obj(credits?.networks) ?? {}))
    if (!names.has(net)) out.push({ path: ['credits', 'networks', net], message: `unknown network ${net}` })
  const plans = new Set([...Object.keys(DEFAULT_PLANS), ...Object.keys(obj(root.plans) ?? {})])
  const gateway = obj(root.gateway) ?? {}
  if (typeof gateway.defaultPlan === 'string' && !plans.has(gateway.defaultPlan))
    out.push({ path: ['gateway', 'defaultPlan'], message: 'not a plan in `plans`' })
  const dev = obj(gateway.devAccount)
  if (dev && typeof dev.plan === 'string' && !plans.has(dev.plan))
    out.push({ path: ['gateway', 'devAccount', 'plan'], message: 'not a plan in `plans`' })
  return out
}

export type Config = z.infer<typeof ConfigSchema>
export type NetworkConfig = Config['networks'][number]
export type PlanConfig = z.infer<typeof PlanSchema>
