import { describe, expect, it } from 'vitest'
import { parseConfig } from '../config/load.ts'
import { createLogger } from '../observability/logger.ts'
import { roleOptions } from './roles.ts'

const logger = createLogger('silent')
const config = () =>
  parseConfig({
    gateway: { host: '0.0.0.0', port: 8545, operations: { listen: { host: '0.0.0.0', port: 9100 } } },
  })

describe('roles: which parts each process runs', () => {
  it('single process: gateway, dashboard, admin API, wallet and usage alerts on the configured listeners', () => {
    const c = config()
    const o = roleOptions({ kind: 'single' }, c, logger)
    expect(o.parts).toEqual({ dashboard: true, wallet: true, admin: true, alerts: true })
    expect(o.config).toBe(c)
    expect(o.embeddedUrls).toBeUndefined()
  })

  it('cluster primary: the wallet only, its gateway on an internal port; the caller config is not changed', () => {
    const c = config()
    const o = roleOptions({ kind: 'cluster-primary' }, c, logger)
    expect(o.parts).toEqual({ wallet: true })
    expect(o.config.gateway).toMatchObject({ host: '127.0.0.1', port: 0 })
    expect(o.config.gateway.operations.listen).toBeNull()
    expect(c.gateway).toMatchObject({ host: '0.0.0.0', port: 8545 })
    expect(c.gateway.operations.listen).toEqual({ host: '0.0.0.0', port: 9100 })
  })

  it("cluster worker: gateway, dashboard, admin API and usage alerts on the public listener, over the primary's chains", () => {
    const c = config()
    const embeddedUrls = new Map([['devnet-a', { url: 'http://127.0.0.1:1', wsUrl: 'ws://127.0.0.1:1' }]])
    const o = roleOptions({ kind: 'cluster-worker', embeddedUrls }, c, logger)
    expect(o.parts).toEqual({ dashboard: true, admin: true, alerts: true })
    expect(o.config).toBe(c)
    expect(o.embeddedUrls).toBe(embeddedUrls)
  })
})
