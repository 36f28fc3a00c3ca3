import { describe, expect, it } from 'vitest'
import { parseConfig } from './load.ts'
import { redactedConfig, redactUrl } from './show.ts'

describe('config show: the effective config with secrets redacted', () => {
  it('node URLs keep scheme and host; database and Redis URLs lose their password', () => {
    expect(redactUrl('https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef')).toBe(
      'https://mainnet.infura.io/…',
    )
    expect(redactUrl('wss://user:pw@node.example:8546')).toBe('wss://node.example:8546/…')
    expect(redactUrl('http://127.0.0.1:8545')).toBe('http://127.0.0.1:8545')
    expect(redactUrl('postgres://app:hunter2@db:5432/chaingate')).toBe('postgres://app:***@db:5432/chaingate')
    expect(redactUrl('redis://:hunter2@cache:6379')).toBe('redis://:***@cache:6379')
  })

  it('no secret of a full config survives; the rest is the effective config with defaults', () => {
    const config = parseConfig({
      networks: [
        {
          name: 'mainnet',
          chainId: 1,
          upstreams: [
            { url: 'https://eth.example/rpc?apikey=PROVIDERKEY123', wsUrl: 'wss://eth.example/ws/PROVIDERKEY123' },
          ],
        },
      ],
      database: { url: 'postgres://app:DBPASSWORD99@db:5432/chaingate' },
      redis: { url: 'redis://:REDISPASSWORD99@cache:6379' },
      gateway: { operations: { token: 'OPERATIONSTOKEN-0123456789' } },
    })
    const text = JSON.stringify(redactedConfig(config))
    for (const secret of ['PROVIDERKEY123', 'DBPASSWORD99', 'REDISPASSWORD99', 'OPERATIONSTOKEN-0123456789'])
      expect(text).not.toContain(secret)
    const shown = redactedConfig(config) as typeof config
    expect(shown.gateway.port).toBe(8545)
    expect(shown.networks[0]!.upstreams![0]!.url).toBe('https://eth.example/…')
    expect(shown.gateway.operations.token).toBe('***')
  })
})
