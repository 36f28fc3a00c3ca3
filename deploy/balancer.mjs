#!/usr/bin/env node
// A small HTTP and WebSocket load balancer for chaingate replicas, in plain Node (no dependencies), the one the
// scale-out tests run (docs/deploy.md). Use nginx or HAProxy in production if you have them; this one shows, and
// the tests check, what they must do:
//   - round robin over the replicas whose GET /healthz answers 200 (polled every --interval-ms; a replica draining
//     after SIGTERM answers 503 and stops receiving calls, while it finishes the ones it has);
//   - a call is retried on another replica only when it surely never reached the first one (connection refused,
//     or a reused keep-alive connection reset before any answer: https://nodejs.org/api/http.html#requestreusedsocket),
//     so a call is never run twice;
//   - WebSocket upgrades are piped to one replica for the connection's life;
//   - X-Forwarded-For / -Proto / -Host are set (give the balancer's address to gateway.trustProxy).
//
//   node deploy/balancer.mjs --listen 0.0.0.0:8545 --backend http://10.0.0.1:8545 --backend http://10.0.0.2:8545
//     [--interval-ms 500] [--health-path /healthz] [--health-token TOKEN] [--max-body-bytes 5242880]
// It prints one line `balancer listening on http://host:port` when ready; SIGTERM closes it.
import { createServer, request as httpRequest, Agent } from 'node:http'
import { connect } from 'node:net'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    listen: { type: 'string', default: '127.0.0.1:8545' },
    backend: { type: 'string', multiple: true, default: [] },
    'interval-ms': { type: 'string', default: '500' },
    'health-path': { type: 'string', default: '/healthz' },
    'health-token': { type: 'string' },
    'max-body-bytes': { type: 'string', default: String(5 * 1024 * 1024) },
  },
})
if (values.backend.length === 0) {
  process.stderr.write('usage: balancer.mjs --listen host:port --backend http://host:port [--backend …]\n')
  process.exit(2)
}
const intervalMs = Number(values['interval-ms'])
const maxBodyBytes = Number(values['max-body-bytes'])
const agent = new Agent({ keepAlive: true, maxSockets: 256 })
const backends = values.backend.map((u) => {
  const url = new URL(u)
  // Unknown until the first check: served meanwhile, so a balancer started with its replicas does not refuse calls.
  return { url, host: url.hostname, port: Number(url.port || 80), healthy: true }
})

let next = 0
/** The next healthy replica after round-robin position, skipping `tried`; undefined when none is left. */
function pick(tried) {
  for (let i = 0; i < backends.length; i++) {
    const b = backends[(next + i) % backends.length]
    if (b.healthy && !tried.has(b)) {
      next = (next + i + 1) % backends.length
      return b
    }
  }
  return undefined
}

function check(b) {
  const headers = values['health-token'] ? { authorization: `Bearer ${values['health-token']}` } : {}
  const req = httpRequest(
    {
      host: b.host,
      port: b.port,
      path: values['health-path'],
      headers,
      agent: false,
      timeout: Math.max(intervalMs, 1000),
    },
    (res) => {
      res.resume()
      b.healthy = res.statusCode === 200
    },
  )
  req.on('timeout', () => req.destroy(new Error('health check timed out')))
  req.on('error', () => {
    b.healthy = false
  })
  req.end()
}
const timer = setInterval(() => backends.forEach(check), intervalMs)
backends.forEach(check)

function forwardedHeaders(req) {
  const headers = { ...req.headers }
  const ip = req.socket.remoteAddress ?? ''
  headers['x-forwarded-for'] = headers['x-forwarded-for'] ? `${headers['x-forwarded-for']}, ${ip}` : ip
  headers['x-forwarded-proto'] ??= 'http'
  headers['x-forwarded-host'] ??= headers.host ?? ''
  return headers
}

const server = createServer((req, res) => {
  const chunks = []
  let size = 0
  req.on('data', (c) => {
    size += c.length
    if (size > maxBodyBytes) {
      res.writeHead(413, { connection: 'close' }).end()
      req.destroy()
    } else chunks.push(c)
  })
  req.on('end', () => send(req, res, Buffer.concat(chunks), new Set()))
})

function send(req, res, body, tried) {
  const b = pick(tried)
  if (!b) {
    res.writeHead(503, { 'content-type': 'text/plain' }).end('no healthy chaingate replica\n')
    return
  }
  tried.add(b)
  const headers = forwardedHeaders(req)
  headers['content-length'] = String(body.length)
  delete headers['transfer-encoding']
  delete headers.connection
  delete headers['keep-alive']
  const up = httpRequest(
    { host: b.host, port: b.port, method: req.method, path: req.url, headers, agent },
    (answer) => {
      // Hop-by-hop: a replica closing its connection to the balancer (draining) is not the client's business.
      const { connection: _c, 'keep-alive': _k, ...answerHeaders } = answer.headers
      res.writeHead(answer.statusCode ?? 502, answerHeaders)
      answer.pipe(res)
    },
  )
  up.on('error', (err) => {
    // Retry only what never reached a replica; anything else may have run there.
    const neverReached = err.code === 'ECONNREFUSED' || (up.reusedSocket && err.code === 'ECONNRESET')
    if (err.code === 'ECONNREFUSED') b.healthy = false
    if (neverReached && !res.headersSent) return send(req, res, body, tried)
    if (!res.headersSent)
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`replica failed: ${err.code ?? err.message}\n`)
    else res.destroy()
  })
  up.end(body)
}

server.on('upgrade', (req, socket, head) => {
  const b = pick(new Set())
  if (!b) return socket.end('HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\n\r\n')
  const upstream = connect(b.port, b.host, () => {
    const headers = forwardedHeaders(req)
    const lines = [
      `${req.method} ${req.url} HTTP/1.1`,
      ...Object.entries(headers).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => `${k}: ${x}`) : [`${k}: ${v}`])),
    ]
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`)
    if (head.length) upstream.write(head)
    upstream.pipe(socket)
    socket.pipe(upstream)
  })
  const end = () => {
    upstream.destroy()
    socket.destroy()
  }
  upstream.on('error', end)
  socket.on('error', end)
  upstream.on('close', end)
  socket.on('close', end)
})

const [host, port] = [
  values.listen.slice(0, values.listen.lastIndexOf(':')),
  Number(values.listen.slice(values.listen.lastIndexOf(':') + 1)),
]
server.listen(port, host, () => {
  const a = server.address()
  process.stdout.write(`balancer listening on http://${a.address}:${a.port}\n`)
})
const stop = () => {
  clearInterval(timer)
  server.close(() => process.exit(0))
  server.closeAllConnections()
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
