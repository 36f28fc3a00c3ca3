/**
 * The wallet with its listeners: the transport-free core (src/wallet/wallet.ts), the WebSocket API and console on
 * `wallet.host:wallet.port`, and optionally a unix socket (`wallet.socketPath`, mode 0600).
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, renameSync, rmSync, unlinkSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { dirname, isAbsolute, join } from 'node:path'
import { isLoopbackHost } from '../../config/wallet-schema.ts'
import { createConsoleTokens } from '../console-token.ts'
import { startWalletCore, type WalletCore, type WalletServiceDeps } from '../wallet.ts'
import { buildWalletServer, type WalletServer } from './server.ts'

export type { WalletServiceDeps } from '../wallet.ts'

export interface WalletStarted {
  /** ws:// URL dapps connect to. */
  url: string
  /** `ws+unix://<path>:/` when `wallet.socketPath` is set. */
  socketUrl?: string
  /** http:// URL of the console, token included. */
  consoleUrl: string
  consoleToken: string
  /** True when the keys are the public anvil test mnemonic's. */
  publicTestKeys: boolean
}

export interface WalletService {
  start(): Promise<WalletStarted>
  stop(): Promise<void>
}

/** How long a stop waits for answers still in flight (the 4001s of cancelled approvals) and for sockets to close. */
const STOP_GRACE_MS = 1000

export function socketFilePath(socketPath: string, dataDir: string): string {
  return isAbsolute(socketPath) ? socketPath : join(dataDir, socketPath)
}

/** Serves the same routes on a unix socket: its requests and upgrades go to the fastify server. */
async function listenUnix(server: WalletServer, path: string): Promise<Server> {
  if (process.platform === 'win32')
    throw new Error('wallet.socketPath: unix sockets are not available on Windows; remove the setting')
  if (!existsSync(dirname(path))) mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  // A socket file left by a crash would make listen fail with EADDRINUSE; anything else at that path is kept.
  if (existsSync(path)) {
    if (!lstatSync(path).isSocket()) throw new Error(`wallet.socketPath: ${path} exists and is not a socket`)
    unlinkSync(path)
  }
  const unix = createServer()
  unix.on('request', (req, res) => server.app.server.emit('request', req, res))
  unix.on('upgrade', (req, socket, head) => server.app.server.emit('upgrade', req, socket, head))
  // Bound inside a fresh 0700 folder, made 0600, then moved into place: no moment where others could connect.
  const staging = mkdtempSync(join(dirname(path), '.cgs-'))
  try {
    await new Promise<void>((resolve, reject) => {
      unix.once('error', reject)
      unix.listen(join(staging, 's'), () => resolve())
    })
    chmodSync(join(staging, 's'), 0o600)
    renameSync(join(staging, 's'), path)
  } catch (e) {
    unix.close()
    throw e
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
  return unix
}

export function createWalletService(deps: WalletServiceDeps): WalletService {
  const { config, logger } = deps
  let core: WalletCore | undefined
  let server: WalletServer | undefined
  let unix: Server | undefined
  let unixPath: string | undefined

  return {
    async start() {
      if (!isLoopbackHost(config.host)) {
        if (!config.allowNonLoopback)
          throw new Error('wallet.host is not a loopback address and wallet.allowNonLoopback is false')
        logger.warn(
          { host: config.host },
          'wallet: listening on a NON-LOOPBACK address (wallet.allowNonLoopback): any host that reaches it can ask ' +
            'for sessions',
        )
      }
      core = await startWalletCore(deps)
      const tokens = createConsoleTokens(deps.dataDir)
      const consoleToken = tokens.current()
      server = await buildWalletServer({
        config,
        engine: core.engine,
        approvals: core.approvals,
        repository: core.repository,
        logger,
        tokens,
        activity: core.activity,
        chainAccess: core.chainAccess,
        changes: core.changes,
      })
      await server.app.listen({ host: config.host, port: config.port })
      if (config.socketPath) {
        unixPath = socketFilePath(config.socketPath, deps.dataDir)
        unix = await listenUnix(server, unixPath)
      }
      const addr = server.app.server.address()
      const port = typeof addr === 'object' && addr ? addr.port : config.port
      const host = config.host.includes(':') ? `[${config.host}]` : config.host
      const consoleHost = isLoopbackHost(config.host) ? host : '127.0.0.1'
      const started: WalletStarted = {
        url: `ws://${host}:${port}/`,
        ...(unixPath ? { socketUrl: `ws+unix://${unixPath}:/` } : {}),
        consoleUrl: `http://${consoleHost}:${port}/console?token=${consoleToken}`,
        consoleToken,
        publicTestKeys: core.publicTestKeys,
      }
      logger.info({ url: started.url, socket: unixPath }, 'wallet: listening')
      return started
    },

    async stop() {
      // Waiting approvals are answered 4001 first, and those answers reach the dapps before their sockets close.
      await core?.stop()
      if (server) {
        await server.drain(STOP_GRACE_MS)
        const clients = [...(server.app.websocketServer?.clients ?? [])]
        await Promise.race([
          Promise.all(
            clients.map(
              (c) => new Promise((resolve) => (c.once('close', resolve), c.close(1001, 'the wallet is stopping'))),
            ),
          ),
          new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref()),
        ])
        for (const c of server.app.websocketServer?.clients ?? []) c.terminate()
        if (unix) await new Promise((resolve) => unix!.close(resolve))
        if (unixPath && existsSync(unixPath)) unlinkSync(unixPath)
        await server.app.close()
      }
      await core?.engine.close()
      core = undefined
      server = undefined
      unix = undefined
      unixPath = undefined
    },
  }
}
