/**
 * The hot route, on bare node:http: `POST /v3/<key>` and `POST /networks/<name>/v3/<key>`. It is the product's
 * per-request path, so it skips fastify's routing, hooks and reply objects (measured in bench/); everything
 * else on the listener (OPTIONS, 405s, /healthz, /metrics, the dashboard) stays on fastify.
 */
// Imported, not the globals: Node 20 defines `Buffer` and `performance` on globalThis as getters, called on every use.
import { Buffer } from 'node:buffer'
import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import { constants, gzip } from 'node:zlib'
import { errors } from '../../errors/index.ts'
import { ERROR_REGISTRY, type ErrorCode } from '../../errors/registry.ts'
import type { Metrics, RequestOutcome } from '../../observability/metrics.ts'
import type { Gateway } from '../pipeline/execute.ts'
import type { Outcome } from '../pipeline/types.ts'
import { serializeError, toErrorObject } from '../../jsonrpc/envelope.ts'
import type { NetworkRegistry } from '../../networks/registry.ts'
import { acceptsGzip } from './accept-encoding.ts'
import { createAdmission } from './admission.ts'
import { matchRpcPath, type RpcPathMatch } from '../../shared/rpc-paths.ts'
import { type RpcTarget, targetOf } from './rpc-target.ts'
import { CORS_HEADERS, EXPOSED_HEADERS } from './cors-preflight.ts'
import { sizeClass } from '../../shared/object-shapes.ts'
import type { Logger, RequestLines } from '../../observability/logger.ts'
import { type Head, httpAnswer, NO_CONTENT, OK } from './rpc-answer.ts'

const CORS_FLAT = CORS_HEADERS.flat()

// node:http's per-request objects, sized by V8 before the first request arrives (src/shared/object-shapes.ts): each
// request made as node:http's parser makes it (HTTP/1.1).
sizeClass(() => {
  const req = new IncomingMessage(new Socket())
  req.httpVersionMajor = 1
  req.httpVersionMinor = 1
  return new ServerResponse(req)
})

/** Level 1: most of gzip's gain on JSON-RPC answers (hex-heavy JSON) for a fraction of the CPU of the default. */
const GZIP_OPTIONS = { level: constants.Z_BEST_SPEED }

/** A request's outcome for chaingate_request_duration_seconds (docs/deploy.md, "Metrics"). */
const outcomeOf = (code: ErrorCode | undefined): RequestOutcome =>
  code === undefined
    ? 'ok'
    : code.startsWith('UPSTREAM_')
      ? 'upstream_error'
      : ERROR_REGISTRY[code].httpStatus === 429
        ? 'refused'
        : 'client_error'

