/**
 * Baseline (b) of the benchmark: the least a Node forwarding proxy can do. A node:http server reads the request
 * body, forwards it with an undici Pool (keep-alive) to the upstream node, and sends the answer back. No key, no
 * credits, no metrics, no logging: whatever chaingate costs on top of this is its own overhead. It holds one
 * process.nextTick entry, as chaingate does, so that both run in V8's fast mode.
 *
 * Run as its own process (the benchmark spawns it): `node --import tsx bench/minimal-proxy.ts <upstream-url>`.
 * Prints one JSON line `{"url": "http://127.0.0.1:PORT/"}` on stdout once listening; exits when stdin closes
 * (its parent ended, even by SIGKILL) or on SIGTERM/SIGINT.
 */
import { createServer } from 'node:http'
import { pathToFileURL } from 'node:url'
import { Pool } from 'undici'
import { keepTickShape } from '../src/shared/object-shapes.ts'

export interface MinimalProxy {
  url: string
  close(): Promise<void>
}

export async function startMinimalProxy(
  upstreamUrl: string,
  opts: { host?: string; port?: number; connections?: number } = {},
): Promise<MinimalProxy> {
  // As chaingate does: without one process.nextTick entry held, a full collection can leave every later tick on V8's
  // slow path, and the reference would land in that slower mode in some runs (src/shared/object-shapes.ts).
  keepTickShape()
  const upstream = new URL(upstreamUrl)
  const path = `${upstream.pathname}${upstream.search}`
  // Same pool shape as chaingate's upstream pool (src/upstreams/pool/pool.ts), so only the per-request work differs.
  const pool = new Pool(upstream.origin, { connections: opts.connections ?? 128, keepAliveTimeout: 30_000 })
  const headers = { 'content-type': 'application/json' }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
      pool.request({ method: 'POST', path, headers, body }).then(
        async (answer) => {
          const text = await answer.body.arrayBuffer()
          res.writeHead(answer.statusCode, { 'content-type': 'application/json', 'content-length': text.byteLength })
          res.end(Buffer.from(text))
        },
        () => {
          res.writeHead(502, { 'content-type': 'application/json' })
          res.end('{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"upstream unavailable"}}')
        },
      )
    })
  })
  server.keepAliveTimeout = 30_000
  const host = opts.host ?? '127.0.0.1'
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 0, host, () => resolve())
  })
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('proxy has no TCP address')
  return {
    url: `http://${host}:${address.port}/`,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await pool.close()
    },
  }
}

// Entry point when run as a process.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const upstream = process.argv[2]
  if (!upstream) {
    console.error('usage: node --import tsx bench/minimal-proxy.ts <upstream-url>')
    process.exit(2)
  }
  const proxy = await startMinimalProxy(upstream)
  let stopping = false
  const stop = () => {
    if (stopping) return
    stopping = true
    const force = setTimeout(() => process.exit(0), 2000)
    force.unref()
    void proxy.close().finally(() => process.exit(0))
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
  process.stdin.on('end', stop)
  process.stdin.on('error', stop)
  process.stdin.resume()
  process.stdout.write(`${JSON.stringify({ url: proxy.url })}\n`)
}
