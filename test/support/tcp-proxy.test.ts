/**
 * The TCP proxy (./tcp-proxy.ts) in front of a real echo server: it forwards both ways, `cut` ends connections and
 * refuses new ones, `freeze` holds them open with nothing forwarded, `restore` brings either back on the same port,
 * `lag` delays what the target sends.
 */
import { connect, createServer, type Server, type Socket } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts'

let echo: Server
let echoPort: number
const echoSockets = new Set<Socket>()
beforeAll(async () => {
  echo = createServer((s) => {
    echoSockets.add(s)
    s.on('close', () => echoSockets.delete(s))
    s.pipe(s)
  })
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve))
  echoPort = (echo.address() as { port: number }).port
})
afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())))

const proxies: TcpProxy[] = []
const clients: Socket[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy()
  for (const p of proxies.splice(0)) await p.close()
})
async function proxy(): Promise<TcpProxy> {
  const p = await startTcpProxy({ host: '127.0.0.1', port: echoPort })
  proxies.push(p)
  return p
}

/** A client on `port` that collects what it receives and whether the connection ended. */
function client(port: number) {
  const socket = connect(port, '127.0.0.1')
  clients.push(socket)
  let got = ''
  let closed = false
  socket.on('data', (d) => (got += d.toString()))
  socket.on('error', () => {})
  socket.on('close', () => (closed = true))
  return {
    socket,
    connected: new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject)),
    get got() {
      return got
    },
    get closed() {
      return closed
    },
  }
}

/** Resolves when `check` holds (polled); rejects after `ms`. */
async function until(check: () => boolean, what: string, ms = 2000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 5))
  }
}

/** A new connection on `port` that sent `text` and got its echo back. */
async function echoOf(port: number, text: string) {
  const c = client(port)
  await c.connected
  c.socket.write(text)
  await until(() => c.got === text, `the echo of ${text}`)
  return c
}

describe('TCP proxy', () => {
  it('forwards both ways; a URL target keeps its path in url and wsUrl and defaults the port by scheme', async () => {
    const p = await proxy()
    expect((await echoOf(p.port, 'hello')).got).toBe('hello')
    const byUrl = await startTcpProxy(`http://127.0.0.1:${echoPort}/v3/key`)
    proxies.push(byUrl)
    expect(byUrl.url).toBe(`http://127.0.0.1:${byUrl.port}/v3/key`)
    expect(byUrl.wsUrl).toBe(`ws://127.0.0.1:${byUrl.port}/v3/key`)
    expect((await echoOf(byUrl.port, 'again')).got).toBe('again')
  })

  it('cut ends open connections and refuses new ones; restore listens again on the same port', async () => {
    const p = await proxy()
    const open = await echoOf(p.port, 'before')
    await p.cut()
    await until(() => open.closed, 'the open connection to close')
    const refused = client(p.port)
    await expect(refused.connected).rejects.toMatchObject({ code: 'ECONNREFUSED' })
    await p.restore()
    expect((await echoOf(p.port, 'after')).got).toBe('after')
  })

  it('freeze keeps connections open and forwards nothing, also on new ones; restore drops them and forwards again', async () => {
    const p = await proxy()
    const held = await echoOf(p.port, 'a')
    p.freeze()
    held.socket.write('b')
    const fresh = client(p.port)
    await fresh.connected
    fresh.socket.write('c')
    // A connection that does not freeze proves the echo server answers meanwhile.
    const direct = await echoOf(echoPort, 'direct')
    expect(direct.got).toBe('direct')
    expect([held.got, fresh.got, held.closed, fresh.closed]).toEqual(['a', '', false, false])
    await p.restore()
    await until(() => held.closed && fresh.closed, 'the frozen connections to be dropped')
    expect((await echoOf(p.port, 'd')).got).toBe('d')
  })

  it('lag holds what the target sends for the given time, in order; lag(0) forwards at once again', async () => {
    const p = await proxy()
    const c = await echoOf(p.port, 'x')
    p.lag(150)
    const sentAt = Date.now()
    c.socket.write('1')
    await until(() => c.got === 'x1', 'the lagged echo')
    // Held by a timer of 150 ms: never sooner (a few ms of timer rounding allowed).
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(145)
    p.lag(0)
    c.socket.write('2')
    await until(() => c.got === 'x12', 'the echo without lag')
  })

  it('close ends connections and stops listening', async () => {
    const p = await startTcpProxy({ host: '127.0.0.1', port: echoPort })
    const open = await echoOf(p.port, 'z')
    await p.close()
    await until(() => open.closed, 'the connection to close')
    await expect(client(p.port).connected).rejects.toMatchObject({ code: 'ECONNREFUSED' })
  })
})
