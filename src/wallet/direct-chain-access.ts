/**
 * ChainAccess straight against node URLs: for tests and for running the wallet without the gateway; the app wires
 * a gateway-backed ChainAccess instead (charged to the wallet's key). Calls and subscriptions share one
 * multiplexed WebSocket per chain when the node has one (the project's one JSON-RPC-over-WebSocket client,
 * src/jsonrpc/ws-connection.ts), else calls go over HTTP.
 */
import { createWsRpcConnection, type WsRpcConnection } from '../jsonrpc/ws-connection.ts'
import type { ChainAccess } from './ports.ts'

export interface DirectChain {
  chainId: number
  network: string
  url: string
  wsUrl?: string
}

/** Deadline of one call to a node; approvals never wait on this (they happen before any call). */
const CALL_TIMEOUT_MS = 30_000

class RpcError extends Error {
  readonly code: number
  readonly data: unknown
  constructor(e: { code: number; message: string; data?: unknown }) {
    super(e.message)
    this.code = e.code
    this.data = e.data
  }
}

type Answer = { result?: unknown; error?: { code: number; message: string; data?: unknown } }

const unwrap = (answer: unknown): unknown => {
  const a = answer as Answer
  if (a.error) throw new RpcError(a.error)
  return a.result
}

/** A Solana network reached over HTTP JSON-RPC (the embedded devnet in tests). */
export interface DirectSolanaChain {
  /** CAIP-2 id */
  chain: string
  network: string
  url: string
}

export function createDirectChainAccess(
  chains: DirectChain[],
  solana: DirectSolanaChain[] = [],
): ChainAccess & { close(): Promise<void> } {
  const byId = new Map(chains.map((c) => [c.chainId, c]))
  const links = new Map<number, { conn: WsRpcConnection; subs: Map<string, (result: unknown) => void> }>()
  let nextId = 1

  const chainOf = (chainId: number): DirectChain => {
    const c = byId.get(chainId)
    if (!c) throw new RpcError({ code: -32602, message: `chain ${chainId} is not served` })
    return c
  }

  function link(chainId: number) {
    let l = links.get(chainId)
    if (l) return l
    const c = chainOf(chainId)
    const subs = new Map<string, (result: unknown) => void>()
    const conn = createWsRpcConnection(c.wsUrl ?? c.url.replace(/^http/, 'ws'), {
      network: c.network,
      timeoutMs: CALL_TIMEOUT_MS,
      onNotification: (m) => {
        const p = m.params as { subscription?: string; result?: unknown } | undefined
        if (m.method === 'eth_subscription' && typeof p?.subscription === 'string') subs.get(p.subscription)?.(p.result)
      },
      // The node's subscriptions died with the connection; the next call opens a new one.
      onClosed: () => subs.clear(),
    })
    links.set(chainId, (l = { conn, subs }))
    return l
  }

  const wsCall = async (chainId: number, method: string, params: unknown) =>
    unwrap(await link(chainId).conn.request({ jsonrpc: '2.0', id: nextId++, method, params }))

  const httpCall = async (url: string, method: string, params: unknown) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: params ?? [] }),
    })
    return unwrap(await res.json())
  }

  return {
    chains: () => chains.map((c) => ({ chainId: c.chainId, network: c.network })),
    async request(chainId, method, params) {
      const c = chainOf(chainId)
      if (c.wsUrl) return wsCall(chainId, method, params ?? [])
      return httpCall(c.url, method, params)
    },
    solanaChains: () => solana.map((c) => ({ chain: c.chain, network: c.network })),
    async solanaRequest(chain, method, params) {
      const c = solana.find((x) => x.chain === chain)
      if (!c) throw new RpcError({ code: -32602, message: `chain ${chain} is not served` })
      return httpCall(c.url, method, params)
    },
    async subscribe(chainId, params, onEvent) {
      const l = link(chainId)
      const id = (await wsCall(chainId, 'eth_subscribe', params)) as string
      l.subs.set(id, onEvent)
      return {
        id,
        async unsubscribe() {
          if (l.subs.delete(id)) await wsCall(chainId, 'eth_unsubscribe', [id]).catch(() => {})
        },
      }
    },
    async close() {
      for (const l of links.values()) l.conn.close()
      links.clear()
    },
  }
}
