/**
 * A real HTTP webhook receiver on 127.0.0.1:0 for the usage alert tests: it records every request (headers and the
 * raw body, as the sender wrote it) and answers with the statuses it is given, one per request, then 200.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received {
  at: number
  headers: IncomingHttpHeaders
  body: string
  status: number
}

/** The signature and timestamp headers of a received webhook, for `verifySignature` (src/alerts/webhook.ts). */
export const signed = (r: Received) => ({
  signature: r.headers['x-chaingate-signature'] as string | undefined,
  timestamp: r.headers['x-chaingate-timestamp'] as string | undefined,
})

export interface Receiver {
  url: string
  received: Received[]
  /** Statuses for the next requests, in order (then 200). `hang` never answers (a timeout for the sender). */
  answer(...statuses: (number | 'hang')[]): void
  close(): Promise<void>
}

export async function startReceiver(path = '/hooks/chaingate'): Promise<Receiver> {
  const received: Received[] = []
  const queue: (number | 'hang')[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const next = queue.shift() ?? 200
      received.push({
        at: Date.now(),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        status: next === 'hang' ? 0 : next,
      })
      if (next === 'hang') return
      res.writeHead(next, { 'content-type': 'text/plain' }).end(next < 300 ? 'ok' : 'nope')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    answer: (...s) => queue.push(...s),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}
