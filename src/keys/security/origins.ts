/**
 * Origin allowlist matching, Infura's "Origins" allowlist
 * (https://docs.metamask.io/developer-tools/dashboard/how-to/secure-an-api/use-an-allowlist/):
 * - wildcard subdomains: `https://*.example.com` matches `https://a.example.com` (any depth), not `example.com`;
 * - the scheme is optional, but must match when given (`mydapp.example.com` matches http and https);
 * - an entry that is only a scheme (`https://`, `chrome-extension://`) allows every origin of that scheme;
 * - the port is part of the host: `localhost:3000` matches only port 3000, `localhost` only the default port
 *   (users hit this, revoke.cash#59);
 * - a request without an Origin header, or with `Origin: null`, matches nothing.
 */

export interface ParsedOriginEntry {
  scheme: string | null
  /** Lowercase host[:port]; null for a scheme-only entry. */
  host: string | null
  wildcard: boolean
}

const SCHEME_ONLY = /^([a-z][a-z0-9+.-]*):(\/\/)?$/
const ENTRY = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\*\.)?([a-z0-9_-]+(?:\.[a-z0-9_-]+)*(?::\d{1,5})?)\/?$/

/** Parses one allowlist entry; null when it is not a valid entry (the dashboard refuses those). */
export function parseOriginEntry(entry: string): ParsedOriginEntry | null {
  const e = entry.trim().toLowerCase()
  const schemeOnly = SCHEME_ONLY.exec(e)
  if (schemeOnly) return { scheme: schemeOnly[1]!, host: null, wildcard: false }
  const m = ENTRY.exec(e)
  if (!m) return null
  return { scheme: m[1] ?? null, host: m[3]!, wildcard: m[2] !== undefined }
}

interface ParsedOrigin {
  scheme: string
  host: string
}

/** `scheme://host[:port]`, lowercased; a default port is dropped like browsers do. */
function parseOriginHeader(origin: string): ParsedOrigin | null {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)\/?$/.exec(origin.trim().toLowerCase())
  if (!m || m[2] === '') return null
  const scheme = m[1]!
  let host = m[2]!
  if ((scheme === 'https' && host.endsWith(':443')) || (scheme === 'http' && host.endsWith(':80')))
    host = host.slice(0, host.lastIndexOf(':'))
  return { scheme, host }
}

function matches(entry: ParsedOriginEntry, origin: ParsedOrigin): boolean {
  if (entry.scheme !== null && entry.scheme !== origin.scheme) return false
  if (entry.host === null) return true
  if (!entry.wildcard) return entry.host === origin.host
  return origin.host.endsWith(`.${entry.host}`)
}

/** True when `origin` (the request's Origin header) matches at least one entry (entries OR). */
export function originAllowed(entries: readonly string[], origin: string | undefined): boolean {
  if (origin === undefined || origin === '' || origin === 'null') return false
  const parsed = parseOriginHeader(origin)
  if (!parsed) return false
  for (const entry of compile(entries)) if (matches(entry, parsed)) return true
  return false
}

// The key snapshot's arrays live until the next settings reload, so parse each list once.
const compiledLists = new WeakMap<readonly string[], ParsedOriginEntry[]>()

function compile(entries: readonly string[]): ParsedOriginEntry[] {
  let compiled = compiledLists.get(entries)
  if (!compiled) {
    compiled = entries.map(parseOriginEntry).filter((e): e is ParsedOriginEntry => e !== null)
    compiledLists.set(entries, compiled)
  }
  return compiled
}
