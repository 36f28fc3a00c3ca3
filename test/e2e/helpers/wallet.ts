/**
 * Test harness for the wallet: real anvil devnets, the real wallet service on port 0 (direct ChainAccess), a real
 * SQLite file, and `@metamask/multichain-api-client` over the exported WebSocket transport.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getMultichainClient, type MultichainApiClient } from '@metamask/multichain-api-client'
import pino from 'pino'
import { afterAll, beforeAll } from 'vitest'
import WebSocket from 'ws'
import { getWebSocketTransport, type PairingStore } from '../../../src/wallet/client/websocket-transport.ts'
import { WalletConfigSchema, type WalletConfig } from '../../../src/config/wallet-schema.ts'
import { openDatabase, type OpenedDatabase } from '../../../src/db/database.ts'
import { startAnvil, type RunningAnvil } from '../../../src/upstreams/devnet/anvil.ts'
import { createDirectChainAccess } from '../../../src/wallet/direct-chain-access.ts'
import { createWalletService, type WalletService, type WalletStarted } from '../../../src/wallet/listener/start.ts'

export const CHAIN_A = 31337
export const CHAIN_B = 31338
/** First two accounts of the anvil test mnemonic (lower-case). */
export const ACCOUNT_0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
export const ACCOUNT_1 = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'

export async function startDevnets(): Promise<{ anvils: RunningAnvil[]; stop(): Promise<void> }> {
  const anvils = await Promise.all([
    startAnvil({ chainId: CHAIN_A, port: 0, blockTimeSeconds: 0 }),
    startAnvil({ chainId: CHAIN_B, port: 0, blockTimeSeconds: 0 }),
  ])
  return { anvils, stop: async () => void (await Promise.all(anvils.map((a) => a.stop()))) }
}

export type Devnets = Awaited<ReturnType<typeof startDevnets>>

/** The answer to a call the session does not allow (CAIP-25 / EIP-1193 4100). */
export const UNAUTHORIZED = {
  code: 4100,
  message: 'The requested account and/or method has not been authorized by the user.',
}

/**
 * Two devnets and a wallet on them for the calling file (or describe block): started in a beforeAll, stopped in an
 * afterAll. `h` and `devnets` are read in tests and later hooks, once the beforeAll has run.
 */
export function useWalletOnDevnets(
  overrides?: Parameters<typeof startWallet>[1],
  opts?: Parameters<typeof startWallet>[2],
): {
  readonly h: WalletHarness
  readonly devnets: Devnets
} {
  let devnets: Devnets | undefined
  let h: WalletHarness | undefined
  beforeAll(async () => {
    devnets = await startDevnets()
    h = await startWallet(devnets.anvils, overrides, opts)
  })
  afterAll(async () => {
    await h?.stop()
    await devnets?.stop()
  })
  const started = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('the wallet is not started yet (read it in a test or a later hook)')
    return v
  }
  return {
    get h() {
      return started(h)
    },
    get devnets() {
      return started(devnets)
    },
  }
}

export interface WalletHarness extends WalletStarted {
  dataDir: string
  dbFile: string
  db: OpenedDatabase
  service: WalletService
  /** Restarts the service on the same data dir and port (sessions must survive). */
  restart(): Promise<void>
  stop(): Promise<void>
  console(
    path: string,
    init?: { method?: string; body?: unknown; token?: string; host?: string },
  ): Promise<{ status: number; body: any }>
}

