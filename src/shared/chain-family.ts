/**
 * Chain families: the CAIP-2 namespaces a network can belong to (https://chainagnostic.org/CAIPs/caip-2). The
 * family decides how a node's chain is identified and checked, what a head is, which methods are served and which
 * subscriptions exist; keys, credits, limits, the ledger and the pool's selection are the same for every family.
 */
export const CHAIN_FAMILIES = ['evm', 'solana'] as const
export type ChainFamily = (typeof CHAIN_FAMILIES)[number]

/** The CAIP-2 namespace of a family. */
export const NAMESPACE_OF: Readonly<Record<ChainFamily, string>> = { evm: 'eip155', solana: 'solana' }

/** How a family is named to users. */
export const FAMILY_NAMES: Readonly<Record<ChainFamily, string>> = { evm: 'EVM', solana: 'Solana' }

/** The family's word for a head: the EVM's block number, Solana's slot. */
export const HEAD_WORD: Readonly<Record<ChainFamily, string>> = { evm: 'block', solana: 'slot' }
