/** The wallet's handler tables and the catalog's wallet column are one list per family and cannot drift. */
import { describe, expect, it } from 'vitest'
import { LOCAL_METHODS } from './index.ts'
import { localMethodsFor, walletAnsweredMethods } from './local-methods.ts'
import { SOLANA_LOCAL_METHODS } from './solana/index.ts'

describe('wallet methods from the catalog', () => {
  it('each family has a handler for every wallet-answered catalog method, and for nothing else', () => {
    expect(Object.keys(LOCAL_METHODS)).toEqual(walletAnsweredMethods('evm'))
    expect(Object.keys(SOLANA_LOCAL_METHODS)).toEqual(walletAnsweredMethods('solana'))
    expect(walletAnsweredMethods('evm')).toContain('personal_sign')
    expect(walletAnsweredMethods('solana')).toEqual([
      'signMessage',
      'signTransaction',
      'signAllTransactions',
      'signAndSendTransaction',
      'signIn',
    ])
  })

  it('refuses a table with a missing or an unlisted handler', () => {
    const { personal_sign: _, ...missing } = LOCAL_METHODS
    expect(() => localMethodsFor('evm', missing)).toThrow(/no handler for \[personal_sign\]/)
    expect(() => localMethodsFor('solana', { ...SOLANA_LOCAL_METHODS, getBalance: () => 0 })).toThrow(
      /not in the catalog \[getBalance\]/,
    )
  })
})
