/**
 * The effective config as `chaingate config show` prints it: defaults applied, environment references expanded, and
 * every secret redacted the way logs and /healthz redact them — a node URL keeps its scheme and host (a provider key
 * in the path or query becomes `/…`), a database or Redis URL loses its password, tokens, secrets and mnemonics
 * become `***`.
 */
import type { Config } from './schema.ts'

const SECRET_NAME = /(token|secret|password|passphrase|mnemonic|privateKey)$/i
const NODE_SCHEME = /^(https?|wss?):$/

export function redactUrl(text: string): string {
  let u: URL
  try {
    u = new URL(text)
  } catch {
    return text
  }
  if (NODE_SCHEME.test(u.protocol)) {
    const hidden = u.pathname !== '/' || u.search !== '' || u.username !== '' || u.password !== ''
    return `${u.protocol}//${u.host}${hidden ? '/…' : ''}`
  }
  if (u.password) u.password = '***'
  return u.toString()
}

export function redactedConfig(config: Config): unknown {
  const walk = (v: unknown, key: string): unknown => {
    if (typeof v === 'string') {
      if (SECRET_NAME.test(key)) return '***'
      return /^[a-z][a-z0-9+.-]*:\/\//i.test(v) ? redactUrl(v) : v
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, key))
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]))
    return v
  }
  return walk(config, '')
}
