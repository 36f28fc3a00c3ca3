/**
 * The declared map of parts and the edges between them that must not exist, checked over the whole runtime import
 * graph of src/ (transitively; `import type` is ignored, it is erased before run time) by test/architecture.test.ts.
 * A part is a list of path prefixes under src/. Change this map and docs/architecture.md together.
 */
export interface Part {
  /** Path prefixes under src/ (a folder ends with `/`). */
  paths: string[]
  /** Files inside those paths that do not belong to the part. */
  except?: string[]
}

export const PARTS = {
  /** Framework- and transport-free: the request pipeline and everything it runs on. */
  core: {
    paths: [
      'gateway/pipeline/',
      'gateway/layers/',
      'credits/',
      'usage/',
      'keys/',
      'jsonrpc/',
      'methods/',
      'networks/',
      'upstreams/',
    ],
  },
  /** The wallet's engine (its listener is src/wallet/listener, mounted by src/app/compose.ts). */
  walletEngine: { paths: ['wallet/'], except: ['wallet/listener/', 'wallet/console/', 'wallet/client/'] },
  upstreams: { paths: ['upstreams/'] },
  /** Who holds accounts, keys, credits and usage. */
  tenancy: { paths: ['accounts/', 'keys/', 'credits/', 'usage/'] },
  gateway: { paths: ['gateway/'] },
  /** The listeners: the only code (with the dashboard) that sees HTTP types. */
  http: { paths: ['gateway/http/', 'wallet/listener/'] },
  dashboard: { paths: ['dashboard/'] },
  config: { paths: ['config/'] },
  /** The Redis connection: infrastructure that knows no domain (the stores on it live with their domain). */
  redis: { paths: ['redis/'] },
  /** Everything in src/ except config and the leaves config may read (constants that import nothing). */
  domain: { paths: [''], except: ['config/', 'methods/prices.ts', 'networks/rpc-paths.ts'] },
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
  { from: 'config', never: ['domain'], why: 'configuration is read first and must not drag the program in with it' },
  {
    from: 'redis',
    never: ['gateway', 'tenancy', 'http', 'dashboard', 'fastify'],
    why: 'the Redis connection is shared infrastructure; the stores built on it live in their own domain',
  },
]
