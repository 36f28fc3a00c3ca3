/** The activity list's one-line summaries, from requests as approvals stored them (any shape: stored JSON). */
import { expect, test } from 'vitest'
import { activitySummary } from './activity.ts'

test('a session lists its chains, or says it has none, whatever was stored', () => {
  expect(activitySummary('session', { scopes: { 'eip155:1': {}, 'eip155:10': {} } })).toBe(
    'session for eip155:1, eip155:10',
  )
  for (const request of [
    {},
    { scopes: null },
    { scopes: 'eip155:1' },
    { scopes: ['eip155:1'] },
    null,
    undefined,
    'text',
    7,
  ])
    expect(activitySummary('session', request)).toBe('session for no chains')
})

test('a message, typed data and an unknown kind', () => {
  const address = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
  expect(activitySummary('personal_sign', { scope: 'eip155:31337', address, message: 'hello' })).toBe('message "hello"')
  const typedData = { types: {}, primaryType: 'Mail', domain: { chainId: 31337 }, message: {} }
  expect(activitySummary('eth_signTypedData_v4', { scope: 'eip155:31337', address, typedData })).toBe('typed data Mail')
  expect(activitySummary('something_else', {})).toBe('something_else')
})
