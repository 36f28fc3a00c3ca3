/**
 * One node of a pool as it starts: its URL (credentials moved to a Basic header), an undici pool or a WebSocket,
 * its role, weight, deadline and rate budget, and its health counters at zero (src/upstreams/pool/types.ts).
 */
import { Pool } from 'undici'
import { TokenBucket } from '../../shared/token-bucket.ts'
import { Breaker } from './breaker.ts'
import { RollingStats } from './latency.ts'
import type { Member } from './member.ts'
import type { UpstreamEndpoint, UpstreamPolicy } from './types.ts'
import { createWsRpcConnection } from '../../jsonrpc/ws-connection.ts'

export const isWebSocketUrl = (url: string) => /^wss?:/i.test(url)

/** http://user:pass@host/path?x → host/path: node URLs often embed provider keys, never show them. */
export const redactUrl = (u: URL) => `${u.protocol}//${u.host}${u.pathname === '/' ? '' : '/…'}`

/** undici's options for one node's connections (its Pool, and call-shapes.ts's throwaway Clients). */
export const poolOptions = (timeoutMs: number) => ({
  keepAliveTimeout: 30_000,
  headersTimeout: timeoutMs,
  bodyTimeout: timeoutMs,
  connectTimeout: Math.min(timeoutMs, 5000),
})

export function newMember(
  e: UpstreamEndpoint,
  o: {
    network: string
    /** The network's deadline for one request, when the node has none of its own. */
    timeoutMs: number
    connections: number | undefined
    /** Whether the node's chain is checked before it serves; false: trusted, the node is usable at once. */
    checked: boolean
    policy: UpstreamPolicy
  },
): Member {
  const url = new URL(e.url)
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (url.username) {
    const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`
  }
  const timeoutMs = e.timeoutMs ?? o.timeoutMs
  const rate = e.maxRequestsPerSecond ?? Infinity
  return {
    url,
    path: `${url.pathname}${url.search}`,
    headers,
    label: redactUrl(url),
    pool: isWebSocketUrl(e.url)
      ? undefined
      : new Pool(url.origin, { connections: o.connections ?? 128, ...poolOptions(timeoutMs) }),
    socket: isWebSocketUrl(e.url) ? createWsRpcConnection(e.url, { network: o.network, timeoutMs }) : undefined,
    downUntil: 0,
    usable: !o.checked,
    chain: o.checked ? 'unknown' : 'confirmed',
    chainNote: o.checked ? 'not checked yet' : undefined,
    verifyError: undefined,
    verifying: undefined,
    lastVerifyAt: 0,
    onChainIdMismatch: e.onChainIdMismatch ?? 'fail',
    refusal: undefined,
    refusalDetail: '',
    blockedUntil: 0,
    backoffMs: 0,
    role: e.role ?? 'primary',
    weight: e.weight ?? 1,
    timeoutMs,
    labels: e.labels ?? [],
    stats: new RollingStats(),
    breaker: new Breaker(o.policy.breaker),
    head: undefined,
    finalized: undefined,
    headPolling: false,
    budget: Number.isFinite(rate) ? new TokenBucket(rate, rate, 0) : undefined,
    score: 0,
    inBand: true,
    rrCurrent: 0,
  }
}
