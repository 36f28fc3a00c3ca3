/** Fake hooks for the wallet_* handler tests: no server, no database, no chain. */
import { expect } from 'vitest'
import type { StoredSession } from '../scopes.ts'
import type { WalletHooks } from './index.ts'

export const ADDR = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
/** A Solana chain and the wallet's account on it (the anvil test mnemonic's m/44'/501'/0'/0'). */
export const SOLANA_SCOPE = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'
export const SOL_ADDR = 'oeYf6KAJkLYhBuR8CiGc6L4D4Xtfepr85fuDgA9kq96'
export const UNAUTHORIZED = {
  code: 4100,
  message: 'The requested account and/or method has not been authorized by the user.',
}
export const session: StoredSession = {
  sessionScopes: { 'eip155:1': { methods: ['eth_chainId'], notifications: [], accounts: [`eip155:1:${ADDR}`] } },
  sessionProperties: {},
}

export function fakeHooks(over: Partial<WalletHooks> = {}): WalletHooks & { calls: string[] } {
  const calls: string[] = []
  return {
    calls,
    getSession: async () => undefined,
    grantSession: async () => void calls.push('grant'),
    revokeSession: async (scopes) => void calls.push(`revoke:${scopes?.join(',') ?? 'all'}`),
    getServedChainIds: () => new Set([1]),
    getServedSolanaChains: () => new Set([SOLANA_SCOPE]),
    getWalletAddresses: () => [ADDR, SOL_ADDR],
    now: () => 0,
    requestSessionApproval: async () => ({}),
    invokeInScope: async (_s, _sc, method) => (calls.push(`invoke:${method}`), '0x1'),
    ...over,
  }
}
export const err = async (p: Promise<unknown>) =>
  p.then(
    () => expect.unreachable(),
    (e) => ({ code: e.code, message: e.message }),
  )
