import { describe, expect, test } from 'vitest'
import { hostnameOf, hostPolicy, isLoopbackListener } from './host-names.ts'

describe('host names', () => {
  test('behavior: Host values are reduced to a normalized hostname; malformed ones to undefined', () => {
    expect(hostnameOf('LocalHost:8545')).toBe('localhost')
    expect(hostnameOf('localhost.')).toBe('localhost')
    expect(hostnameOf('[::1]:8545')).toBe('[::1]')
    expect(hostnameOf('0x7f.1')).toBe('127.0.0.1')
    expect(hostnameOf('a@evil.example')).toBeUndefined()
    expect(hostnameOf('evil.example/x')).toBeUndefined()
    expect(hostnameOf('')).toBeUndefined()
  })

  test('behavior: loopback listeners are told apart from the rest', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', undefined])
      expect([h, isLoopbackListener(h)]).toEqual([h, true])
    for (const h of ['0.0.0.0', '::', '192.168.1.5', 'rpc.example.com'])
      expect([h, isLoopbackListener(h)]).toEqual([h, false])
  })

  test('behavior: the loopback default admits local names, network hosts and the public base URL only', () => {
    const allowed = hostPolicy({
      listenHost: '127.0.0.1',
      networks: [{ name: 'a' }, { name: 'b', hosts: ['b.example.org:8545'] }],
      publicBaseUrl: 'https://rpc.example.com',
    })!
    for (const h of [
      'localhost',
      'x.localhost',
      '127.0.0.1',
      '[::1]',
      'a.localhost',
      'b.example.org',
      'rpc.example.com',
    ])
      expect([h, allowed(h)]).toEqual([h, true])
    for (const h of ['evil.example', 'localhost.evil.example', 'b.example.org.evil', '192.168.1.5'])
      expect([h, allowed(h)]).toEqual([h, false])
    expect(hostPolicy({ listenHost: '0.0.0.0', networks: [] })).toBeNull()
    expect(hostPolicy({ listenHost: '127.0.0.1', allowedHosts: ['*'], networks: [] })).toBeNull()
  })
})