export async function startWallet(
  anvils: RunningAnvil[],
  overrides: Partial<Omit<WalletConfig, 'keystore'>> & { keystore?: Partial<WalletConfig['keystore']> } = {},
  opts: {
    dataDir?: string
    clock?: { now(): number }
    logLines?: string[]
    networks?: { name: string; embedded: boolean }[]
  } = {},
): Promise<WalletHarness> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'chaingate-wallet-'))
  const config = WalletConfigSchema.parse({
    port: 0,
    pollMs: 100,
    ...overrides,
    keystore: { scryptLogN: 10, ...overrides.keystore },
  })
  const dbFile = join(dataDir, 'chaingate.sqlite')
  const chainAccess = createDirectChainAccess(
    anvils.map((a, i) => ({ chainId: a.chainId, network: `devnet-${i}`, url: a.url, wsUrl: a.wsUrl })),
  )
  const logger = opts.logLines
    ? pino({ level: 'trace' }, { write: (line: string) => void opts.logLines!.push(line) })
    : pino({ level: process.env.WALLET_TEST_LOG ?? 'silent' })
  const networks = opts.networks ?? anvils.map((a) => ({ name: `devnet-${a.chainId}`, embedded: true }))
  const h = { dataDir, dbFile } as WalletHarness
  const boot = async (port: number) => {
    h.db = await openDatabase(dbFile)
    h.service = createWalletService({
      config: { ...config, port },
      dataDir,
      db: h.db.db,
      chainAccess,
      networks,
      logger,
      clock: opts.clock,
    })
    Object.assign(h, await h.service.start())
  }
  await boot(0)
  h.restart = async () => {
    const port = Number(new URL(h.url).port)
    await h.service.stop()
    await h.db.close()
    await boot(port)
  }
  h.stop = async () => {
    await h.service.stop()
    await h.db.close()
    await chainAccess.close()
    if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true })
  }
  h.console = async (path, init = {}) => {
    const u = new URL(h.consoleUrl)
    if (init.host) {
      // fetch cannot set Host; use node:http for the DNS-rebinding check.
      return new Promise((resolve, rejectP) => {
        const req = httpRequest(
          {
            host: u.hostname,
            port: u.port,
            path,
            method: init.method ?? 'GET',
            headers: { host: init.host!, authorization: `Bearer ${init.token ?? h.consoleToken}` },
          },
          (res) => {
            let text = ''
            res.on('data', (c) => (text += c))
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
          },
        )
        req.on('error', rejectP)
        req.end()
      })
    }
    const res = await fetch(`http://${u.host}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${init.token ?? h.consoleToken}`,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(init.host ? { host: init.host } : {}),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    })
    const text = await res.text()
    let body: any = text
    try {
      body = JSON.parse(text)
    } catch {}
    return { status: res.status, body }
  }
  return h
}

export interface Dapp {
  client: MultichainApiClient
  notifications: any[]
  /** Resolves with the first notification (already received or future) matching the predicate. */
  next(pred: (n: any) => boolean, timeoutMs?: number): Promise<any>
  close(): Promise<void>
}

/**
 * Pairing secrets by origin: the transports of one origin share them, as the tabs of one site share its
 * localStorage (docs/wallet.md "Pairing"). `dapp(…, { pairingStore })` gives a dapp storage of its own.
 */
const sitePairings = new Map<string, Map<string, string>>()
export function sitePairingStore(origin: string): PairingStore & { secrets: Map<string, string> } {
  let secrets = sitePairings.get(origin)
  if (!secrets) sitePairings.set(origin, (secrets = new Map()))
  const s = secrets
  // Hands out the secret synchronously (creating it on first use), so dapps opened in the same tick agree on it.
  const get = (k: string) => s.get(k) ?? (s.set(k, randomBytes(32).toString('base64url')), s.get(k))
  return { secrets: s, get, set: (k, v) => void s.set(k, v) }
}
/** The pairing secret the dapps of `origin` present to the wallet at `url` (after one of them connected). */
export function pairingOf(url: string, origin: string): string {
  const secret = sitePairingStore(origin).secrets.get(new URL(url).toString())
  if (!secret) throw new Error(`no pairing secret for ${origin} yet`)
  return secret
}

