/**
 * The one definition of the gateway's RPC paths (README.md): who parses them (the HTTP route, the WebSocket
 * upgrade) and who builds them (dashboard, CLI, tests, bench) use this module, so they cannot drift apart.
 *
 *   HTTP  host form  /v3/<key>                     (the Host header names the network)
 *         path form  /networks/<name>/v3/<key>
 *   WS    host form  /ws/v3/<key>
 *         path form  /networks/<name>/ws/v3/<key>
 *
 * A missing key, or a key followed by more path (`/v3/<key>/x`), still matches with `key: undefined`: Infura
 * answers those with 401 "project id required in the url". This module imports nothing (config may use it).
 */

export type RpcTransport = 'http' | 'ws'

export interface RpcPathMatch {
  /** `host`: the Host header names the network; `path`: `/networks/<name>/...`. */
  form: 'host' | 'path'
  /** The network named in the path (path form, %-decoded); undefined for the host form. */
  network: string | undefined
  /** The key; undefined when missing or followed by more path. */
  key: string | undefined
}

/** Default hostname of a network without configured `hosts`. */
export const defaultHostname = (network: string): string => `${network}.localhost`

/** A malformed %-escape must not throw out of a request listener (that would end the process). */
function safeDecode(segment: string): string {
  if (!segment.includes('%')) return segment
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** The key in `url[from, end)`: undefined when empty or followed by more path. */
function keyFrom(url: string, from: number, end: number): string | undefined {
  const slash = url.indexOf('/', from)
  if (from === end || (slash !== -1 && slash < end)) return undefined
  return url.slice(from, end)
}

/** `url[at...]` is `/v3` (http) or `/ws/v3` (ws), ending the path or followed by `/`: index after it, or -1. */
function versionEnd(url: string, at: number, end: number, transport: RpcTransport): number {
  const prefix = transport === 'http' ? '/v3' : '/ws/v3'
  if (!url.startsWith(prefix, at)) return -1
  const after = at + prefix.length
  if (after > end || (after !== end && url.charCodeAt(after) !== 0x2f) /* / */) return -1
  return after
}

/**
 * Which network form and key a request target names; undefined when it is not an RPC path of `transport`.
 * Takes the raw request target (a query string is ignored). Index arithmetic, no regex or split: it runs on
 * every HTTP request (docs/benchmarks.md).
 */
export function matchRpcPath(url: string, transport: RpcTransport): RpcPathMatch | undefined {
  const q = url.indexOf('?')
  const end = q === -1 ? url.length : q
  const hostForm = versionEnd(url, 0, end, transport)
  if (hostForm !== -1)
    return { form: 'host', network: undefined, key: hostForm === end ? undefined : keyFrom(url, hostForm + 1, end) }
  if (!url.startsWith('/networks/')) return undefined
  const slash = url.indexOf('/', 10)
  if (slash === -1 || slash >= end) return undefined
  // The WebSocket upgrade has always required a non-empty name (`/networks//ws/v3` is not an RPC path).
  if (transport === 'ws' && slash === 10) return undefined
  const after = versionEnd(url, slash, end, transport)
  if (after === -1) return undefined
  return {
    form: 'path',
    network: safeDecode(url.slice(10, slash)),
    key: after === end ? undefined : keyFrom(url, after + 1, end),
  }
}

export interface RpcUrlOptions {
  /** Gateway base URL (`http(s)://host:port[/prefix]`): origin and path prefix of path-form URLs. */
  base: string | URL
  network: string
  key: string
  transport: RpcTransport
  /** `host`: the network's hostname replaces the base's host (keeping protocol, port and prefix). */
  form: 'host' | 'path'
  /** The network's hostname for the host form (default `<network>.localhost`); may carry its own port. */
  host?: string | undefined
}

/** The endpoint URL of a key on a network, in the given transport and form. */
export function rpcUrl(o: RpcUrlOptions): string {
  const base = typeof o.base === 'string' ? new URL(o.base) : o.base
  const prefix = base.pathname.replace(/\/$/, '')
  let origin = base.origin
  if (o.form === 'host') {
    const host = o.host ?? defaultHostname(o.network)
    origin = `${base.protocol}//${host}${base.port && !host.includes(':') ? `:${base.port}` : ''}`
  }
  const ws = o.transport === 'ws' ? '/ws' : ''
  const path = o.form === 'host' ? `${ws}/v3/${o.key}` : `/networks/${o.network}${ws}/v3/${o.key}`
  const url = `${origin}${prefix}${path}`
  return o.transport === 'ws' ? url.replace(/^http/, 'ws') : url
}
