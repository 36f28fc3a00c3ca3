import { expect, it } from 'vitest'
import { openDatabase } from '../db/database.ts'
import { createPgTestSchema, describeWithServices, postgresUrl } from '../../test/support/services.ts'
import { startTcpProxy } from '../../test/support/tcp-proxy.ts'
import { createUsageLedger } from './ledger.ts'
import { createPostgresUsageWriter } from './writers.ts'

const T0 = Date.parse('2026-03-01T10:15:00Z')
const _HOUR = 3_600_000
const rec = (over: Record<string, unknown> = {}) => ({
  accountId: 'acc',
  keyId: 'k1',
  network: 'net-a',
  method: 'eth_call',
  calls: 1,
  credits: 80,
  errors: 0,
  ...over,
})

describeWithServices(['postgres'], 'usage ledger on a hanging PostgreSQL connection', () => {
  it('a write on a connection that hangs fails after the write timeout, keeps its rows, and the next flush after the hang writes them on a new connection', async () => {
    const schema = await createPgTestSchema('ledger_hang')
    const real = new URL(postgresUrl)
    const proxy = await startTcpProxy({ host: real.hostname, port: Number(real.port || 5432) })
    const viaProxy = new URL(schema.url)
    viaProxy.hostname = '127.0.0.1'
    viaProxy.port = String(proxy.port)
    const opened = await openDatabase({ url: viaProxy.toString(), file: ':memory:', poolSize: 2 })
    try {
      const failures: unknown[] = []
      const ledger = createUsageLedger(createPostgresUsageWriter(opened.pool!, { timeoutMs: 500 }), 60_000, (err) =>
        failures.push(err),
      )
      ledger.record(rec(), T0)
      await ledger.flush() // a pooled connection now exists; it will hang below
      proxy.freeze()
      ledger.record(rec({ credits: 20 }), T0)
      const started = Date.now()
      await ledger.flush()
      // the write timeout (0.5 s) or the connect timeout (5 s), not forever
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(failures).toHaveLength(1)
      expect(ledger.health!()).toMatchObject({ ok: false, bufferedRows: 1 })
      await proxy.restore()
      await ledger.flush()
      expect(ledger.health!()).toMatchObject({ ok: true, bufferedRows: 0 })
      const rows = await opened.db.selectFrom('usage_hourly').select(['calls', 'credits']).execute()
      expect(rows).toEqual([{ calls: 2, credits: 100 }])
    } finally {
      await opened.close()
      await proxy.close()
      await schema.drop()
    }
  })
})
