import { describe, expect, test } from 'vitest'
import { resolveOrigin } from './server.ts'

describe('origin of a wallet connection', () => {
  test('the Origin header wins and is normalised', () => {
    expect(resolveOrigin('https://App.example:443', undefined)).toEqual({ origin: 'https://app.example' })
    expect(resolveOrigin('http://127.0.0.1:3000', 'http://127.0.0.1:3000')).toEqual({ origin: 'http://127.0.0.1:3000' })
  })
  test('a non-browser dapp declares one with ?origin=', () => {
    expect(resolveOrigin(undefined, 'my-bot')).toEqual({ origin: 'my-bot' })
    expect(resolveOrigin(undefined, 'https://bot.example/path')).toEqual({ origin: 'https://bot.example' })
  })
  test('missing, opaque, malformed or conflicting origins are refused', () => {
    expect(resolveOrigin(undefined, undefined)).toHaveProperty('error')
    expect(resolveOrigin('null', undefined)).toHaveProperty('error')
    expect(resolveOrigin(undefined, 'has space')).toHaveProperty('error')
    expect(resolveOrigin(undefined, 'x'.repeat(300))).toHaveProperty('error')
    expect(resolveOrigin('https://a.example', 'https://b.example')).toHaveProperty('error')
  })
})
