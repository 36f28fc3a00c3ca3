/**
 * The devnet's cluster methods: health, version, identity, nodes, supply, inflation and the like, answered as a
 * one-node cluster (the devnet's identity leads every slot).
 */
import { asObject, contextSlot, type Handler, optionalBool, SOLANA_CORE_VERSION, withContext } from './rpc-params.ts'
import { SLOTS_PER_EPOCH } from './slot-clock.ts'

const FEATURE_SET = 3_294_202_862

export const clusterMethods: Record<string, Handler> = {
  getHealth: () => 'ok',
  getVersion: () => ({ 'feature-set': FEATURE_SET, 'solana-core': SOLANA_CORE_VERSION }),
  getGenesisHash: (_p, { chain }) => chain.genesisHash,
  getIdentity: (_p, { chain }) => ({ identity: chain.identity }),
  getTransactionCount: (p, ctx) => (
    contextSlot(ctx.chain, asObject(p[0], 'RpcContextConfig')), ctx.chain.transactionCount
  ),
  getClusterNodes: (_p, ctx) => [
    {
      featureSet: FEATURE_SET,
      gossip: null,
      pubkey: ctx.chain.identity,
      pubsub: ctx.rpcAddress ?? null,
      rpc: ctx.rpcAddress ?? null,
      shredVersion: 0,
      tpu: null,
      tpuQuic: null,
      version: SOLANA_CORE_VERSION,
    },
  ],
  getVoteAccounts: () => ({ current: [], delinquent: [] }),
  getInflationGovernor: () => ({ foundation: 0, foundationTerm: 0, initial: 0, taper: 0, terminal: 0 }),
  getInflationRate: (_p, ctx) => ({
    epoch: Math.floor(ctx.chain.slot / SLOTS_PER_EPOCH),
    foundation: 0,
    total: 0,
    validator: 0,
  }),
  getStakeMinimumDelegation: (p, ctx) =>
    withContext(contextSlot(ctx.chain, asObject(p[0], 'RpcContextConfig')), 1_000_000_000),
  getRecentPerformanceSamples: () => [],
  getSupply: (p, ctx) => {
    const slot = contextSlot(ctx.chain, asObject(p[0], 'RpcSupplyConfig'))
    const { total, faucet } = ctx.chain.supply()
    return withContext(slot, {
      circulating: total - faucet,
      nonCirculating: faucet,
      nonCirculatingAccounts: optionalBool(asObject(p[0], 'RpcSupplyConfig').excludeNonCirculatingAccountsList, false)
        ? []
        : [ctx.chain.faucet],
      total,
    })
  },
}
