/**
 * What the wallet needs from the rest of chaingate. The wallet never talks to nodes itself: reads, broadcasts and
 * subscriptions go through this port (src/app/parts/wallet.ts implements it on the in-process gateway, charged to
 * the wallet's own API key; tests use `direct-chain-access.ts`).
 */
export interface ChainAccess {
  /** Chains the wallet serves (the gateway's networks). */
  chains(): { chainId: number; network: string }[]
  /** One JSON-RPC call on a chain; rejects with an Error carrying {code:number, message, data?} for JSON-RPC errors. */
  request(chainId: number, method: string, params: unknown): Promise<unknown>
  /** Solana networks the wallet serves, by CAIP-2 id (`solana:<genesis hash prefix>`); none when absent. */
  solanaChains?(): { chain: string; network: string }[]
  /** One JSON-RPC call on a Solana network (by CAIP-2 id); rejects like `request`. */
  solanaRequest?(chain: string, method: string, params: unknown[]): Promise<unknown>
  /** eth_subscribe on the chain; onEvent gets each notification's `result`. */
  subscribe(
    chainId: number,
    params: unknown[],
    onEvent: (result: unknown) => void,
  ): Promise<{ id: string; unsubscribe(): Promise<void> }>
}
