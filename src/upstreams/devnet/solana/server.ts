/**
 * The embedded Solana devnet's process (started by devnet.ts through litesvm-process.ts, like anvil for the EVM
 * chains): JSON-RPC over HTTP (batches too) and PubSub over WebSocket on one port, PubSub also on port + 1 where
 * free (Solana's default, which @solana/web3.js's Connection derives when given no wsEndpoint), slots on a clock,
 * the state file written every few seconds and on exit. It exits when its stdin closes: chaingate holds the other
 * end, and the kernel closes it even when chaingate is SIGKILLed, so the devnet never outlives it.
 *
 * Arguments: --host H --port P --slot-ms N [--state FILE] [--fund ADDRESS,…] [--fund-lamports N]
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { WebSocketServer } from 'ws'
import { SolanaChain } from './chain.ts'
import { stringifyJson } from './codec.ts'
import { PubSub } from './pubsub.ts'
import { handleRequest } from './rpc.ts'
import type { RpcContext } from './rpc-params.ts'

const MAX_BODY_BYTES = 10 * 1024 * 1024
const MAX_BATCH = 1000
const SAVE_INTERVAL_MS = 5_000

export interface ServerOptions {
  host: string
  port: number
  slotMs: number
  stateFile?: string
  funded: string[]
  fundedLamports: bigint
}

export interface RunningServer {
  port: number
  chain: SolanaChain
  pubsubPort: number | undefined
  close(): Promise<void>
}

function answer(body: string, ctx: RpcContext): string {
  let request: unknown
  try {
    request = JSON.parse(body)
  } catch {
    return stringifyJson({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null })
  }
  if (Array.isArray(request)) {
    if (request.length === 0 || request.length > MAX_BATCH)
      return stringifyJson({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: null })
    return stringifyJson(request.map((r) => handleRequest(r, ctx)))
  }
  return stringifyJson(handleRequest(request, ctx))
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      const address = server.address()
      resolve(typeof address === 'object' && address ? address.port : port)
    })
  })
}

export async function runServer(options: ServerOptions): Promise<RunningServer> {
  const chain = new SolanaChain({
    funded: options.funded,
    fundedLamports: options.fundedLamports,
    ...(options.stateFile ? { stateFile: options.stateFile } : {}),
  })
  const pubsub = new PubSub(chain)
  const ctx: RpcContext = { chain, onReceived: (signature) => pubsub.received(signature) }
  chain.events = {
    onSlot: (slot) => pubsub.slot(slot),
    onTransaction: (record, writable) => pubsub.transaction(record, writable),
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' && req.url === '/health') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
      return
    }
    if (req.method !== 'POST') {
      res.writeHead(405).end()
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        res.writeHead(413).end()
        req.destroy()
      } else chunks.push(chunk)
    })
    req.on('end', () => {
      if (res.writableEnded) return
      const body = answer(Buffer.concat(chunks).toString('utf8'), ctx)
      res.writeHead(200, { 'content-type': 'application/json' }).end(body)
    })
  }
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES })
  wss.on('connection', (socket) => pubsub.attach(socket))
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) =>
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))

  const http = createServer(onRequest)
  http.on('upgrade', onUpgrade)
  const port = await listen(http, options.host, options.port)
  ctx.rpcAddress = `${options.host}:${port}`
  // Best effort: Solana's PubSub default is the RPC port + 1.
  const side = createServer((_req, res) => res.writeHead(405).end())
  side.on('upgrade', onUpgrade)
  const pubsubPort = await listen(side, options.host, port + 1).catch(() => undefined)

  const clock = setInterval(() => chain.advance(), options.slotMs)
  const saver = setInterval(() => {
    try {
      chain.save()
    } catch (error) {
      process.stderr.write(`solana devnet: could not write the state file: ${(error as Error).message}\n`)
    }
  }, SAVE_INTERVAL_MS)
  let closing: Promise<void> | undefined
  return {
    port,
    chain,
    pubsubPort,
    close: () =>
      (closing ??= (async () => {
        clearInterval(clock)
        clearInterval(saver)
        for (const client of wss.clients) client.terminate()
        const closeServer = (s: Server) =>
          new Promise<void>((resolve) => {
            if (!s.listening) return resolve()
            s.close(() => resolve())
            s.closeAllConnections()
          })
        await Promise.all([closeServer(http), closeServer(side)])
        chain.save(true)
      })()),
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8899' },
      'slot-ms': { type: 'string', default: '400' },
      state: { type: 'string' },
      fund: { type: 'string', default: '' },
      'fund-lamports': { type: 'string', default: '0' },
    },
  })
  let server: RunningServer
  try {
    server = await runServer({
      host: values.host,
      port: Number(values.port),
      slotMs: Number(values['slot-ms']),
      ...(values.state ? { stateFile: values.state } : {}),
      funded: values.fund ? values.fund.split(',') : [],
      fundedLamports: BigInt(values['fund-lamports']),
    })
  } catch (error) {
    const e = error as NodeJS.ErrnoException
    process.stderr.write(
      e.code === 'EADDRINUSE' ? `address already in use: ${values.host}:${values.port}\n` : `${e.stack ?? e}\n`,
    )
    process.exit(1)
  }
  const stop = () => {
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`${(error as Error).stack ?? error}\n`)
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
  // chaingate's end of the pipe closed: stop() or chaingate died.
  process.stdin.on('end', stop)
  process.stdin.on('error', stop)
  process.stdin.resume()
  process.stdout.write(`${JSON.stringify({ port: server.port, pubsubPort: server.pubsubPort ?? null })}\n`)
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main()
