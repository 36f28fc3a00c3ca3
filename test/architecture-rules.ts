/**
 * The declared map of parts and the edges between them that must not exist, checked over the whole runtime import
 * graph of src/ (transitively; `import type` is ignored, it is erased before run time) by test/architecture.test.ts.
 * A part is a list of path prefixes under src/. Change this map and docs/architecture.md together.
 */
export interface Part {
  /**
   * Path prefixes under src/: a folder ends with `/`; a folder ending with `/*` holds only the files directly in it
   * (not its sub-folders).
   */
  paths: string[]
}

/** The bottom layer: what every part may use, and which imports nothing of the rest. */
const BASE = ['methods/', 'errors/', 'shared/', 'jsonrpc/']
/** Everything else but config: the program. */
const DOMAIN = [
  'accounts/',
  'admin/',
  'alerts/',
  'app/',
  'audit/',
  'cli/',
  'credits/',
  'dashboard/',
  'db/',
  'gateway/',
  'keys/',
  'mail/',
  'networks/',
  'observability/',
  'redis/',
  'upstreams/',
  'usage/',
  'wallet/',
]

export const PARTS = {
  /**
   * The method catalog and the per-method files (src/methods), the error registry, the JSON-RPC envelope and
   * small shared helpers (the RPC paths, constant-time compare): facts about the protocol, importing nothing of
   * the program, so config and every part may read them.
   */
  base: { paths: BASE },
  config: { paths: ['config/'] },
  domain: { paths: DOMAIN },
  /** Framework- and transport-free: the request pipeline and everything it runs on. */
  core: {
    paths: ['gateway/pipeline/', 'gateway/layers/', 'credits/', 'usage/', 'keys/', 'networks/', 'upstreams/'],
  },
  /** The wallet's engine: its listener (src/wallet/listener), console and client are transports around it. */
  walletEngine: { paths: ['wallet/*', 'wallet/handlers/', 'wallet/methods/', 'wallet/describe/'] },
  /** The nodes side: the pools, subscriptions and devnets, and the networks they serve. */
  upstreams: { paths: ['upstreams/', 'networks/'] },
  /** Who holds accounts, keys, credits and usage. */
  tenancy: { paths: ['accounts/', 'keys/', 'credits/', 'usage/'] },
  gateway: { paths: ['gateway/'] },
  /** The listeners: the only code (with the dashboard) that sees HTTP types. */
  http: { paths: ['gateway/http/', 'wallet/listener/'] },
  dashboard: { paths: ['dashboard/'] },
  /** Logs and metrics: every part reports to them, so they know none of the parts that report. */
  observability: { paths: ['observability/'] },
  /** The Redis connection: infrastructure that knows no domain (the stores on it live with their domain). */
  redis: { paths: ['redis/'] },
} satisfies Record<string, Part>

export type PartName = keyof typeof PARTS

/** Packages that count as a part too. */
export const PACKAGES: Record<string, RegExp> = {
  fastify: /^(fastify|@fastify\/.+)$/,
}

export interface Rule {
  from: PartName
  /** Parts (or package groups) nothing in `from` may reach at run time. */
  never: (PartName | keyof typeof PACKAGES)[]
  why: string
}

export const RULES: Rule[] = [
  {
    from: 'base',
    never: ['config', 'domain', 'fastify'],
    why: 'the method catalog, errors and the JSON-RPC envelope are facts every part reads; they read no part',
  },
  { from: 'config', never: ['domain'], why: 'configuration is read first and must not drag the program in with it' },
  {
    from: 'core',
    never: ['http', 'dashboard', 'fastify'],
    why: 'the core is framework- and transport-free; src/gateway/http maps its outcomes to the wire',
  },
  {
    from: 'walletEngine',
    never: ['http', 'fastify'],
    why: 'the wallet engine knows no transport; its listener lives in src/wallet/listener',
  },
  {
    from: 'upstreams',
    never: ['gateway', 'tenancy'],
    why: 'nodes know nothing of keys, accounts or credits, so a pool can serve any caller',
  },
  {
    from: 'observability',
    never: ['gateway', 'upstreams', 'tenancy'],
    why: 'logs and metrics are fed by the parts; they never call back into them',
  },
  {
    from: 'redis',
    never: ['gateway', 'tenancy', 'http', 'dashboard', 'fastify'],
    why: 'the Redis connection is shared infrastructure; the stores built on it live in their own domain',
  },
]
