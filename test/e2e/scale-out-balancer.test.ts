/**
 * Two `chaingate start` replicas on PostgreSQL + Redis behind real HAProxy with the shipped files
 * (deploy/haproxy/haproxy.cfg, deploy/config/chaingate.yaml), as docs/deploy.md runs them: WebSockets across it,
 * the client's address seen through `gateway.trustProxy`, a rolling restart with no failed call (readiness on
 * /readyz), and a replica SIGKILLed under load with no failed read (HAProxy retries what never got an answer).
 */
import { randomBytes } from 'node:crypto'
import { connect } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { Agent, request } from 'undici'
import WebSocket from 'ws'
import { startFakeNode, type FakeNode } from '../support/fake-node.ts'
import { freePort, startHaproxy, type Haproxy } from './helpers/haproxy.ts'
import {
  cleanupProcesses,
  removeDirs,
  ROOT,
  runCli,
  sleep,
  startChaingate,
  tempDir,
  waitFor,
  type Chaingate,
} from './helpers/process.ts'
import { createPgTestSchema, describeWithServices, redisUrl, type PgTestSchema } from '../support/services.ts'

const CONFIG = join(ROOT, 'deploy', 'config', 'chaingate.yaml')
const OPS_TOKEN = randomBytes(16).toString('hex')
const ADMIN_TOKEN = randomBytes(16).toString('hex')
const OPS = { authorization: `Bearer ${OPS_TOKEN}` }
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` }
const READ = { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [`0x${'00'.repeat(19)}01`, 'latest'] }

async function call(url: string, dispatcher?: Agent): Promise<number> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(READ),
    headersTimeout: 20_000,
    bodyTimeout: 20_000,
    ...(dispatcher ? { dispatcher } : {}),
  })
  await res.body.text()
  return res.statusCode
}

describeWithServices(['postgres', 'redis', 'haproxy'], 'replicas behind HAProxy (deploy/haproxy/haproxy.cfg)', () => {
  const dir = tempDir('chaingate-haproxy-')
  let schema: PgTestSchema
  let node: FakeNode
  let lb: Haproxy
  const ports: number[] = []
  const replicas: (Chaingate | undefined)[] = [undefined, undefined]
  let key: string
  let email: string
  const path = () => `/networks/mainnet/v3/${key}`
  const startReplica = async (i: number) => {
    replicas[i] = await startChaingate(
      ['--config', CONFIG, '--data-dir', join(dir, `replica-${i}`), '--port', String(ports[i])],
      { timeoutMs: 120_000 },
    )
  }
  const ready = async (i: number) =>
    waitFor(
      async () => (await request(`http://127.0.0.1:${ports[i]}/readyz`, { headers: OPS })).statusCode === 200,
      20_000,
      `replica ${i} ready`,
    )

  beforeAll(async () => {
    schema = await createPgTestSchema('haproxy')
    node = await startFakeNode('0x1')
    ports.push(await freePort(), await freePort())
    // The environment deploy/config/chaingate.yaml reads, as compose and Kubernetes set it.
    Object.assign(process.env, {
      CHAINGATE_DATABASE_URL: schema.url,
      CHAINGATE_REDIS_URL: redisUrl,
      CHAINGATE_REDIS_KEY_PREFIX: `test-haproxy-${randomBytes(4).toString('hex')}:`,
      CHAINGATE_UPSTREAM_URL: node.url,
      CHAINGATE_TRUST_PROXY: '127.0.0.1',
      CHAINGATE_OPERATIONS_TOKEN: OPS_TOKEN,
      // The admin API on, so that the balancer, not chaingate's 404 for an API that is off, is what refuses it.
      CHAINGATE_ADMIN_TOKEN: ADMIN_TOKEN,
    })
    const cli = (args: string[]) =>
      runCli([...args, '--config', CONFIG, '--data-dir', join(dir, 'cli')], { timeoutMs: 60_000 })
    expect((await cli(['migrate'])).code).toBe(0)
    await startReplica(0)
    await startReplica(1)
    email = `lb-${randomBytes(4).toString('hex')}@example.com`
    expect((await cli(['account', 'create', '--email', email, '--plan', 'dev', '--json'])).code).toBe(0)
    const k = await cli(['key', 'create', '--account', email, '--name', 'k', '--json'])
    expect(k.code, k.stderr).toBe(0)
    key = (k.json() as { key: string }).key
    lb = await startHaproxy([`127.0.0.1:${ports[0]}`, `127.0.0.1:${ports[1]}`], OPS_TOKEN)
    await waitFor(async () => (await call(lb.url + path())) === 200, 20_000, 'a call through HAProxy')
  }, 300_000)

  afterAll(async () => {
    await lb?.stop()
    await cleanupProcesses()
    await node?.close()
    await schema?.drop()
    removeDirs([dir])
  }, 120_000)

  it('a WebSocket through HAProxy is upgraded, stays on one replica and answers calls', async () => {
    const ws = new WebSocket(`${lb.url.replace('http', 'ws')}/networks/mainnet/ws/v3/${key}`)
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    const answers: unknown[] = []
    ws.on('message', (m) => answers.push(JSON.parse(String(m))))
    for (let id = 1; id <= 3; id++) ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] }))
    await waitFor(() => answers.length === 3, 10_000, 'three answers')
    expect(answers).toEqual([1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, result: '0x1' })))
    ws.close()
  }, 60_000)

  it('the operator endpoints and the admin API are not served to clients through HAProxy, however spelled', async () => {
    // A raw request line: a URL parser (undici's included) would resolve "/x/../metrics" before sending it.
    const get = (origin: string, target: string, headers: Record<string, string>) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const { hostname, port } = new URL(origin)
        const lines = [`GET ${target} HTTP/1.1`, `host: ${hostname}`, 'connection: close']
        for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`)
        let answer = ''
        const socket = connect(Number(port), hostname, () => socket.write(`${lines.join('\r\n')}\r\n\r\n`))
        socket.on('data', (c: Buffer) => (answer += c.toString()))
        socket.on('error', reject)
        socket.on('close', () =>
          resolve({ status: Number(answer.split(' ')[1]), body: answer.slice(answer.indexOf('\r\n\r\n') + 4) }),
        )
      })
    // Spellings chaingate's router serves (it decodes %xx): each answers 200 on the replica itself, with the token.
    const ops = ['/metrics', '/healthz', '/readyz', '/livez', '/startupz', '/%6detrics', '/%6Detrics', '/%68ealthz']
    ops.push('/%6c%69%76%65%7a', '/%72eadyz?x=1', '/%73tartupz')
    const admin = ['/admin/v1/plans', '/%61dmin/v1/plans', '/admin/%761/plans', '/admin/v1/%70lans']
    admin.push('/admin/v1/openapi.json')
    for (const [path, headers] of [...ops.map((p) => [p, OPS] as const), ...admin.map((p) => [p, ADMIN] as const)]) {
      expect((await get(`http://127.0.0.1:${ports[0]}`, path, headers)).status, `${path} on the replica`).toBe(200)
      const through = await get(lb.url, path, headers)
      expect(through.status, path).toBe(404)
      expect(through.body, `${path}: refused by HAProxy`).toContain('<h1>404 Not Found</h1>')
    }
    // Other spellings a router might normalise (chaingate's does not): refused by HAProxy all the same.
    const refused: Record<string, number> = {
      '//metrics': 404,
      '/metrics/': 404,
      '/./metrics': 404,
      '/.%2fhealthz': 404,
      '/METRICS': 404,
      '/Healthz': 404,
      '/metrics;x': 404,
      '//admin/v1/plans': 404,
      '/admin//v1/plans': 404,
      '/ADMIN/v1/plans': 404,
      '/admin/v1': 404,
      '/x/../metrics': 400,
      '/%2e%2e/admin/v1/plans': 400,
      '/%6detrics%zz': 400,
    }
    for (const [path, status] of Object.entries(refused)) {
      const through = await get(lb.url, path, OPS)
      expect(through.status, path).toBe(status)
      expect(through.body, `${path}: refused by HAProxy`).toContain(`<h1>${status} `)
    }
    // Calls and the dashboard still pass, encoded or not.
    expect(await call(`${lb.url}/networks/%6dainnet/v3/${key}`)).toBe(200)
    expect((await get(lb.url, '/login', {})).status).toBe(200)
  })

  it("the client's address reaches chaingate through X-Forwarded-For (trustProxy), a forged one does not", async () => {
    // From 127.0.0.2 (a loopback address of its own), claiming to be 203.0.113.9: HAProxy replaces the header.
    const from2 = new Agent({ localAddress: '127.0.0.2' })
    const headers = { 'x-forwarded-for': '203.0.113.9' }
    const page = await request(`${lb.url}/signup`, { headers, dispatcher: from2 })
    const html = await page.body.text()
    const cookie = String(page.headers['set-cookie']).split(';')[0]!
    const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1]
    expect(csrf, html).toBeDefined()
    // Signing up with an existing email is answered like a new one and logged with the client's address.
    const res = await request(`${lb.url}/signup`, {
      method: 'POST',
      headers: { ...headers, cookie, origin: lb.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf!, email, password: 'a long enough password 123' }).toString(),
      dispatcher: from2,
    })
    await res.body.text()
    expect(res.statusCode).toBe(303)
    const logged = () =>
      replicas.flatMap((r) =>
        (r?.stdout() ?? '')
          .split('\n')
          .filter((l) => l.includes('sign-up for an existing email'))
          .map((l) => JSON.parse(l).ip as string),
      )
    await waitFor(() => logged().length > 0, 5000, 'the sign-up logged')
    expect(logged()).toEqual(['127.0.0.2'])
    await from2.close()
  }, 60_000)

  it('rolling restart through HAProxy: each replica drained (/readyz 503) and restarted in turn, no failed call', async () => {
    const ws = new WebSocket(`${lb.url.replace('http', 'ws')}/networks/mainnet/ws/v3/${key}`)
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    const wsClosed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)))
    let done = false
    const failed: string[] = []
    let ok = 0
    const clients = Array.from({ length: 6 }, async () => {
      while (!done)
        try {
          const status = await call(lb.url + path())
          if (status === 200) ok++
          else failed.push(`HTTP ${status}`)
        } catch (err) {
          failed.push(String((err as Error).message))
        }
    })
    try {
      for (const i of [0, 1]) {
        const exit = await replicas[i]!.signal('SIGTERM', 60_000)
        expect(exit.code).toBe(0)
        await startReplica(i)
        await ready(i)
        await sleep(1500) // HAProxy's `rise 2` checks, 500 ms apart, before the next one goes
      }
    } finally {
      done = true
      await Promise.all(clients)
    }
    expect(failed).toEqual([])
    expect(ok).toBeGreaterThan(50)
    expect(await wsClosed).toBe(1001)
  }, 300_000)

  it('a replica SIGKILLed under load: no failed read through HAProxy (retried on the other replica)', async () => {
    let done = false
    const failed: string[] = []
    let ok = 0
    const clients = Array.from({ length: 6 }, async () => {
      while (!done)
        try {
          const status = await call(lb.url + path())
          if (status === 200) ok++
          else failed.push(`HTTP ${status}`)
        } catch (err) {
          failed.push(String((err as Error).message))
        }
    })
    await sleep(1000)
    const before = ok
    process.kill(replicas[0]!.pid, 'SIGKILL')
    await sleep(2500)
    done = true
    await Promise.all(clients)
    expect(failed).toEqual([])
    expect(ok - before).toBeGreaterThan(20)
  }, 120_000)
})
