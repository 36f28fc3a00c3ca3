import { describe, expect, test } from 'vitest'
import { isWalletRpcError } from './errors.ts'
import {
  eip155ChainIdOf,
  isValidScope,
  mergeScopeMaps,
  normalizeScopes,
  removeAccount,
  removeScopes,
  validateCreateSessionParams,
} from './scopes.ts'
import { buildProposal, grantSession, parseSessionProperties } from './session-proposal.ts'

const A = '0x5cfe73b6021e818b776b421b1c4db2474086a7e1'
const B = '0x09781764c08de8ca82e156bbf156a3ca217c7950'
const ctx = {
  servedChainIds: new Set([1, 137]),
  servedSolanaChains: new Set<string>(),
  walletAddresses: [A.toUpperCase().replace('0X', '0x'), B],
  now: 0,
}

function codeOf(fn: () => unknown): number | undefined {
  try {
    fn()
  } catch (e) {
    if (isWalletRpcError(e)) return e.code
    throw e
  }
  return undefined
}

describe('scope validity ', () => {
  test('drops unparseable keys, bare namespaces without references, references on chain keys', () => {
    const s = { methods: [], notifications: [] }
    expect(isValidScope('EIP155:1', s)).toBe(false)
    expect(isValidScope('ab', s)).toBe(false)
    expect(isValidScope('eip155', s)).toBe(false)
    expect(isValidScope('eip155', { ...s, references: [] })).toBe(false)
    expect(isValidScope('eip155', { ...s, references: ['1'] })).toBe(true)
    expect(isValidScope('eip155:1', { ...s, references: ['1'] })).toBe(false)
    expect(isValidScope('eip155', { ...s, references: ['@'] })).toBe(false)
    expect(isValidScope('eip155:1', s)).toBe(true)
  })
  test('drops blank method names and unknown members', () => {
    expect(isValidScope('eip155:1', { methods: ['  '], notifications: [] })).toBe(false)
    expect(isValidScope('eip155:1', { methods: [], notifications: [], capabilities: {} })).toBe(false)
    expect(isValidScope('eip155:1', { methods: [], notifications: [], rpcEndpoints: [] })).toBe(true)
  })
  test('eip155 references must be decimal without leading zeros', () => {
    expect(eip155ChainIdOf('eip155:1')).toBe(1)
    expect(eip155ChainIdOf('eip155:0x1')).toBeUndefined()
    expect(eip155ChainIdOf('eip155:01')).toBeUndefined()
    expect(eip155ChainIdOf('solana:1')).toBeUndefined()
  })
})

describe('normalisation ', () => {
  test('expands references and merges duplicates in first-seen order', () => {
    const out = normalizeScopes({
      eip155: { references: ['1', '5'], methods: ['a'], notifications: [] },
      'eip155:1': { methods: ['b', 'a'], notifications: ['n'], accounts: ['eip155:1:0x1'] },
    })
    expect(out).toEqual({
      'eip155:1': { methods: ['a', 'b'], notifications: ['n'], accounts: ['eip155:1:0x1'] },
      'eip155:5': { methods: ['a'], notifications: [], accounts: [] },
    })
  })
  test('required and optional merge, required first ', () => {
    const r = normalizeScopes({ 'eip155:1': { methods: ['x'], notifications: [] } })
    const o = normalizeScopes({ 'eip155:1': { methods: ['y', 'x'], notifications: [] } })
    expect(mergeScopeMaps(r, o)['eip155:1']!.methods).toEqual(['x', 'y'])
  })
})

describe('params schema', () => {
  test('-32602 names the field', () => {
    try {
      validateCreateSessionParams({ optionalScopes: { 'eip155:1': { methods: 'x' } } })
      expect.unreachable()
    } catch (e: any) {
      expect(e.code).toBe(-32602)
      const messages = e.data.map((d: any) => d.message)
      expect(messages).toContain('optionalScopes.eip155:1.methods is not of a type(s) array of string')
      expect(messages).toContain('optionalScopes.eip155:1 requires property "notifications"')
    }
    expect(codeOf(() => validateCreateSessionParams([]))).toBe(-32602)
    expect(codeOf(() => validateCreateSessionParams({ sessionProperties: [] }))).toBe(-32602)
    expect(codeOf(() => validateCreateSessionParams({ optionalScopes: null }))).toBe(-32602)
    expect(validateCreateSessionParams(undefined)).toEqual({})
  })
})

