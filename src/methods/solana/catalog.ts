/**
 * The Solana method catalog: one entry per JSON-RPC method the gateway or the wallet knows on a Solana network, the
 * same entry shape as the EVM's (src/methods/entry.ts; src/methods/catalog.ts indexes the families). Served by
 * default: every HTTP method of https://solana.com/docs/rpc/http (the standard API Infura serves:
 * https://docs.metamask.io/services/reference/solana/json-rpc-methods/) and the stable PubSub pairs of
 * https://solana.com/docs/rpc/websocket (WebSocket only). Prices: Infura's, 180 credits for every Solana method
 * (https://docs.metamask.io/services/get-started/pricing/credit-cost/), kept per entry so each can be read and
 * changed; heavy scans cost a multiple (`heavy`). Caching by commitment: only `finalized` data is kept (getBlock at a
 * slot, getTransaction; getGenesisHash and getEpochSchedule never change); every other read is shared while in
 * flight, never kept. With the EVM catalog, the only src files that name many methods.
 */
import type { CacheRule, FamilyCatalog, MethodEntry, SolanaSubscriptionKindName, SubscriptionKind } from '../entry.ts'
import {
  blockMentions,
  firstPubkey,
  logsMentions,
  optionalPubkeyList,
  pubkeyList,
  sentTransactionKeys,
  simulatedTransactionKeys,
} from './addresses.ts'
import {
  ACCOUNT_ENCODINGS,
  configAt,
  MAX_MULTIPLE_ACCOUNTS,
  pubkeyAt,
  pubkeysAt,
  tokenFilterAt,
  TRANSACTION_ENCODINGS,
  transactionAt0,
  unfilteredProgramScan,
  validate,
  WIRE_ENCODINGS,
} from './params.ts'

/** Infura: "Solana: every method 180" (https://docs.metamask.io/services/get-started/pricing/credit-cost/). */
const CREDITS = 180
/** A heavy scan costs ten calls (Helius' ratio for getProgramAccounts: https://www.helius.dev/docs/billing/credits). */
const HEAVY_FACTOR = 10

const STATIC: CacheRule = { kind: 'static' }
/** Kept only at `finalized` commitment, the config object being params[1]. */
const FINALIZED: CacheRule = { kind: 'finalized', config: 1 }
const NONE = 'none'
/** A slot or block height: never below what the key was told at that commitment (params[0] is the config). */
const SLOT: CacheRule = { kind: 'slot', config: 0 }
/** Answered with a context slot, the config object at params[n]: never from a node behind what the key was told. */
const context = (config: number): CacheRule => ({ kind: 'context', config })

/**
 * A read served by default: retried on another node and hedged, identical calls in flight share one node call
 * (never kept unless a cache rule says so), naming no account unless `addresses` says how to read them.
 */
const read = (more?: MethodEntry): MethodEntry => ({
  served: 'infura',
  credits: CREDITS,
  retry: 'read',
  cache: 'shared',
  addresses: NONE,
  ...more,
})
/** A read whose only parameter is an optional config object. */
const configured = (more?: MethodEntry): MethodEntry => read({ validate: validate(configAt(0)), ...more })
/** A read of one account (`[pubkey, config?]`): checked, and named for address allowlists. */
const account = (name: string, encodings?: readonly string[], more?: MethodEntry): MethodEntry =>
  read({ addresses: firstPubkey, validate: validate(configAt(1, encodings), pubkeyAt(0, name)), ...more })
/**
 * A PubSub pair (WebSocket only; the node's notifications are `<kind>Notification`). Unstable kinds are not served
 * by default (most providers do not offer them; a network may allow them).
 */
const subscribe = (kind: SolanaSubscriptionKindName, more?: MethodEntry, unstable = false): MethodEntry => ({
  ...(unstable ? {} : { served: 'infura' as const }),
  credits: CREDITS,
  retry: 'node-local',
  filter: 'subscription',
  subscription: { kind, role: 'subscribe' },
  addresses: NONE,
  ...more,
})
const unsubscribe = (kind: SolanaSubscriptionKindName, unstable = false): MethodEntry => ({
  ...(unstable ? {} : { served: 'infura' as const }),
  credits: CREDITS,
  retry: 'node-local',
  filter: 'subscription',
  subscription: { kind, role: 'unsubscribe' },
  addresses: NONE,
})
/**
 * The wallet's signing methods (MetaMask's `solana` scope, `SolanaRpc` of @metamask/multichain-api-client; Wallet
 * Standard's solana:signMessage …): answered by the wallet with its own keys after the user approves, never by a
 * node. Listed here so a wallet's solana scopes derive from the catalog like its eip155 ones.
 */
