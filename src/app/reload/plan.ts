/**
 * What `chaingate reload` would change (docs/config.md, "Reloading"): the running config against the file read
 * again. Live: `networks` (added, removed, changed; not embedded chains), `plans`, `credits` and `log.level`.
 * Anything else differing refuses the whole reload with one line per setting, so a reload never half-applies:
 * the listeners, the database, the data dir and Redis are fixed for the life of the process; the other settings
 * are read once at start.
 */
import type { ConfigError } from '../../config/load.ts'
import type { Config, NetworkConfig } from '../../config/schema.ts'

export interface NetworkChange {
  next: NetworkConfig
  /** Nodes or their policy changed: a new pool (and layers over it); the old one retires once its calls end. */
  pool: boolean
  /** Cache or eth_getLogs settings changed: new call layers over the pool. */
  layers: boolean
}

export interface ReloadPlan {
  /** Settings that cannot change live, one line each; when any, nothing is applied. */
  refused: string[]
  added: NetworkConfig[]
  removed: string[]
  changed: NetworkChange[]
  plans: boolean
  credits: boolean
  logLevel: Config['log']['level'] | undefined
  /** One short line per change, for the log and the CLI. */
  changes: string[]
}

/** Settings a running process holds open (listeners, storage, shared state): never taken from a reload. */
const FIXED = ['dataDir', 'gateway.host', 'gateway.port', 'gateway.operations.listen', 'database', 'redis']

const LIVE_SECTIONS = new Set(['networks', 'plans', 'credits', 'log'])
const POOL_KEYS = ['upstreams', 'upstreamPolicy', 'maxRequestBytes', 'maxResponseBytes'] as const
const LAYER_KEYS = ['cache', 'getLogs'] as const

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** The paths (a.b.c) where two plain values differ: objects are walked, anything else compared whole. */
export function differingPaths(a: unknown, b: unknown, path = ''): string[] {
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
  if (!isObj(a) || !isObj(b)) return same(a, b) ? [] : [path || '(root)']
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])]
  return keys.flatMap((k) => differingPaths(a[k], b[k], path ? `${path}.${k}` : k))
}

function refusalLine(path: string): string {
  const fixed = FIXED.find((f) => path === f || path.startsWith(`${f}.`))
  return fixed
    ? `${path}: cannot change while chaingate runs (restart to apply it); nothing was reloaded`
    : `${path}: is read at start only (restart to apply it; live: networks, plans, credits, log.level); ` +
        'nothing was reloaded'
}

export function planReload(current: Config, next: Config): ReloadPlan {
  const refused: string[] = []
  const cur = current as unknown as Record<string, unknown>
  const nxt = next as unknown as Record<string, unknown>
  for (const key of new Set([...Object.keys(cur), ...Object.keys(nxt)])) {
    if (LIVE_SECTIONS.has(key)) continue
    for (const p of differingPaths(cur[key], nxt[key], key)) refused.push(refusalLine(p))
  }
  const { level: _cl, ...curLog } = current.log
  const { level: _nl, ...nextLog } = next.log
  for (const p of differingPaths(curLog, nextLog, 'log')) refused.push(refusalLine(p))

  const before = new Map(current.networks.map((n) => [n.name, n]))
  const after = new Map(next.networks.map((n) => [n.name, n]))
  const added: NetworkConfig[] = []
  const removed: string[] = []
  const changed: NetworkChange[] = []
  const changes: string[] = []
  const embeddedLine = (name: string, what: string) =>
    `networks[${name}].embedded: an embedded chain cannot be ${what} live (restart to apply it); nothing was reloaded`
  for (const [name, n] of after) {
    const old = before.get(name)
    if (old === undefined) {
      if (n.embedded) refused.push(embeddedLine(name, 'added'))
      added.push(n)
      changes.push(`network ${name} added`)
      continue
    }
    // A Solana network's chain learned from its nodes at start stays what its nodes must be on.
    if (n.family === 'solana' && old.family === 'solana' && n.chain === undefined) n.chain = old.chain
    if (same(old, n)) continue
    if (old.family !== n.family)
      refused.push(
        `networks[${name}].family: cannot change live (add the chain as another network); nothing was reloaded`,
      )
    else if (old.chainId !== n.chainId || old.chain !== n.chain)
      refused.push(
        `networks[${name}].chainId: cannot change live (add the chain as another network); nothing was reloaded`,
      )
    if (!same(old.embedded, n.embedded)) refused.push(embeddedLine(name, old.embedded ? 'changed or removed' : 'added'))
    const pool = POOL_KEYS.some((k) => !same(old[k], n[k]))
    const layers = pool || LAYER_KEYS.some((k) => !same(old[k], n[k]))
    changed.push({ next: n, pool, layers })
    const what = differingPaths(old, n).map((p) => p.split('.')[0])
    changes.push(`network ${name} changed (${[...new Set(what)].join(', ')})`)
  }
  for (const [name, old] of before) {
    if (after.has(name)) continue
    if (old.embedded) refused.push(embeddedLine(name, 'removed'))
    removed.push(name)
    changes.push(`network ${name} removed`)
  }
  const plans = !same(current.plans, next.plans)
  if (plans) changes.push(`plans changed (${differingPaths(current.plans, next.plans, 'plans').join(', ')})`)
  const credits = !same(current.credits, next.credits)
  if (credits) changes.push(`credits changed (${differingPaths(current.credits, next.credits, 'credits').join(', ')})`)
  const logLevel = current.log.level === next.log.level ? undefined : next.log.level
  if (logLevel) changes.push(`log.level ${current.log.level} → ${logLevel}`)
  return { refused, added, removed, changed, plans, credits, logLevel, changes }
}

/** The config to reload to: `next`, or the source read again; a string is the one line saying why not. */
export function readReloadConfig(next: Config | undefined, read: (() => Config) | undefined): Config | string {
  if (next) return next
  if (!read) return 'no config file to read again: this process was started without one'
  try {
    return read()
  } catch (err) {
    if ((err as Error).name !== 'ConfigError') return (err as Error).message
    return `${(err as ConfigError).line}; nothing was reloaded`
  }
}
