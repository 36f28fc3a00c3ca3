/**
 * ChainAccess straight against node URLs (http for calls, ws for subscriptions). For tests and for running the
 * wallet without the gateway; the app wires a gateway-backed ChainAccess instead (charged to the wallet's key).
 */
import WebSocket from 'ws'
import type { ChainAccess } from './ports.ts'

export interface DirectChain {
  chainId: number
  network: string
  url: string
  wsUrl?: string
}

class RpcError extends Error {
  readonly code: number
  readonly data: unknown
  constructor(e: { code: number; message: string; data?: unknown }) {
    super(e.message)
    this.code = e.code
    this.data = e.data
  }
}

interface WsLink {
  ws: WebSocket
  ready: Promise<void>
  nextId: number
  pending: Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>
  subs: Map<string, (result: unknown) => void>
}

export function createDirectChainAccess(chains: DirectChain[]): ChainAccess & { close(): Promise<void> } {
  const byId = new Map(chains.map((c) => [c.chainId, c]))
  const links = new Map<number, WsLink>()
  let nextId = 1

  const chainOf = (chainId: number): DirectChain => {
    const c = byId.get(chainId)
    if (!c) throw new RpcError({ code: -32602, message: `chain ${chainId} is not served` })
    return c
  }

  function link(chainId: number): WsLink {
    let l = links.get(chainId)
    if (l && l.ws.readyState <= WebSocket.OPEN) return l
    const c = chainOf(chainId)
    const ws = new WebSocket(c.wsUrl ?? c.url.replace(/^http/, 'ws'))
    const created: WsLink = { ws, ready: Promise.resolve(), nextId: 1, pending: new Map(), subs: new Map() }
    created.ready = new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('error', reject)
    })
    created.ready.catch(() => {})
    ws.on('message', (raw) => {
      let m: any
      try {
        m = JSON.parse(String(raw))
      } catch {
        return
      }
      if (m?.method === 'eth_subscription') {
        created.subs.get(m.params?.subscription)?.(m.params?.result)
        return
      }
      const p = created.pending.get(m?.id)
      if (!p) return
      created.pending.delete(m.id)
      if (m.error) p.reject(new RpcError(m.error))
      else p.resolve(m.result)
    })
    ws.on('close', () => {
      for (const p of created.pending.values()) p.reject(new RpcError({ code: -32603, message: 'node connection closed' }))
      created.pending.clear()
      if (links.get(chainId) === created) links.delete(chainId)
    })
    links.set(chainId, created)
    return created
  }

  async function wsCall(l: WsLink, method: string, params: unknown): Promise<unknown> {
    await l.ready
    const id = l.nextId++
    return new Promise((resolve, reject) => {
      l.pending.set(id, { resolve, reject })
      l.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    })
  }

  return {
    chains: () => chains.map((c) => ({ chainId: c.chainId, network: c.network })),
    async request(chainId, method, params) {
      const c = chainOf(chainId)
      // One multiplexed WebSocket per chain when the node has one (much cheaper than an HTTP request per call).
      if (c.wsUrl) return wsCall(link(chainId), method, params ?? [])
      const res = await fetch(c.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: params ?? [] }),
      })
      const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string; data?: unknown } }
      if (body.error) throw new RpcError(body.error)
      return body.result
    },
    async subscribe(chainId, params, onEvent) {
      const l = link(chainId)
      const id = (await wsCall(l, 'eth_subscribe', params)) as string
      l.subs.set(id, onEvent)
      return {
        id,
        async unsubscribe() {
          l.subs.delete(id)
          if (l.ws.readyState === WebSocket.OPEN) await wsCall(l, 'eth_unsubscribe', [id]).catch(() => {})
        },
      }
    },
    async close() {
      for (const l of links.values()) l.ws.terminate()
      links.clear()
    },
  }
}
