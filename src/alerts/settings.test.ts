import { describe, expect, it } from 'vitest'
import { isPrivateAddress } from './egress.ts'
import {
  checkWebhookUrl,
  maskWebhookUrl,
  newSecret,
  parseRefusalRate,
  parseThresholds,
  storedUrlProblem,
  webhookChangeSummary,
} from './settings.ts'

describe('alert settings rules', () => {
  it('thresholds are whole percentages 1..100, deduplicated and sorted', () => {
    expect(parseThresholds('100, 80,80')).toEqual([80, 100])
    expect(parseThresholds([50])).toEqual([50])
    expect(parseThresholds('')).toEqual([])
    for (const bad of ['0', '101', '80.5', 'x', '-5']) expect(() => parseThresholds(bad)).toThrow(/creditThresholds/)
  })

  it('a refusal rate is a positive whole number, or none', () => {
    expect(parseRefusalRate('120')).toBe(120)
    expect(parseRefusalRate('none')).toBeNull()
    expect(parseRefusalRate(0)).toBeNull()
    expect(() => parseRefusalRate('1.5')).toThrow(/refusalsPerMinute/)
  })

  it('webhooks: http(s) only, no credentials in the URL, hosts from alerts.allowedHosts', () => {
    const any = { allowedHosts: null }
    expect(checkWebhookUrl('https://hooks.example.com/x', any)).toBe('https://hooks.example.com/x')
    for (const bad of ['ftp://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url'])
      expect(() => checkWebhookUrl(bad, any)).toThrow(/webhookUrl/)
    expect(() => checkWebhookUrl('https://u:p@example.com/', any)).toThrow(/user or password/)
    const allowed = { allowedHosts: ['hooks.example.com', '*.corp.example'] }
    expect(checkWebhookUrl('https://a.b.corp.example/h', allowed)).toBe('https://a.b.corp.example/h')
    expect(() => checkWebhookUrl('http://169.254.169.254/latest', allowed)).toThrow(/allowedHosts/)
    expect(() => checkWebhookUrl('https://corp.example.evil.com/', allowed)).toThrow(/allowedHosts/)
  })

  it('webhooks: no private, loopback or link-local address in any spelling, unless allowPrivateTargets', () => {
    const rules = { allowedHosts: null }
    // Every numeric spelling reaches URL.hostname normalized (WHATWG URL), so one check sees them all.
    const refused = [
      '127.0.0.1',
      '127.1',
      '0x7f000001',
      '2130706433',
      '0177.0.0.1',
      '127.0.0.1.',
      '[::ffff:127.0.0.1]',
      '[::127.0.0.1]',
      '[::1]',
      '[::]',
      '0',
      'localhost',
      'LOCALHOST.',
      'api.localhost',
      '169.254.169.254',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '100.64.0.1',
      '[fd00::1]',
      '[fe80::1]',
      '[64:ff9b::10.0.0.1]',
      '224.0.0.1',
      '255.255.255.255',
    ]
    for (const host of refused) {
      expect(() => checkWebhookUrl(`http://${host}:8080/hook`, rules), host).toThrow(/allowPrivateTargets/)
      expect(checkWebhookUrl(`http://${host}:8080/hook`, { ...rules, allowPrivateTargets: true })).toMatch(/^http:/)
    }
    for (const host of ['8.8.8.8', '[2606:4700::1111]', 'hooks.example.com', '172.32.0.1', '100.128.0.1'])
      expect(checkWebhookUrl(`http://${host}/hook`, rules)).toMatch(/^http:/)
  })

  it('addresses: the private ranges, their IPv4-mapped, compatible, NAT64 and 6to4 forms', () => {
    for (const ip of ['127.0.0.1', '::ffff:7f00:1', '::ffff:a00:1', '64:ff9b::a9fe:a9fe', '2002:a00:1::1', 'fc00::1'])
      expect(isPrivateAddress(ip), ip).toBe(true)
    for (const ip of ['ff02::1', 'fe80::1%eth0', '0.1.2.3', '192.0.0.8', '198.19.0.1', 'not-an-ip'])
      expect(isPrivateAddress(ip), ip).toBe(true)
    for (const ip of ['1.1.1.1', '::ffff:101:101', '64:ff9b::101:101', '2002:101:101::1', '2606:4700::1111'])
      expect(isPrivateAddress(ip), ip).toBe(false)
  })

  it('a stored URL is judged by the current rules', () => {
    expect(storedUrlProblem('https://hooks.example.com/x', { allowedHosts: null })).toBeUndefined()
    expect(storedUrlProblem('https://hooks.example.com/x', { allowedHosts: ['other.example'] })).toMatch(/allowedHosts/)
    expect(storedUrlProblem('http://127.0.0.1:9/x', { allowedHosts: null })).toMatch(/allowPrivateTargets/)
    expect(storedUrlProblem('http://127.0.0.1:9/x', { allowedHosts: null, allowPrivateTargets: true })).toBeUndefined()
  })

  it('audit: a webhook URL without its credentials, query values or path tokens', () => {
    expect(maskWebhookUrl('https://hooks.example.com/chaingate')).toBe('https://hooks.example.com/chaingate')
    expect(maskWebhookUrl('https://u:pw@h.example/a?token=s3cret&x=1#frag')).toBe(
      'https://***@h.example/a?token=***&x=***',
    )
    expect(maskWebhookUrl('https://hooks.slack.com/services/T0001/B0001/XXXXXXXXXXXXXXXXXXXXXXXX')).toBe(
      'https://hooks.slack.com/services/T0001/B0001/XXXX…',
    )
    expect(maskWebhookUrl(null)).toBe('none')
    expect(webhookChangeSummary(null, 'https://a.example/h?k=v')).toBe('webhook https://a.example/h?k=*** (was none)')
    expect(webhookChangeSummary('https://a.example/h', 'https://a.example/h')).toBe('')
  })

  it('secrets are long and random', () => {
    const a = newSecret()
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/)
    expect(newSecret()).not.toBe(a)
  })
})
