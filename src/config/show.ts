/**
 * The effective config as `chaingate config show` prints it: defaults applied, environment references expanded, and
 * every secret redacted the way logs and /healthz redact them — a node URL keeps its scheme and host (a provider key
 * in the path or query becomes `/…`), a database or Redis URL loses its password, tokens, secrets and mnemonics
 * become `***`.
 */
import type { Config } from './schema.ts'

const SECRET_NAME = /(token|secret|password|passphrase|mnemonic|privateKey)$/i
const NODE_SCHEME = /^(https?|wss?):$/

export const redactUrl = (text: string): string => redactUrlParts(text).shown

/** `hid`: whether something was left out (not only the URL written another way). */
function redactUrlParts(text: string): { shown: string; hid: boolean } {
  let u: URL
  try {
    u = new URL(text)
  } catch {
    return { shown: text, hid: false }
  }
  if (NODE_SCHEME.test(u.protocol)) {
    const hid = u.pathname !== '/' || u.search !== '' || u.username !== '' || u.password !== ''
    return { shown: `${u.protocol}//${u.host}${hid ? '/…' : ''}`, hid }
  }
  if (!u.password) return { shown: u.toString(), hid: false }
  u.password = '***'
  return { shown: u.toString(), hid: true }
}

/**
 * `hidden`, when given, receives every value replaced or shortened, in the walk's order (the config version hashes
 * them apart, src/app/reload/version.ts).
 */
export function redactedConfig(config: Config | object, hidden?: string[]): unknown {
  const walk = (v: unknown, key: string): unknown => {
    if (typeof v === 'string') {
      if (SECRET_NAME.test(key)) {
        hidden?.push(v)
        return '***'
      }
      if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return v
      const url = redactUrlParts(v)
      if (url.hid) hidden?.push(v)
      return url.shown
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, key))
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]))
    return v
  }
  return walk(config, '')
}