describe('proposal', () => {
  test('drops unserved chains and unsupported methods, narrows to requested', () => {
    const p = buildProposal(
      {
        requiredScopes: { eip155: { references: ['1', '999'], methods: ['eth_chainId'], notifications: [] } },
        optionalScopes: {
          'eip155:137': {
            methods: ['personal_sign', 'nope', 'eth_accounts'],
            notifications: ['eth_subscription', 'x'],
          },
          'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': { methods: ['signMessage'], notifications: [] },
          wallet: { methods: [], notifications: [] },
        },
      },
      ctx,
    )
    expect(p.scopes).toEqual({
      'eip155:1': { methods: ['eth_chainId'], notifications: [] },
      'eip155:137': { methods: ['personal_sign'], notifications: ['eth_subscription'] },
    })
  })
  test('5100 when nothing is left, including no scopes at all', () => {
    expect(codeOf(() => buildProposal({}, ctx))).toBe(5100)
    expect(
      codeOf(() => buildProposal({ optionalScopes: { 'eip155:999': { methods: [], notifications: [] } } }, ctx)),
    ).toBe(5100)
  })
  test('5302 for empty sessionProperties comes before scope checks', () => {
    expect(codeOf(() => buildProposal({ optionalScopes: {}, sessionProperties: {} }, ctx))).toBe(5302)
  })
  test('held accounts are preselected (chain reference ignored, any case); others dropped', () => {
    const p = buildProposal(
      {
        optionalScopes: {
          'eip155:1': {
            methods: [],
            notifications: [],
            accounts: [
              `eip155:5:${A.toUpperCase().replace('0X', '0x')}`,
              'eip155:1:0x000000000000000000000000000000000000dead',
            ],
          },
        },
      },
      ctx,
    )
    expect(p.preselectedAccounts).toEqual([A])
  })
  test('a malformed account is -32603 "Invalid CAIP account ID." as in MetaMask', () => {
    try {
      buildProposal(
        { optionalScopes: { 'eip155:1': { methods: [], notifications: [], accounts: ['not-an-account'] } } },
        ctx,
      )
      expect.unreachable()
    } catch (e: any) {
      expect({ code: e.code, message: e.message }).toEqual({ code: -32603, message: 'Invalid CAIP account ID.' })
    }
  })
  test('{wallet: {references: ["eip155"]}} is proposed as wallet:eip155 with wallet_addEthereumChain', () => {
    const p = buildProposal(
      { optionalScopes: { wallet: { references: ['eip155'], methods: [], notifications: [] } } },
      ctx,
    )
    expect(p.scopes).toEqual({ 'wallet:eip155': { methods: ['wallet_addEthereumChain'], notifications: [] } })
    const g = grantSession(p, { accounts: [A] })
    expect(g.sessionScopes['wallet:eip155']).toEqual({
      methods: ['wallet_addEthereumChain'],
      notifications: [],
      accounts: [`wallet:eip155:${A}`],
    })
    // A bare `wallet` scope (onboarding, QR code) is not offered: chaingate implements none of its methods.
    expect(() => buildProposal({ optionalScopes: { wallet: { methods: [], notifications: [] } } }, ctx)).toThrow(
      'Requested scopes are not supported',
    )
  })
  test('grant: picked accounts go to every chain, dropped chains and methods go away', () => {
    const p = buildProposal(
      {
        optionalScopes: {
          eip155: {
            references: ['1', '137'],
            methods: ['eth_chainId', 'personal_sign'],
            notifications: ['eth_subscription'],
          },
        },
      },
      ctx,
    )
    const s = grantSession(p, {
      accounts: [B.toUpperCase().replace('0X', '0x')],
      scopes: ['eip155:137'],
      methods: { 'eip155:137': ['eth_chainId'] },
    })
    expect(s.sessionScopes).toEqual({
      'eip155:137': { methods: ['eth_chainId'], notifications: ['eth_subscription'], accounts: [`eip155:137:${B}`] },
    })
  })
})

describe('sessionProperties (docs/wallet.md)', () => {
  test('keeps expiry and globalConfig, drops the rest', () => {
    expect(parseSessionProperties({ expiry: '2030-01-01T00:00:00Z', globalConfig: { a: 1 }, other: true }, 0)).toEqual({
      expiry: '2030-01-01T00:00:00Z',
      globalConfig: { a: 1 },
    })
    expect(parseSessionProperties({ other: true }, 0)).toEqual({})
  })
  test('bad expiry or globalConfig is -32602', () => {
    expect(codeOf(() => parseSessionProperties({ expiry: 'soon' }, 0))).toBe(-32602)
    expect(codeOf(() => parseSessionProperties({ expiry: '2020-01-01T00:00:00Z' }, Date.parse('2021-01-01')))).toBe(
      -32602,
    )
    expect(codeOf(() => parseSessionProperties({ globalConfig: 1 }, 0))).toBe(-32602)
  })
})

describe('revoking scopes and accounts ', () => {
  const session = {
    sessionScopes: {
      'eip155:1': { methods: [], notifications: [], accounts: [`eip155:1:${A}`] },
      'eip155:137': { methods: [], notifications: [], accounts: [`eip155:137:${A}`, `eip155:137:${B}`] },
    },
    sessionProperties: {},
  }
  test('partial revoke keeps the rest; removing every scope ends the session', () => {
    expect(Object.keys(removeScopes(session, ['eip155:1'])!.sessionScopes)).toEqual(['eip155:137'])
    expect(removeScopes(session, ['eip155:1', 'eip155:137'])).toBeUndefined()
    expect(removeScopes(session, ['eip155:5'])).toEqual(session)
  })
  test('removing an account takes it out of every scope', () => {
    const s = removeAccount(session, A.toUpperCase().replace('0X', '0x'))
    expect(s.sessionScopes['eip155:137']!.accounts).toEqual([`eip155:137:${B}`])
    expect(s.sessionScopes['eip155:1']!.accounts).toEqual([])
  })
})
