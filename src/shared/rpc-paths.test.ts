import { describe, expect, it } from 'vitest'
import { defaultHostname, matchRpcPath, rpcUrl } from './rpc-paths.ts'

const KEY = '0123456789abcdef0123456789abcdef'

describe('matchRpcPath', () => {
  it('matches the four RPC forms', () => {
    expect(matchRpcPath(`/v3/${KEY}`, 'http')).toEqual({ form: 'host', network: undefined, key: KEY })
    expect(matchRpcPath(`/networks/devnet-a/v3/${KEY}?x=1`, 'http')).toEqual({
      form: 'path',
      network: 'devnet-a',
      key: KEY,
    })
    expect(matchRpcPath(`/ws/v3/${KEY}`, 'ws')).toEqual({ form: 'host', network: undefined, key: KEY })
    expect(matchRpcPath(`/networks/devnet-a/ws/v3/${KEY}`, 'ws')).toEqual({
      form: 'path',
      network: 'devnet-a',
      key: KEY,
    })
  })

  it('keeps the transports apart', () => {
    expect(matchRpcPath(`/ws/v3/${KEY}`, 'http')).toBeUndefined()
    expect(matchRpcPath(`/v3/${KEY}`, 'ws')).toBeUndefined()
    expect(matchRpcPath(`/networks/devnet-a/ws/v3/${KEY}`, 'http')).toBeUndefined()
    expect(matchRpcPath(`/networks/devnet-a/v3/${KEY}`, 'ws')).toBeUndefined()
    // The URL the dashboard used to show: never an RPC path.
    expect(matchRpcPath(`/ws/networks/devnet-a/v3/${KEY}`, 'ws')).toBeUndefined()
  })

  it('has no key when it is missing or followed by more path', () => {
    for (const t of ['http', 'ws'] as const) {
      const v = t === 'ws' ? '/ws/v3' : '/v3'
      for (const url of [
        v,
        `${v}/`,
        `${v}/${KEY}/`,
        `${v}/${KEY}/more`,
        `/networks/devnet-a${v}`,
        `/networks/devnet-a${v}/${KEY}/x`,
      ])
        expect(matchRpcPath(url, t), `${t} ${url}`).toMatchObject({ key: undefined })
    }
  })

  it('is not an RPC path otherwise', () => {
    for (const url of ['/', '/v3x', '/ws/v3x', '/networks/', '/networks//ws/v3/k', '/networks/a/ws/v4/k', '/healthz'])
      expect(matchRpcPath(url, 'ws'), url).toBeUndefined()
  })
})

describe('rpcUrl', () => {
  const base = 'https://gw.example:8443/prefix/'
  it('builds every form from one base', () => {
    const o = { base, network: 'devnet-a', key: KEY }
    expect(rpcUrl({ ...o, transport: 'http', form: 'path' })).toBe(
      `https://gw.example:8443/prefix/networks/devnet-a/v3/${KEY}`,
    )
    expect(rpcUrl({ ...o, transport: 'ws', form: 'path' })).toBe(
      `wss://gw.example:8443/prefix/networks/devnet-a/ws/v3/${KEY}`,
    )
    expect(rpcUrl({ ...o, transport: 'http', form: 'host' })).toBe(`https://devnet-a.localhost:8443/prefix/v3/${KEY}`)
    expect(rpcUrl({ ...o, transport: 'ws', form: 'host', host: 'a.example:9' })).toBe(
      `wss://a.example:9/prefix/ws/v3/${KEY}`,
    )
  })

  it('builds URLs the matcher accepts', () => {
    for (const transport of ['http', 'ws'] as const)
      for (const form of ['host', 'path'] as const) {
        const u = new URL(rpcUrl({ base: 'http://127.0.0.1:8545', network: 'devnet-b', key: KEY, transport, form }))
        expect(matchRpcPath(u.pathname, transport)).toEqual({
          form,
          network: form === 'path' ? 'devnet-b' : undefined,
          key: KEY,
        })
        if (form === 'host') expect(u.hostname).toBe(defaultHostname('devnet-b'))
      }
  })
})