export function dapp(url: string, origin: string, opts: { pairingStore?: PairingStore | false } = {}): Dapp {
  const transport = getWebSocketTransport({ url, origin, pairingStore: opts.pairingStore ?? sitePairingStore(origin) })
  const client = getMultichainClient({ transport })
  const notifications: any[] = []
  const waiters: { pred: (n: any) => boolean; resolve(n: any): void }[] = []
  client.onNotification((n) => {
    notifications.push(n)
    for (const w of [...waiters]) if (w.pred(n)) waiters.splice(waiters.indexOf(w), 1), w.resolve(n)
  })
  return {
    client,
    notifications,
    next(pred, timeoutMs = 10_000) {
      const found = notifications.find(pred)
      if (found) return Promise.resolve(found)
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('no matching notification')), timeoutMs)
        waiters.push({ pred, resolve: (n) => (clearTimeout(t), resolve(n)) })
      })
    },
    close: () => transport.disconnect(),
  }
}

/** A raw WebSocket for wire-level checks (bad JSON, floods, exact envelopes). */
export async function rawSocket(
  url: string,
  origin?: string,
): Promise<{
  ws: WebSocket
  messages: any[]
  call(msg: unknown): Promise<any>
  closed: Promise<{ code: number; reason: string }>
}> {
  const ws = new WebSocket(url, origin === undefined ? {} : { origin })
  const messages: any[] = []
  const listeners: ((m: any) => void)[] = []
  ws.on('message', (raw) => {
    const m = JSON.parse(String(raw))
    messages.push(m)
    for (const l of [...listeners]) l(m)
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  )
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  let id = 1000
  return {
    ws,
    messages,
    closed,
    call(msg) {
      const m = typeof msg === 'string' ? msg : JSON.stringify({ jsonrpc: '2.0', id: ++id, ...(msg as object) })
      const wantId = typeof msg === 'string' ? null : id
      return new Promise((resolve) => {
        const l = (r: any) => {
          if (r.id === wantId && (r.result !== undefined || r.error !== undefined)) {
            listeners.splice(listeners.indexOf(l), 1)
            resolve(r)
          }
        }
        listeners.push(l)
        ws.send(m)
      })
    },
  }
}

/** invokeMethod on `scope` (the raw client answer: {scope, result: {method, result}}). */
export const invoke = (d: Dapp, scope: string, method: string, params: unknown) =>
  d.client.invokeMethod({ scope: scope as any, request: { method, params } as any }) as Promise<any>

/** Asks for a session with `scopes` and approves it in the console with `accounts`; resolves with the session. */
export async function approvedSession(
  h: WalletHarness,
  d: Dapp,
  origin: string,
  scopes: Record<string, any>,
  accounts = [ACCOUNT_0],
) {
  const created = d.client.createSession({ optionalScopes: scopes })
  const p = await waitForPending(h, (x) => x.origin === origin && x.kind === 'session')
  await approve(h, p.id, { accounts })
  return created
}

/** Polls the console API until a pending approval shows up; returns it. */
export async function waitForPending(
  h: WalletHarness,
  pred: (p: any) => boolean = () => true,
  timeoutMs = 10_000,
): Promise<any> {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    const { body } = await h.console('/console/api/state')
    const p = body.pending?.find(pred)
    if (p) return p
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error('no pending approval appeared')
}

export async function approve(h: WalletHarness, id: string, decision: unknown = {}): Promise<void> {
  const r = await h.console(`/console/api/approvals/${id}/approve`, { method: 'POST', body: decision })
  if (r.status !== 200) throw new Error(`approve failed: ${r.status} ${JSON.stringify(r.body)}`)
}

export async function reject(h: WalletHarness, id: string): Promise<void> {
  const r = await h.console(`/console/api/approvals/${id}/reject`, { method: 'POST', body: {} })
  if (r.status !== 200) throw new Error(`reject failed: ${r.status}`)
}

/** The code and message of a client call that must fail. */
export async function failure(p: unknown): Promise<{ code: number; message: string; data?: any }> {
  try {
    await p
  } catch (e: any) {
    if (e?.cause && typeof e.cause.code === 'number') return e.cause
    throw e
  }
  throw new Error('expected the call to fail')
}
