/**
 * The one configuration schema: types, defaults and validation. docs/config.md documents every key here;
 * change both together.
 */
import { z } from 'zod'
import { DEFAULT_METHOD_COSTS, DEFAULT_EVENT_COSTS, DEV_METHOD_COSTS, SOLANA_METHOD_COSTS } from '../methods/prices.ts'
import { WalletConfigSchema } from './wallet-schema.ts'
import { DashboardConfigSchema } from './dashboard-schema.ts'
import { AdminConfigSchema } from './admin-schema.ts'
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
    gateway: z
      .object({
        host: z.string().min(1).default('127.0.0.1'),
        port: z.number().int().min(0).max(65535).default(8545),
        /**
         * Behind a TLS-terminating proxy: fastify's `trustProxy` (true, or the proxies' addresses/CIDRs), so the
         * client IP, protocol and host come from X-Forwarded-For/-Proto/-Host (docs/config.md).
         */
        trustProxy: z.union([z.boolean(), z.string().min(1), z.array(z.string().min(1)).min(1)]).default(false),
        /**
         * Host names the dashboard answers to (`name`, `*.domain`, `*`); null: on a loopback listener only local
         * names and the networks' hosts, elsewhere any (docs/dashboard.md, DNS rebinding).
         */
        allowedHosts: z
          .array(
            z
              .string()
              .toLowerCase()
              .regex(/^(\*|(\*\.)?[a-z0-9.:[\]-]+)$/, 'a host name, *.domain or *'),
          )
          .nullable()
          .default(null),
        /** Largest accepted request body; larger answers 413. */
        maxBodyBytes: z
          .number()
          .int()
          .min(1024)
          .default(5 * 1024 * 1024),
        /** Heap growth before a full GC (src/app/heap-growth.ts); 0: V8's own; null: 20 with --workers, else 0. */
        heapGrowingPercent: z.number().int().min(0).max(300).nullable().default(null),
        /** Most calls in one batch; more answers one -32600 error. */
        maxBatchSize: z.number().int().min(1).default(1000),
        /** HTTP answers at least this large are gzipped for clients that accept it (ethers does); null: never. */
        gzipMinBytes: z.number().int().min(0).nullable().default(4096),
        /** Time allowed for an upstream node to answer. */
        upstreamTimeoutMs: z.number().int().min(100).default(30_000),
        /**
         * HTTP calls one process works on at once; more answer 503 OVERLOADED at once (docs/errors.md). 1024 holds
         * ~60 ms of one core's work at ~60 µs a call, and 5,000 calls/s to nodes answering in 200 ms.
         */
        maxInFlight: z.number().int().min(1).max(1_000_000).default(1024),
        /** Largest WebSocket message accepted from a client. */
        maxWsMessageBytes: z
          .number()
          .int()
          .min(1024)
          .default(1024 * 1024),
        /** How often the usage ledger is written to the database. */
        usageFlushMs: z.number().int().min(50).max(60_000).default(1000),
        /** How often the server looks for account/key changes made by the CLI or dashboard. */
        settingsPollMs: z.number().int().min(50).max(60_000).default(500),
        /**
         * With `redis.url`, changes are pushed to every replica at once (Redis pub/sub); the poll stays as a
         * safety net at this slower interval instead of settingsPollMs.
         */
        settingsPushPollMs: z.number().int().min(50).max(600_000).default(5000),
        /**
         * SIGTERM: /healthz answers 503 `draining` this long while calls are still served, so a load balancer
         * stops sending new ones, before the listener closes (docs/deploy.md). 0: close at once.
         */
        drainDelayMs: z.number().int().min(0).max(120_000).default(0),
        /** SIGTERM: longest wait for in-flight calls after the listener closed; then the process exits anyway. */
        drainTimeoutMs: z.number().int().min(100).max(600_000).default(15_000),
        /** Slow clients: a whole request (headers and body) must arrive within this (docs/config.md). */
        requestTimeoutMs: z.number().int().min(500).max(3_600_000).default(30_000),
        /** Slow clients: the request headers must arrive within this; at most requestTimeoutMs. */
        headersTimeoutMs: z.number().int().min(500).max(3_600_000).default(10_000),
        /** An idle keep-alive connection is closed after this. */
        keepAliveTimeoutMs: z.number().int().min(100).max(600_000).default(5_000),
        /** WebSocket: bytes waiting for a client that does not read; past this the connection closes with 1008. */
        maxWsBufferedBytes: z
          .number()
          .int()
          .min(16 * 1024)
          .default(16 * 1024 * 1024),
        /** WebSocket: subscriptions one connection may hold; more answer -32005. */
        maxSubscriptionsPerConnection: z.number().int().min(1).max(100_000).default(1000),
        /**
         * WebSocket, per process: connections one key may hold open (a plan's maxWsConnectionsPerKey wins); more are
         * refused at the upgrade with 429.
         */
        maxWsConnectionsPerKey: z.number().int().min(1).max(1_000_000).default(1000),
        /** WebSocket, per process: connections open from one client address, any key; more get 429 at the upgrade. */
        maxWsConnectionsPerAddress: z.number().int().min(1).max(1_000_000).default(100),
        /**
         * WebSocket, per process: subscriptions one key may hold across its connections (a plan's
         * maxSubscriptionsPerKey wins); more answer -32005.
         */
        maxSubscriptionsPerKey: z.number().int().min(1).max(10_000_000).default(5000),
        /**
         * WebSocket, per process: distinct node subscriptions (kind and filter) one network may hold; a subscription
         * with a new filter beyond it answers -32005 (one already held is shared as before).
         */
        maxUpstreamSubscriptionsPerNetwork: z.number().int().min(1).max(10_000_000).default(10_000),
        /**
         * WebSocket: after a node's subscription connection drops, how long to look for a node before clients get 1013.
         */
        subscriptionFailoverMs: z.number().int().min(0).max(600_000).default(30_000),
        /**
         * WebSocket: how often the node carrying subscriptions is checked; one that stops answering is left. 0: never.
         */
        subscriptionHeartbeatMs: z.number().int().min(0).max(600_000).default(15_000),
        /**
         * WebSocket: after a move, the node ranked first must answer this long before subscriptions go back to it. 0:
         * never.
         */
        subscriptionFailbackMs: z.number().int().min(0).max(3_600_000).default(60_000),
        /** /metrics and /healthz (docs/config.md#gateway, `operations`). */
        operations: z
          .object({
            /** When set, both answer 401 without `Authorization: Bearer <token>`. */
            token: z.string().min(16).nullable().default(null),
            /** When set, both are served only on this separate listener (e.g. 127.0.0.1:9545), not the gateway's. */
            listen: z
              .object({ host: z.string().min(1).default('127.0.0.1'), port: z.number().int().min(0).max(65535) })
              .strict()
              .nullable()
              .default(null),
            /**
             * The probes (/livez, /readyz, /startupz) without the token, which then guards /healthz and /metrics:
             * Kubernetes' httpGet probes cannot send a header from a Secret (docs/deploy.md).
             */
            openProbes: z.boolean().default(false),
            /** How long /healthz reuses its probe of the nodes. */
            healthCacheMs: z.number().int().min(0).max(600_000).default(2000),
          })
          .strict()
          .prefault({}),
        /** Plan for accounts created without one. */
        defaultPlan: z.string().default('free'),
        /** Account created by `npm start` for the printed dev key; null disables it. */
        devAccount: z
          .object({ email: z.string().default('dev@localhost'), plan: z.string().default('dev') })
          .nullable()
          .default({ email: 'dev@localhost', plan: 'dev' }),
      })
      .strict()
      .prefault({}),
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
