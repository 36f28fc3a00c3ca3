import { expect, test } from 'vitest'
import { clientAddressResolver } from './client-address.ts'

test('off: the socket peer, whatever X-Forwarded-For claims', () => {
  const at = clientAddressResolver(false)
  expect(at('::ffff:10.0.0.5', '1.2.3.4')).toBe('10.0.0.5')
  expect(at('203.0.113.9', undefined)).toBe('203.0.113.9')
})

test('trusted proxies: the first untrusted address walking back from the peer', () => {
  const at = clientAddressResolver('10.0.0.0/8, 127.0.0.1')
  // The balancer (10.0.0.5) appended the client; a client-sent entry further left is not believed.
  expect(at('10.0.0.5', '6.6.6.6, 198.51.100.7')).toBe('198.51.100.7')
  expect(at('10.0.0.5', '6.6.6.6, 198.51.100.7, 10.1.2.3')).toBe('198.51.100.7')
  // A peer that is not a trusted proxy: its own address.
  expect(at('198.51.100.8', '6.6.6.6')).toBe('198.51.100.8')
  // Every hop trusted: the furthest one.
  expect(at('127.0.0.1', '10.0.0.9')).toBe('10.0.0.9')
  expect(at('127.0.0.1', undefined)).toBe('127.0.0.1')
})

test('true trusts every hop; names and lists as fastify takes them', () => {
  expect(clientAddressResolver(true)('10.0.0.5', '6.6.6.6, 198.51.100.7')).toBe('6.6.6.6')
  const named = clientAddressResolver(['loopback', 'uniquelocal'])
  expect(named('::1', '192.168.1.2, 203.0.113.1')).toBe('203.0.113.1')
  expect(() => clientAddressResolver('not-an-ip')).toThrow(/gateway.trustProxy/)
})
