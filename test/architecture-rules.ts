/**
 * The declared architecture of src/, checked by test/architecture.test.ts over the import graph (test/import-graph.ts):
 * - MAY_IMPORT: what each top-level folder may import directly, every kind of import counted;
 * - PARTS and RULES: parts (lists of path prefixes under src/) and the edges between them that must not exist in the
 *   runtime graph, transitively (`import type` is erased before run time and does not count there);
 * - KNOWN_CYCLES: the import cycles not broken yet (every other cycle fails);
 * - TEST_SUPPORT and TEST_ONLY: the test-only modules no production file imports, and what production keeps for them.
 * Change them and docs/architecture.md ("Boundaries") together.
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
   * The method catalog and the per-method files (src/methods), the error registry, the JSON-RPC envelope and its
   * client over WebSocket, and small shared helpers (the RPC paths, constant-time compare, HTML escaping): facts
   * about the protocol and tools, importing nothing of the program, so config and every part may use them.
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

/** The base's folders: every folder may import them; they import only each other. */
export const BASE_FOLDERS = ['errors', 'jsonrpc', 'methods', 'shared']
/** What an edge of the product (the admin API, the dashboard) may use: the services and the infrastructure. */
const SERVICES = ['accounts', 'alerts', 'audit', 'config', 'credits', 'db', 'keys', 'mail', 'networks', 'redis']
const EDGE_MAY_IMPORT = [...SERVICES, 'upstreams', 'usage']

export interface FolderRule {
  /** Top-level folders of src/ (names, no slash) this one may import, besides itself and the base. */
  may: string[]
  why: string
}

/**
 * What each top-level folder of src/ may import directly, besides itself and the base (errors, jsonrpc, methods,
 * shared). Every import counts: `import type` too (erased before run time, but it still ties the folder's source to
 * the other's and its changes) and a literal `import()` (a lazy load is still a dependency). A folder without a row
 * fails the test. The rows are in layer order: a row names only folders above it (checked), so nothing imports a
 * folder below it; app/ wires everything and only cli/ imports it.
 */
export const MAY_IMPORT: Record<string, FolderRule> = {
  ...Object.fromEntries(
    BASE_FOLDERS.map((f) => [
      f,
      { may: [], why: 'protocol facts and small helpers: they read no part of the program' },
    ]),
  ),
  config: { may: [], why: 'the configuration is read first; it knows the catalog (the base) and nothing else' },
  db: { may: ['config'], why: 'the database connection and migrations know no domain; repositories live in theirs' },
  observability: {
    may: ['config', 'db'],
    why: 'logs and metrics know none of the parts that feed them (db: the private-file helper of the log files)',
  },
  redis: {
    may: ['config', 'db', 'observability'],
    why: 'the Redis connection and the settings push (which reads the settings version in the database)',
  },
  audit: { may: ['config', 'db'], why: 'the admin audit is a table the admin API and the CLI write' },
  accounts: { may: ['config', 'db', 'redis'], why: 'accounts, teams and their logins (the limiter may be in Redis)' },
  mail: { may: ['config', 'db', 'accounts'], why: "the account mails: who to write to is the account's" },
  networks: { may: ['config'], why: 'the network registry is read from the config' },
  credits: { may: ['config', 'redis'], why: 'prices and limits; the shared limits are in Redis' },
  keys: { may: ['config', 'db', 'credits'], why: "the key snapshot carries each key's limits" },
  usage: { may: ['config', 'db'], why: 'the ledger and its readers: tables, no caller' },
  upstreams: {
    may: ['networks', 'observability'],
    why: 'nodes know nothing of keys, accounts, credits or the gateway, so a pool can serve any caller',
  },
  alerts: {
    may: ['config', 'db', 'credits', 'usage'],
    why: 'the threshold sweep reads the limits and the usage; the CLI, dashboard and admin API call the alerts',
  },
  gateway: {
    may: ['config', 'credits', 'keys', 'networks', 'observability', 'redis', 'upstreams', 'usage'],
    why: 'the keyed gateway runs on the services; the edges (admin, dashboard), the wallet and app/ are not its',
  },
  wallet: {
    may: ['config', 'db'],
    why: 'self-contained: it reaches chains through its ChainAccess port, wired by app/ (never the pool or pipeline)',
  },
  admin: { may: EDGE_MAY_IMPORT, why: 'an edge: it uses the services, which never import it' },
  dashboard: { may: EDGE_MAY_IMPORT, why: 'an edge: it uses the services, which never import it' },
  app: {
    may: [...EDGE_MAY_IMPORT, 'admin', 'dashboard', 'gateway', 'observability', 'wallet'],
    why: 'the composition root wires every part; only cli/ imports it',
  },
  cli: {
    may: [...EDGE_MAY_IMPORT, 'admin', 'app', 'dashboard', 'gateway', 'observability', 'wallet'],
    why: 'the command: the top of the tree',
  },
}

/**
 * Import cycles not broken yet, each the files of one strongly connected group (test/import-graph.ts), with why.
 * Every kind of import counts, type-only and dynamic ones too: a cycle of types still makes the files one unit to
 * read and change, and a lazy import() back into its importer is still one. The test fails on a cycle not listed
 * here and on a listed one that is gone or whose files changed, so this list only shrinks.
 */
export const KNOWN_CYCLES: { files: string[]; why: string }[] = []

/**
 * Test-only modules under src/ (`*.test-support.ts`, left out of the build by tsconfig.build.json): tests, the bench
 * and other `*.test-support.ts` files import them; no production file does, by any kind of import.
 */
export const TEST_SUPPORT = /\.test-support\.ts$/

/**
 * Production files that hold something for the tests alone: besides `*.test-support.ts` files, only `writers` import
 * them (every kind of import counts).
 */
export const TEST_ONLY: { file: string; writers: string[]; why: string }[] = [
  {
    file: 'app/internals.ts',
    writers: ['app/build.ts'],
    why: "a running app's parts (database, ledger, pools, ...) are for tests and the bench; production gets RunningApp",
  },
]
