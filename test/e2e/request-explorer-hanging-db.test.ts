/**
 * The request explorer never makes a call wait for the database (docs/requests.md): with PostgreSQL hanging (a
 * network partition: connections open, nothing answered), calls are served as fast as before, the recorder's
 * buffer keeps the newest records and counts the oldest it dropped, and once the database answers again new
 * records are written.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { queryRequests } from '../../src/usage/requests/queries.ts'
import { startFakeNode, type FakeNode } from '../support/fake-node.ts'
import { createPgTestSchema, describeWithServices, type PgTestSchema } from '../support/services.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

const CHAIN = '0x7a6d'

describeWithServices(['postgres'], 'request explorer on a hanging PostgreSQL', () => {
  let node: FakeNode
  let schema: PgTestSchema
  let proxy: TcpProxy
  let s: TestServer
  beforeAll(async () => {
    node = await startFakeNode(CHAIN)
    schema = await createPgTestSchema('requests_hang')
    const real = new URL(schema.url)
    proxy = await startTcpProxy({ host: real.hostname, port: Number(real.port || 5432) })
    const viaProxy = new URL(schema.url)
    viaProxy.hostname = '127.0.0.1'
    viaProxy.port = String(proxy.port)
    s = await startTestServer({
      database: { url: viaProxy.toString() },
      requests: { bufferRows: 100 },
      networks: [{ name: 'remote', chainId: 31341, upstreams: [{ url: node.url }] }],
    })
  })
  afterAll(async () => {
    await proxy?.restore()
    await s?.stop()
    await proxy?.close()
    await schema?.drop()
    await node?.close()
  })

  const timedCalls = async (n: number) => {
    const times: number[] = []
    for (let i = 0; i < n; i++) {
      const t = performance.now()
      const res = await s.rpc(call('eth_getBalance', [`0x${String(i).padStart(40, '0')}`, 'latest']), {
        network: 'remote',
      })
      times.push(performance.now() - t)
      expect(res.status).toBe(200)
    }
    return times.sort((a, b) => a - b)
  }

  it('calls are not slowed; the oldest records are dropped and counted; writing resumes after', async () => {
    const before = await timedCalls(50)
    await s.parts.requests!.flush()
    expect((await queryRequests(s.parts.database.db, { keyId: s.key.id, limit: 1000 })).rows).toHaveLength(50)

    proxy.freeze()
    // Let a flush start on the frozen connection.
    await new Promise((r) => setTimeout(r, 300))
    const during = await timedCalls(300)
    const health = s.parts.requests!.health()
    expect(health.bufferedRows).toBe(100)
    // 300 calls: the newest 100 held, a few in the hung write, the rest dropped.
    expect(health.droppedCalls).toBeGreaterThanOrEqual(100)
    // The median call costs what it cost before (a few ms); none waited for the database (its write hangs 30 s).
    const median = (xs: number[]) => xs[Math.floor(xs.length / 2)]!
    expect(median(during)).toBeLessThan(Math.max(50, 5 * median(before)))
    expect(during.at(-1)!).toBeLessThan(2000)
    const metrics = await (await fetch(`${s.url}/metrics`)).text()
    const dropped = Number(/^chaingate_request_log_dropped_total (\d+)$/m.exec(metrics)?.[1])
    expect(dropped).toBeGreaterThanOrEqual(health.droppedCalls)
    expect(metrics).toMatch(/^chaingate_request_log_buffered_rows \d+$/m)

    await proxy.restore()
    await timedCalls(5)
    // The hung write fails once the frozen connection is cut; the next flush writes on a new connection.
    await s.parts.requests!.flush()
    await s.parts.requests!.flush()
    const rows = (await queryRequests(s.parts.database.db, { keyId: s.key.id, limit: 1000 })).rows
    expect(rows.length).toBeGreaterThanOrEqual(55)
  }, 120_000)
})
