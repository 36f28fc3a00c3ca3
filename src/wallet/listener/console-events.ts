/**
 * `GET /console/api/events`: a Server-Sent Events stream (text/event-stream) that tells the console page when to
 * re-read its state: `event: change` whenever pending requests, sessions or activity change, a comment line every
 * 15 s to keep proxies from closing it. While a console is open, receipts of sent transactions are looked up every
 * 2 s and a found one is announced the same way.
 */
import type { FastifyInstance } from 'fastify'
import type { ServerResponse } from 'node:http'
import { bearer, consoleGuard } from './console-auth.ts'
import type { WalletServerDeps } from './deps.ts'

const HEARTBEAT_MS = 15_000
const RECEIPT_POLL_MS = 2_000
/** Console tabs open at once; more get 429 (each holds a connection). */
const MAX_STREAMS = 16

export function registerConsoleEvents(app: FastifyInstance, deps: WalletServerDeps): void {
  const guard = consoleGuard(deps.tokens)
  const streams = new Set<ServerResponse>()
  let receiptTimer: NodeJS.Timeout | undefined

  const checkReceipts = async () => {
    for (const p of await deps.activity.pendingReceipts()) {
      const r = (await deps.chainAccess
        .request(p.chainId, 'eth_getTransactionReceipt', [p.txHash])
        .catch(() => null)) as { status?: string } | null
      if (r?.status) await deps.activity.setReceipt(p.id, r.status === '0x1' ? 'success' : 'reverted')
    }
  }
  const startReceipts = () => {
    if (receiptTimer) return
    receiptTimer = setInterval(
      () => void checkReceipts().catch((err: unknown) => deps.logger.debug({ err }, 'wallet: receipt lookup failed')),
      RECEIPT_POLL_MS,
    )
    receiptTimer.unref()
  }
  const stopReceipts = () => {
    if (streams.size === 0 && receiptTimer) clearInterval(receiptTimer), (receiptTimer = undefined)
  }

  app.get('/console/api/events', async (req, reply) => {
    if (!guard(req, reply, bearer(req))) return reply
    if (streams.size >= MAX_STREAMS)
      return reply.code(429).send({ error: `at most ${MAX_STREAMS} console event streams at once` })
    reply.hijack()
    const res = reply.raw
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    })
    res.write('retry: 1000\n\nevent: ready\ndata: {}\n\n')
    streams.add(res)
    startReceipts()
    // Changes come in bursts (insert + bump + notify): one event per 50 ms is enough.
    let queued: NodeJS.Timeout | undefined
    const unsubscribe = deps.changes.subscribe(() => {
      if (queued) return
      queued = setTimeout(() => {
        queued = undefined
        res.write('event: change\ndata: {}\n\n')
      }, 50)
    })
    const token = bearer(req)
    // A token rotated by the CLI is noticed here at the latest (the console's own rotation announces a change).
    const heartbeat = setInterval(
      () => (token !== deps.tokens.current() ? res.end() : res.write(': keep-alive\n\n')),
      HEARTBEAT_MS,
    )
    heartbeat.unref()
    const done = () => {
      unsubscribe()
      clearInterval(heartbeat)
      if (queued) clearTimeout(queued)
      streams.delete(res)
      stopReceipts()
    }
    res.on('close', done)
    // A rotated token ends the streams opened with the old one at the next change (the page reconnects with the new).
    const check = deps.changes.subscribe(() => {
      if (token !== deps.tokens.current()) res.end()
    })
    res.on('close', check)
  })

  // Open streams would keep the listener from closing.
  app.addHook('preClose', async () => {
    for (const res of streams) res.end()
    streams.clear()
    stopReceipts()
  })
}
