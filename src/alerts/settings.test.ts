import { describe, expect, it } from 'vitest'
import { checkWebhookUrl, newSecret, parseRefusalRate, parseThresholds } from './settings.ts'

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
    expect(checkWebhookUrl('https://hooks.example.com/x', null)).toBe('https://hooks.example.com/x')
    for (const bad of ['ftp://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url'])
      expect(() => checkWebhookUrl(bad, null)).toThrow(/webhookUrl/)
    expect(() => checkWebhookUrl('https://u:p@example.com/', null)).toThrow(/user or password/)
    const allowed = ['hooks.example.com', '*.corp.example']
    expect(checkWebhookUrl('https://a.b.corp.example/h', allowed)).toBe('https://a.b.corp.example/h')
    expect(() => checkWebhookUrl('http://169.254.169.254/latest', allowed)).toThrow(/allowedHosts/)
    expect(() => checkWebhookUrl('https://corp.example.evil.com/', allowed)).toThrow(/allowedHosts/)
  })

  it('secrets are long and random', () => {
    const a = newSecret()
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/)
    expect(newSecret()).not.toBe(a)
  })
})
