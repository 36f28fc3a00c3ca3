/**
 * Which Host names the dashboard (src/dashboard/middleware/hosts.ts) and the operations listener
 * (src/gateway/http/operations-exposure.ts) answer to. A web page on any site can make the browser talk to a
 * gateway on the user's machine by pointing its own DNS name at 127.0.0.1 (DNS rebinding); the browser then treats
 * the dashboard as that site and would send its forms and read its pages. The Host header still names the
 * attacker's domain, so refusing unknown Host names stops it.
 *
 * Default (`gateway.allowedHosts` unset): on a loopback listener only `localhost`, `*.localhost`, loopback IPs,
 * the networks' host names and the host of `dashboard.publicBaseUrl`; on any other listener every name (an
 * operator exposing the gateway names its public hosts in `gateway.allowedHosts`). See docs/dashboard.md.
 */
import { defaultHostname } from './rpc-paths.ts'

/**
 * The hostname of a Host header value (port dropped, IPs normalized by the WHATWG URL parser); undefined when
 * malformed.
 */
export function hostnameOf(host: string | undefined): string | undefined {
  if (!host) return undefined
  try {
    const url = new URL(`http://${host}`)
    if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return undefined
    return url.hostname.replace(/\.$/, '')
  } catch {
    return undefined
  }
}

const isLoopbackName = (h: string) =>
  h === 'localhost' || h.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(h) || h === '[::1]'

/** Whether the listener address accepts connections only from this machine. */
export function isLoopbackListener(listenHost: string | undefined): boolean {
  if (listenHost === undefined) return true
  const h = hostnameOf(listenHost.includes(':') && !listenHost.startsWith('[') ? `[${listenHost}]` : listenHost)
  return h !== undefined && isLoopbackName(h)
}

/** A predicate over hostnames, or null when every name is allowed. */
export function hostPolicy(opts: {
  listenHost?: string | undefined
  allowedHosts?: readonly string[] | null | undefined
  networks: readonly { name: string; hosts?: string[] | undefined }[]
  publicBaseUrl?: string | null | undefined
}): ((hostname: string) => boolean) | null {
  const exact = new Set<string>()
  const suffixes: string[] = []
  if (opts.allowedHosts) {
    for (const raw of opts.allowedHosts) {
      const entry = raw.trim().toLowerCase()
      if (entry === '*') return null
      if (entry.startsWith('*.')) suffixes.push(entry.slice(1))
      else {
        const h = hostnameOf(entry)
        if (h) exact.add(h)
      }
    }
    return (h) => exact.has(h) || suffixes.some((s) => h.endsWith(s))
  }
  if (!isLoopbackListener(opts.listenHost)) return null
  for (const n of opts.networks) for (const h of n.hosts ?? [defaultHostname(n.name)]) exact.add(hostnameOf(h) ?? h)
  if (opts.publicBaseUrl) exact.add(new URL(opts.publicBaseUrl).hostname)
  return (h) => isLoopbackName(h) || exact.has(h)
}