const WALLET: MethodEntry = { wallet: 'approval', walletOnly: true }

const ENTRIES: Record<string, MethodEntry> = {
  // Accounts.
  getAccountInfo: account('pubkey', ACCOUNT_ENCODINGS, { blockBound: true, cache: context(1) }),
  getBalance: account('pubkey', undefined, { cache: context(1) }),
  getLargestAccounts: configured({ heavy: { factor: HEAVY_FACTOR } }),
  getMinimumBalanceForRentExemption: read({ validate: validate(configAt(1)) }),
  getMultipleAccounts: read({
    cache: context(1),
    addresses: pubkeyList,
    validate: validate(configAt(1, ACCOUNT_ENCODINGS), pubkeysAt(0, 'pubkeys', MAX_MULTIPLE_ACCOUNTS)),
  }),
  getProgramAccounts: account('programId', ACCOUNT_ENCODINGS, {
    cache: context(1),
    heavy: { factor: HEAVY_FACTOR, when: unfilteredProgramScan },
  }),
  // Tokens.
  getTokenAccountBalance: account('pubkey'),
  getTokenAccountsByDelegate: read({
    cache: context(2),
    addresses: firstPubkey,
    validate: validate(configAt(2, ACCOUNT_ENCODINGS), pubkeyAt(0, 'delegate'), tokenFilterAt(1)),
  }),
  getTokenAccountsByOwner: read({
    cache: context(2),
    addresses: firstPubkey,
    validate: validate(configAt(2, ACCOUNT_ENCODINGS), pubkeyAt(0, 'owner'), tokenFilterAt(1)),
  }),
  getTokenLargestAccounts: account('mint'),
  getTokenSupply: account('mint'),
  // Blocks and slots. A block is final once finalized; a node behind answers -32004 and the like (blockBound).
  getBlock: read({
    blockBound: true,
    cache: FINALIZED,
    validate: validate(configAt(1, TRANSACTION_ENCODINGS)),
  }),
  getBlockCommitment: read(),
  getBlockHeight: configured({ cache: SLOT }),
  getBlockProduction: configured(),
  getBlockTime: read({ blockBound: true }),
  getBlocks: read(),
  getBlocksWithLimit: read({ validate: validate(configAt(2)) }),
  getFirstAvailableBlock: read(),
  getLatestBlockhash: configured({ cache: context(0) }),
  getSlot: configured({ cache: SLOT }),
  getSlotLeader: configured(),
  getSlotLeaders: read(),
  isBlockhashValid: read({ validate: validate(configAt(1)) }),
  minimumLedgerSlot: read(),
  getMaxRetransmitSlot: read(),
  getMaxShredInsertSlot: read(),
  getHighestSnapshotSlot: read(),
  // Transactions.
  getTransaction: read({
    blockBound: true,
    cache: FINALIZED,
    validate: validate(configAt(1, TRANSACTION_ENCODINGS)),
  }),
  getTransactionCount: configured(),
  getSignatureStatuses: read({ validate: validate(configAt(1)) }),
  getSignaturesForAddress: account('address'),
  getFeeForMessage: read({ validate: validate(configAt(1)) }),
  getRecentPrioritizationFees: read({ addresses: optionalPubkeyList }),
  // The same signed bytes may be sent again (the cluster keeps one per signature while its blockhash is valid):
  // retried on another node, never hedged (src/upstreams/pool/retry-policy.ts).
  sendTransaction: {
    served: 'infura',
    credits: CREDITS,
    retry: 'write',
    addresses: sentTransactionKeys,
    validate: validate(configAt(1, WIRE_ENCODINGS), transactionAt0),
  },
  simulateTransaction: read({
    addresses: simulatedTransactionKeys,
    validate: validate(configAt(1, WIRE_ENCODINGS), transactionAt0),
  }),
  // An airdrop is the node's faucet (test clusters only): its effect belongs to the node that got it.
  requestAirdrop: {
    served: 'infura',
    credits: CREDITS,
    retry: 'node-local',
    addresses: firstPubkey,
    validate: validate(configAt(2), pubkeyAt(0, 'pubkey')),
  },
  // Cluster, epochs, inflation, staking.
  getClusterNodes: read(),
  getEpochInfo: configured(),
  getEpochSchedule: read({ cache: STATIC }),
  getGenesisHash: read({ cache: STATIC }),
  getHealth: read(),
  getIdentity: read(),
  getVersion: read(),
  getInflationGovernor: configured(),
  getInflationRate: read(),
  getInflationReward: read({ addresses: pubkeyList, validate: validate(configAt(1), pubkeysAt(0, 'addresses')) }),
  getLeaderSchedule: read(),
  getRecentPerformanceSamples: read(),
  getStakeMinimumDelegation: configured(),
  getSupply: configured(),
  getVoteAccounts: configured(),
  // Alpenglow (Agave 4.3 and later; an older node answers -32601): known, not served by default
  // (https://solana.com/docs/rpc/http/getaggenesiscert); a network whose nodes have it may allow it.
  getAgGenesisCert: { credits: CREDITS, retry: 'read', cache: 'shared', addresses: NONE },
  getAlpenglowMigrationSlot: { credits: CREDITS, retry: 'read', cache: 'shared', addresses: NONE },
  // PubSub (https://solana.com/docs/rpc/websocket).
  accountSubscribe: subscribe('account', {
    addresses: firstPubkey,
    validate: validate(configAt(1, ACCOUNT_ENCODINGS), pubkeyAt(0, 'pubkey')),
  }),
  accountUnsubscribe: unsubscribe('account'),
  logsSubscribe: subscribe('logs', { addresses: logsMentions }),
  logsUnsubscribe: unsubscribe('logs'),
  programSubscribe: subscribe('program', {
    addresses: firstPubkey,
    validate: validate(configAt(1, ACCOUNT_ENCODINGS), pubkeyAt(0, 'programId')),
  }),
  programUnsubscribe: unsubscribe('program'),
  signatureSubscribe: subscribe('signature'),
  signatureUnsubscribe: unsubscribe('signature'),
  slotSubscribe: subscribe('slot'),
  slotUnsubscribe: unsubscribe('slot'),
  rootSubscribe: subscribe('root'),
  rootUnsubscribe: unsubscribe('root'),
  blockSubscribe: subscribe('block', { addresses: blockMentions }, true),
  blockUnsubscribe: unsubscribe('block', true),
  voteSubscribe: subscribe('vote', undefined, true),
  voteUnsubscribe: unsubscribe('vote', true),
  slotsUpdatesSubscribe: subscribe('slotsUpdates', undefined, true),
  slotsUpdatesUnsubscribe: unsubscribe('slotsUpdates', true),
  // The wallet's (not a node's).
  signMessage: WALLET,
  signTransaction: WALLET,
  signAllTransactions: WALLET,
  signAndSendTransaction: WALLET,
  signIn: WALLET,
}

const entries: ReadonlyMap<string, Readonly<MethodEntry>> = new Map(Object.entries(ENTRIES))

/** The kinds, read from the subscribe entries: `account` is accountSubscribe/accountUnsubscribe/accountNotification. */
const subscriptions: SubscriptionKind[] = []
for (const [method, e] of entries)
  if (e.subscription?.role === 'subscribe') {
    const kind = e.subscription.kind
    const unsubscribeMethod = [...entries].find(
      ([, u]) => u.subscription?.role === 'unsubscribe' && u.subscription.kind === kind,
    )![0]
    const notification = `${kind}Notification`
    // Priced and recorded as the notification's method, each event; Infura publishes no Solana event prices,
    // only "every Solana method 180", so a notification costs what the call a client would otherwise poll with
    // costs (getSlot, getAccountInfo, getSignatureStatuses). No replay: resubscribed after a node is lost.
    subscriptions.push({
      kind,
      subscribe: method,
      unsubscribe: unsubscribeMethod,
      notification,
      ...(e.served === undefined ? { unstable: true as const } : {}),
      price: notification,
      credits: CREDITS,
      label: notification,
      charge: 'each',
    })
  }

export const SOLANA_CATALOG: FamilyCatalog = { family: 'solana', entries, subscriptions }
