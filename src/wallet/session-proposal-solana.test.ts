/** Solana scopes in a session proposal and grant: pure functions, no server. */
import { describe, expect, test } from 'vitest'
import { SOLANA_SCOPE, SOL_ADDR } from './handlers/handlers.test-support.ts'
import { removeAccount } from './scopes.ts'
import { buildProposal, grantSession } from './session-proposal.ts'

const EVM_ADDR = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const REF = SOLANA_SCOPE.split(':')[1]!
const ctx = {
  servedChainIds: new Set([1]),
  servedSolanaChains: new Set([SOLANA_SCOPE]),
  walletAddresses: [EVM_ADDR, SOL_ADDR],
  now: 0,
}
const ALL = ['signIn', 'signMessage', 'signTransaction', 'signAllTransactions', 'signAndSendTransaction']

describe('solana scopes', () => {
  test('bare `solana` with references expands; methods narrowed to the wallet methods; unserved chains dropped', () => {
    const p = buildProposal(
      {
        optionalScopes: {
          'eip155:1': { methods: ['eth_chainId'], notifications: [] },
          solana: {
            references: [REF, 'EtWTRABZaYq6iMfeYKouRu166VU2xqa2'],
            methods: [...ALL, 'getBalance'],
            notifications: ['accountChanged'],
          },
        },
        sessionProperties: { solana_accountChanged_notifications: true, unknown: 1 },
      },
      ctx,
    )
    expect(Object.keys(p.scopes)).toEqual(['eip155:1', SOLANA_SCOPE])
    expect(p.scopes[SOLANA_SCOPE]).toEqual({ methods: ALL, notifications: [] })
    expect(p.sessionProperties).toEqual({ solana_accountChanged_notifications: true })
  })

  test('a Solana account the dapp names is preselected exactly (base58 is case-sensitive)', () => {
    const named = (address: string) =>
      buildProposal(
        {
          optionalScopes: {
            [SOLANA_SCOPE]: { methods: ALL, notifications: [], accounts: [`${SOLANA_SCOPE}:${address}`] },
          },
        },
        ctx,
      ).preselectedAccounts
    expect(named(SOL_ADDR)).toEqual([SOL_ADDR])
    expect(named(SOL_ADDR.toLowerCase())).toEqual([])
  })

  test('only Solana chains the wallet does not serve: 5100', () => {
    expect(() =>
      buildProposal(
        { optionalScopes: { 'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z': { methods: ALL, notifications: [] } } },
        ctx,
      ),
    ).toThrow(expect.objectContaining({ code: 5100 }))
  })

  test('each scope gets the accounts of its kind; a Solana scope without a Solana account is left out', () => {
    const proposal = buildProposal(
      {
        optionalScopes: {
          'eip155:1': { methods: ['eth_chainId'], notifications: [] },
          [SOLANA_SCOPE]: { methods: ['signMessage'], notifications: [] },
        },
      },
      ctx,
    )
    const both = grantSession(proposal, { accounts: [EVM_ADDR, SOL_ADDR] })
    expect(both.sessionScopes['eip155:1']!.accounts).toEqual([`eip155:1:${EVM_ADDR}`])
    expect(both.sessionScopes[SOLANA_SCOPE]!.accounts).toEqual([`${SOLANA_SCOPE}:${SOL_ADDR}`])
    expect(Object.keys(grantSession(proposal, { accounts: [EVM_ADDR] }).sessionScopes)).toEqual(['eip155:1'])
    // Removing the account from the wallet removes it from the Solana scope, matched exactly.
    expect(removeAccount(both, SOL_ADDR).sessionScopes[SOLANA_SCOPE]!.accounts).toEqual([])
    expect(removeAccount(both, SOL_ADDR.toLowerCase()).sessionScopes[SOLANA_SCOPE]!.accounts).toHaveLength(1)
  })
})
