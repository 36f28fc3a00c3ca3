import { describe, expect, it } from 'vitest'
import { parseConfig } from '../config/load.ts'
import type { ApiKey } from './repository.ts'
import { endpointUrls } from './view.ts'

const key = { key: 'k'.repeat(32), networks: ['devnet-a'] } as ApiKey

describe('endpointUrls (chaingate key show, the admin API)', () => {
  it("the gateway's bind address by default", () => {
    const config = parseConfig({ gateway: { host: '127.0.0.1', port: 8545 } }, 'test')
    expect(endpointUrls(key, config)['devnet-a']!.http).toBe(`http://127.0.0.1:8545/networks/devnet-a/v3/${key.key}`)
  })

  it('dashboard.publicBaseUrl when set: a 0.0.0.0 bind is not an address clients can use', () => {
    const config = parseConfig(
      { gateway: { host: '0.0.0.0', port: 8545 }, dashboard: { publicBaseUrl: 'https://rpc.example.com' } },
      'test',
    )
    expect(endpointUrls(key, config)['devnet-a']).toEqual({
      http: `https://rpc.example.com/networks/devnet-a/v3/${key.key}`,
      ws: `wss://rpc.example.com/networks/devnet-a/ws/v3/${key.key}`,
      host: `https://devnet-a.localhost/v3/${key.key}`,
    })
  })
})
