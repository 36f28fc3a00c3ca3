/**
 * A scriptable fake upstream node: a real node:http server on port 0 that answers each JSON-RPC request as the
 * test says (status, JSON body, headers). The only fake in the e2e tests — it stands where a provider would.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeReply {
  status?: number
  /** An object is sent as JSON; a string as is. */
  body: unknown
  headers?: Record<string, string>
}

export interface FakeRequest {
  /** The parsed body (a call or a batch). */
  body: any
  headers: IncomingHttpHeaders
  url: string
}

export interface FakeNode {
  /** http://127.0.0.1:PORT/ */
  url: string
  /** Every request received, in order. */
  requests: FakeRequest[]
  /** Replaces the script (undefined from it: the default answer). */
  answer(script: Script): void
  close(): Promise<void>
}

/** What the node answers; undefined: the default (its chain id for eth_chainId, `0x1` for anything else). */
export type Script = (req: FakeRequest) => FakeReply | undefined

/** A JSON-RPC result for the call (or every call of a batch). */
export const result = (req: FakeRequest, value: unknown): unknown =>
  Array.isArray(req.body) ? req.body.map((c: { id: unknown }) => ({ jsonrpc: '2.0', id: c.id, result: value })) : { jsonrpc: '2.0', id: req.body.id, result: value }

/** A JSON-RPC error for the call. */
export const rpcError = (req: FakeRequest, code: number, message: string): unknown => ({ jsonrpc: '2.0', id: Array.isArray(req.body) ? null : req.body.id, error: { code, message } })

/** Starts a fake node answering as `script` says. */
export async function startFakeNode(chainIdHex: string, script?: Script): Promise<FakeNode> {
  const requests: FakeRequest[] = []
  const fallback = (req: FakeRequest): FakeReply => ({ body: result(req, req.body?.method === 'eth_chainId' ? chainIdHex : '0x1') })
  let current: Script = script ?? (() => undefined)
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      let body: unknown
      try {
        body = JSON.parse(Buffer.concat(chunks).toString())
      } catch {
        body = undefined
      }
      const r: FakeRequest = { body, headers: req.headers, url: req.url ?? '/' }
      requests.push(r)
      const reply = current(r) ?? fallback(r)
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body)
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers })
      res.end(text)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    requests,
    answer(script) {
      current = script
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