export function createRpcRoute(deps: {
  gateway: Gateway
  networks: NetworkRegistry
  maxBodyBytes: number
  /** Answers at least this large are gzipped for clients that accept it; null: never. */
  gzipMinBytes?: number | null
  logRequests: boolean
  requestLines: RequestLines
  logger: Logger
  /** gateway.maxInFlight: calls worked on at once (body read, not yet answered); more answer OVERLOADED. */
  maxInFlight?: number
  /** chaingate_request_duration_seconds, observed once an answer is written. */
  metrics?: Pick<Metrics, 'requestDuration'>
}) {
  const gzipMinBytes = deps.gzipMinBytes ?? null
  const admission = createAdmission(deps.maxInFlight ?? Number.POSITIVE_INFINITY, deps.logger)

  /** `encoding`: the body's content-encoding when compressed, '' when it could have been, undefined otherwise. */
  const send = (
    res: ServerResponse,
    out: Outcome,
    {
      head,
      body,
      encoding,
      network,
      started,
    }: { head: Head; body: string | Buffer | undefined; encoding?: string; network: string; started: number },
  ) => {
    // A POST answer needs only Allow-Origin; the other CORS headers matter in the preflight (OPTIONS) answer.
    const headers: string[] =
      body === undefined
        ? [
            'access-control-allow-origin',
            '*',
            'access-control-expose-headers',
            EXPOSED_HEADERS,
            'x-credits-charged',
            String(out.credits),
          ]
        : [
            'access-control-allow-origin',
            '*',
            'access-control-expose-headers',
            EXPOSED_HEADERS,
            'x-credits-charged',
            String(out.credits),
            'content-type',
            head.contentType,
            'content-length',
            String(Buffer.byteLength(body)),
          ]
    if (encoding !== undefined) {
      headers.push('vary', 'accept-encoding')
      if (encoding !== '') headers.push('content-encoding', encoding)
    }
    if (head.headers !== undefined) for (const k in head.headers) headers.push(k, head.headers[k]!)
    res.writeHead(head.status, headers)
    res.end(body)
    deps.metrics?.requestDuration(network, out.method, outcomeOf(out.code), (performance.now() - started) / 1000)
    if (deps.logRequests)
      deps.requestLines.write(
        out.keyId,
        network,
        out.method,
        out.calls,
        head.status,
        out.credits,
        performance.now() - started,
        out.source,
      )
  }

  const write = (req: IncomingMessage, res: ServerResponse, out: Outcome, network: string, started: number) => {
    let head: Head
    let body: string | Buffer | undefined
    if (out.code === undefined) {
      // The common case, without building an answer object.
      head = out.body === undefined ? NO_CONTENT : OK
      body = out.body
    } else ({ head, body } = httpAnswer(out))
    if (body === undefined || gzipMinBytes === null || body.length < gzipMinBytes) {
      send(res, out, { head, body, network, started })
      return
    }
    if (!acceptsGzip(req.headers['accept-encoding'])) {
      send(res, out, { head, body, encoding: '', network, started })
      return
    }
    // On libuv's thread pool, off the event loop: a large answer does not hold up other requests.
    const plain = body
    gzip(plain, GZIP_OPTIONS, (err, zipped) => {
      try {
        if (err) send(res, out, { head, body: plain, encoding: '', network, started })
        else send(res, out, { head, body: zipped, encoding: 'gzip', network, started })
      } catch (e) {
        fail(res, e)
      }
    })
  }

  const answer = (req: IncomingMessage, res: ServerResponse, out: Outcome, target: RpcTarget, started: number) => {
    admission.leave() // the call is done: whatever writing it takes is not the pipeline's queue
    try {
      write(req, res, out, target.network?.name ?? 'unknown', started)
    } catch (err) {
      fail(res, err)
    }
  }

  const tooLarge = (res: ServerResponse) => {
    const body = serializeError(null, toErrorObject(errors.bodyTooLarge(deps.maxBodyBytes)))
    res.writeHead(413, [
      ...CORS_FLAT,
      'x-credits-charged',
      '0',
      'content-type',
      'application/json',
      'content-length',
      String(Buffer.byteLength(body)),
      'connection',
      'close',
    ])
    res.end(body)
  }

  /** A bug, not a client's mistake: logged with its stack, and the client gets a plain JSON-RPC internal error. */
  const fail = (res: ServerResponse, err: unknown) => {
    deps.logger.error({ err }, 'gateway request failed')
    if (res.headersSent) {
      res.destroy()
      return
    }
    const body = serializeError(null, { code: -32603, message: 'Internal error' })
    res.writeHead(500, [
      'access-control-allow-origin',
      '*',
      'access-control-expose-headers',
      EXPOSED_HEADERS,
      'x-credits-charged',
      '0',
      'content-type',
      'application/json',
      'content-length',
      String(Buffer.byteLength(body)),
    ])
    res.end(body)
  }

  /** A call admitted, then failed (a bug): it leaves the admission count. */
  const failed = (res: ServerResponse, err: unknown) => {
    admission.leave()
    fail(res, err)
  }

  // The last request target and its match: a client's calls name the same URL again, whose parse is then skipped
  // (and whose key and network names are the same strings again: quick keys in the maps they meet).
  let lastUrl: string | undefined
  let lastMatch: RpcPathMatch | undefined

  /** Handles the request and returns true when it is a JSON-RPC POST; false leaves it to fastify. */
  return function handle(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'POST') return false
    const url = req.url ?? '/'
    if (url !== lastUrl) {
      lastMatch = matchRpcPath(url, 'http')
      lastUrl = url
    }
    if (lastMatch === undefined) return false
    const target = targetOf(lastMatch, req.headers.host, deps.networks)
    const started = performance.now()
    const arrived = Date.now()
    const declared = Number(req.headers['content-length'])
    if (declared > deps.maxBodyBytes) {
      tooLarge(res)
      req.resume()
      return true
    }
    const chunks: Buffer[] = []
    let size = 0
    let refused = false
    req.on('data', (chunk: Buffer) => {
      if (refused) return
      size += chunk.length
      if (size > deps.maxBodyBytes) {
        refused = true
        tooLarge(res)
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => {
      if (refused) return
      // Bounded admission: past maxInFlight the client hears at once, instead of waiting in a queue without bound.
      if (admission.full()) return admission.refuse(res)
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
      const headers = req.headers
      admission.enter()
      let out: ReturnType<Gateway['handleHttp']>
      try {
        out = deps.gateway.handleHttp({
          network: target.network,
          networkLabel: target.label,
          key: target.key,
          body: body.length === 0 ? undefined : body,
          authorization: headers.authorization,
          origin: headers.origin,
          userAgent: headers['user-agent'],
          traceparent: headers.traceparent as string | undefined,
          client: req.socket,
          arrivedAt: arrived,
        })
      } catch (err) {
        return failed(res, err)
      }
      // A cached answer comes back as it is: written now, without a promise or a microtask.
      if (out instanceof Promise)
        out.then(
          (o) => answer(req, res, o, target, started),
          (err: unknown) => failed(res, err),
        )
      else answer(req, res, out, target, started)
    })
    // No 'error' listener: node:http emits a request's errors (a client gone mid-body) only to listeners, and
    // destroys the socket itself; without 'end' this request just never answers.
    return true
  }
}
