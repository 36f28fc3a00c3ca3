/**
 * An OTLP/HTTP trace receiver on port 0 (JSON protocol, so spans are read without protobuf): what a collector
 * would get from chaingate's exporter (docs/deploy.md, "Traces"), each span with its attributes and its
 * resource's `service.name` flattened.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ReceivedSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  attributes: Record<string, unknown>
  events: { name: string }[]
  service: unknown
  resource: Record<string, unknown>
}

export interface OtlpReceiver {
  /** http://127.0.0.1:PORT: the exporter's endpoint (it posts to /v1/traces). */
  readonly endpoint: string
  /** Every span received so far, in order of arrival (emptied by clear()). */
  readonly spans: ReceivedSpan[]
  /** Waits (5 s at most; the exporter sends in batches) for `n` spans matching `pred`; returns those found. */
  waitFor(pred: (s: ReceivedSpan) => boolean, n?: number): Promise<ReceivedSpan[]>
  /** The spans received whose parent is `parent`. */
  childrenOf(parent: ReceivedSpan): ReceivedSpan[]
  clear(): void
  close(): Promise<void>
}

const value = (v: any) =>
  v.stringValue ?? v.boolValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.doubleValue)
const attrs = (list: any[] = []) => Object.fromEntries(list.map((a) => [a.key, value(a.value)]))

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      if (req.url === '/v1/traces' && String(req.headers['content-type']).includes('json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString())
        for (const rs of body.resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({
                ...s,
                attributes: attrs(s.attributes),
                events: s.events ?? [],
                service: attrs(rs.resource?.attributes)['service.name'],
                resource: attrs(rs.resource?.attributes),
              })
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    async waitFor(pred, n = 1) {
      const deadline = Date.now() + 5000
      for (;;) {
        const found = spans.filter(pred)
        if (found.length >= n || Date.now() > deadline) return found
        await new Promise((r) => setTimeout(r, 25))
      }
    },
    childrenOf: (p) => spans.filter((s) => s.parentSpanId === p.spanId && s.traceId === p.traceId),
    clear() {
      spans.length = 0
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  }
}
