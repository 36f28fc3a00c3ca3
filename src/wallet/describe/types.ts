/** Shared shapes of the console's request descriptions (pure data, rendered by src/wallet/console). */

/** The chains and accounts the description may name. */
export interface DescribeEnv {
  chains: { chainId: number; network: string }[]
  accounts: { address: string; index: number; label: string; solanaAddress?: string }[]
  /** The Solana networks (CAIP-2 id and name). */
  solanaChains?: { chain: string; network: string }[]
}

/** One labelled line of a request, e.g. `Amount: 0.5 ETH`. */
export interface Row {
  label: string
  value: string
  detail?: string
}

/** The outcome of running the transaction with eth_call before asking. */
export type Simulation = { ok: true } | { ok: false; reason: string }

/** `devnet-a (chain 31337)`. */
export function networkOf(chainId: number | undefined, env: DescribeEnv): string {
  if (chainId === undefined) return 'any chain (wallet scope)'
  const c = env.chains.find((x) => x.chainId === chainId)
  return c ? `${c.network} (chain ${chainId})` : `chain ${chainId} (not served by this wallet)`
}

/** `account #0 "savings"` for the wallet's own addresses, else undefined. */
export function accountLabel(address: unknown, env: DescribeEnv): string | undefined {
  if (typeof address !== 'string') return undefined
  const a = env.accounts.find((x) => x.address === address.toLowerCase())
  return a ? `your account #${a.index}${a.label ? ` "${a.label}"` : ''}` : undefined
}
