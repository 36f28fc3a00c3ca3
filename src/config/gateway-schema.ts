/** The config's `gateway` section (docs/config.md#gateway): the listener, its limits, WebSocket and draining. */
import { z } from 'zod'

export const GatewayConfigSchema = z
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
