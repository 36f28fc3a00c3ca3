import { describe, expect, it } from 'vitest'
import { createNetworkRegistry } from '../networks/registry.ts'
import { matchRpcPath } from './rpc-route.ts'

const networks = createNetworkRegistry([
  { name: 'devnet-a', chainId: 1, embedded: { port: 0, blockTimeSeconds: 0 } },
  { name: 'devnet-b', chainId: 2, embedded: { port: 0, blockTimeSeconds: 0 } },
] as never)
const KEY = '0123456789abcdef0123456789abcdef'
const match = (url: string, host = 'devnet-a.localhost') => {
  const t = matchRpcPath(url, host, networks)
  return t && { network: t.network?.name, label: t.label, key: t.key }
}

describe('matchRpcPath', () => {
  it('takes the network from the Host on /v3/<key>', () => {
    expect(match(`/v3/${KEY}`)).toEqual({ network: 'devnet-a', label: 'devnet-a.localhost', key: KEY })
    expect(match(`/v3/${KEY}?x=1`)).toEqual({ network: 'devnet-a', label: 'devnet-a.localhost', key: KEY })
    expect(match(`/v3/${KEY}`, 'devnet-b.localhost:8545')).toMatchObject({ network: 'devnet-b', key: KEY })
    expect(match(`/v3/${KEY}`, 'elsewhere.example')).toMatchObject({ network: undefined, label: 'elsewhere.example' })
  })

  it('takes the network from the path on /networks/<name>/v3/<key>', () => {
    expect(match(`/networks/devnet-b/v3/${KEY}`)).toEqual({ network: 'devnet-b', label: 'devnet-b', key: KEY })
    expect(match(`/networks/devnet-b/v3/${KEY}?a=b`)).toEqual({ network: 'devnet-b', label: 'devnet-b', key: KEY })
    expect(match(`/networks/devnet-%62/v3/${KEY}`)).toMatchObject({ network: 'devnet-b', label: 'devnet-b' })
    expect(match(`/networks/%E0%A4%A/v3/${KEY}`)).toMatchObject({ network: undefined, label: '%E0%A4%A' }) // malformed escape
    expect(match(`/networks/nope/v3/${KEY}`)).toMatchObject({ network: undefined, label: 'nope', key: KEY })
  })

  it('has no key when it is missing or followed by more path (401 "project id required")', () => {
    for (const url of ['/v3', '/v3/', `/v3/${KEY}/`, `/v3/${KEY}/more`, '/v3?x=/y', '/networks/devnet-a/v3', '/networks/devnet-a/v3/', `/networks/devnet-a/v3/${KEY}/`])
      expect(match(url), url).toMatchObject({ key: undefined })
    expect(match('/v3?k=/')?.network).toBe('devnet-a')
  })

  it('is not an RPC path otherwise', () => {
    for (const url of ['/', '/v3x', `/v33/${KEY}`, '/healthz', '/networks/', '/networks/devnet-a', '/networks/devnet-a/v4/x', `/networks/devnet-a/v3x/${KEY}`, '/networks?x=/v3/'])
      expect(match(url), url).toBeUndefined()
  })
})
