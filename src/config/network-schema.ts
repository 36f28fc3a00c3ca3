/**
 * The `networks[]` entries of the config: a network, its upstreams and their policy (docs/upstreams.md), its cache
 * and eth_getLogs settings (docs/caching.md). Part of the one schema in ./schema.ts; docs/config.md documents every
 * key.
 */
import { z } from 'zod'
import { CHAIN_FAMILIES } from '../shared/chain-family.ts'

const NETWORK_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/
const HOSTNAME = /^[a-z0-9.-]+(:\d+)?$/
const METHOD_NAME = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'a JSON-RPC method name (letters, digits, _; at most 64)')

const UpstreamSchema = z
  .object({
    /** The node's JSON-RPC endpoint, every call goes here: http(s), or ws(s) for a node reached only by WebSocket. */
    url: z.url({ protocol: /^(https?|wss?)$/ }),
    /** ws(s) URL of the node, for eth_subscribe; default: `url` with ws(s) instead of http(s). */
    wsUrl: z.url({ protocol: /^wss?$/ }).optional(),
    /**
     * The node answers another eth_chainId than the network's: `fail` stops start-up; `exclude` keeps it out of
     * rotation.
     */
    onChainIdMismatch: z.enum(['fail', 'exclude']).default('fail'),
    /** `primary` nodes take the traffic; a `fallback` only when no primary is healthy (docs/upstreams.md). */
    role: z.enum(['primary', 'fallback']).default('primary'),
    /** Share of traffic among healthy nodes of the same role (relative to the others' weights). */
    weight: z.number().int().min(1).max(1000).default(1),
    /** Time allowed for this node to answer one request; default `gateway.upstreamTimeoutMs`. */
    timeoutMs: z.number().int().min(100).max(600_000).optional(),
    /** Most requests per second the gateway sends this node (the provider plan's limit); null: no limit. */
    maxRequestsPerSecond: z.number().positive().nullable().default(null),
    /** Free-form tags shown in /healthz and `chaingate upstreams` (e.g. `archive`). */
    labels: z
      .array(z.string().regex(/^[a-z0-9][a-z0-9_.-]{0,31}$/, 'a label: lowercase letters, digits, _ . -'))
      .max(16)
      .default([]),
  })
  .strict()

/** How a network spreads calls over its nodes, retries, hedges and watches heads (docs/upstreams.md). */
const UpstreamPolicySchema = z
  .object({
    /**
     * A node more than this many blocks (Solana: slots) behind the served tip is `lagging` and takes no calls while
     * others can. Default 5 blocks; 50 slots on a Solana network.
     */
    maxLagBlocks: z.number().int().min(0).max(10_000).optional(),
    /** Deadline for one call across all its attempts (retries and hedges); default `gateway.upstreamTimeoutMs`. */
    totalTimeoutMs: z.number().int().min(100).max(600_000).optional(),
    /** Most upstream requests for one call, the first included (retries on another node, hedges). */
    maxAttempts: z.number().int().min(1).max(10).default(3),
    /**
     * Heads are polled this often while calls flow (none after `headIdleMs` without calls: idle gateways cost nothing).
     */
    headPollMs: z.number().int().min(1000).max(600_000).default(2000),
    /** No call for this long: head polling pauses until the next call. */
    headIdleMs: z.number().int().min(1000).max(3_600_000).default(60_000),
    hedge: z
      .object({
        /** Also send a slow read to a second node; the first useful answer wins, the other is cancelled. */
        enabled: z.boolean().default(true),
        /** Fixed delay before the hedge; null: the `quantile` of the network's recent latency, within min/max. */
        delayMs: z.number().int().min(0).max(60_000).nullable().default(null),
        quantile: z.number().min(0.5).max(0.999).default(0.9),
        minDelayMs: z.number().int().min(0).max(60_000).default(30),
        maxDelayMs: z.number().int().min(1).max(60_000).default(2000),
      })
      .strict()
      .prefault({}),
    breaker: z
      .object({
        /** Consecutive failures (no answer, 5xx, timeouts, hedges lost while hanging) that open a node's breaker. */
        failureThreshold: z.number().int().min(1).max(1000).default(5),
        /**
         * How long an open breaker keeps the node out before one probe call; doubles per failed probe up to maxOpenMs.
         */
        openMs: z.number().int().min(100).max(600_000).default(5000),
        maxOpenMs: z.number().int().min(100).max(3_600_000).default(60_000),
      })
      .strict()
      .prefault({}),
  })
  .strict()

const EmbeddedChainSchema = z
  .object({
    /** EVM: seconds between blocks; 0 mines a block per transaction (anvil's automine). */
    blockTimeSeconds: z.number().int().min(0).max(3600).default(0),
    /** Fixed port for the devnet process; 0 picks a free one. */
    port: z.number().int().min(0).max(65535).default(0),
    /** BIP-39 mnemonic whose accounts the devnet funds; the well-known anvil test mnemonic by default. */
    mnemonic: z.string().min(1).optional(),
    /** Solana: milliseconds per slot (a real cluster's 400 by default). */
    slotMs: z.number().int().min(10).max(10_000).optional(),
    /**
     * Solana: the runtime behind the devnet: `litesvm` (in-process, from npm) or `solana-test-validator` (Agave's
     * real validator, when installed).
     */
    engine: z.enum(['litesvm', 'solana-test-validator']).optional(),
  })
  .strict()

/** A network's cache settings over the global `cache` section (docs/caching.md). */
const NetworkCacheSchema = z
  .object({
    /**
     * Cache this network's answers; default `cache.enabled`. Dedup and monotonic eth_blockNumber stay on either way.
     */
    enabled: z.boolean().optional(),
    /** Methods never answered from the cache on this network (e.g. eth_call when nodes disagree on state). */
    uncachedMethods: z.array(METHOD_NAME).max(100).default([]),
  })
  .strict()

/** eth_getLogs limits, as Infura has them (docs/caching.md, "eth_getLogs"). */
const GetLogsSchema = z
  .object({
    /** Widest block range one call may ask for; wider answers -32602 "range N exceeds limit of M". */
    maxBlockRange: z.number().int().min(1).max(100_000_000).default(10_000),
    /** Most logs one call may return; more answers -32005 with a narrower range to try. */
    maxResults: z.number().int().min(1).max(1_000_000).default(10_000),
    /** The nodes' own range limit: a wider call is split into sub-requests of this many blocks; null: never split. */
    upstreamMaxBlockRange: z.number().int().min(1).max(100_000_000).nullable().default(null),
    /** Sub-requests of one split call in flight at once. */
    splitConcurrency: z.number().int().min(1).max(32).default(4),
    /** Most sub-requests one call may be split into; a call needing more is refused like a too-wide range. */
    maxSplits: z.number().int().min(1).max(1000).default(20),
  })
  .strict()

export const NetworkSchema = z
  .object({
    name: z.string().regex(NETWORK_NAME, 'lowercase letters, digits and dashes'),
    /**
     * The chain family (https://chainagnostic.org/CAIPs/caip-2 namespaces): `evm` (eip155) or `solana`. It picks the
     * methods served, how a node's chain is checked and what a head is (docs/upstreams.md, "Chain families").
     */
    family: z.enum(CHAIN_FAMILIES).default('evm'),
    /** EVM: the chain id every node must answer (eth_chainId). Required for `evm`, refused for `solana`. */
    chainId: z.number().int().positive().optional(),
    /**
     * Solana: the CAIP-2 id every node must have (`solana:` + the first 32 characters of the genesis hash); absent:
     * taken from the nodes at start, which must agree.
     */
    chain: z
      .string()
      .regex(/^solana:[1-9A-HJ-NP-Za-km-z]{32}$/, 'solana: and the first 32 characters of the genesis hash')
      .optional(),
    /** Hostnames that select this network; default `<name>.localhost`. */
    hosts: z.array(z.string().toLowerCase().regex(HOSTNAME, 'a hostname')).optional(),
    /**
     * Solana: heavy scans (getProgramAccounts without filters, getLargestAccounts) are `priced` at ten times a call,
     * or `refuse`d (docs/config.md).
     */
    heavyScans: z.enum(['priced', 'refuse']).default('priced'),
    /** Run a local anvil chain for this network (chain state kept in the data dir). */
    embedded: EmbeddedChainSchema.optional(),
    /** External nodes; used instead of an embedded chain. */
    upstreams: z.array(UpstreamSchema).min(1).optional(),
    /** Cache settings for this network over the global `cache` section. */
    cache: NetworkCacheSchema.prefault({}),
    /** eth_getLogs block-range and result caps, and splitting for the nodes' own limit. */
    getLogs: GetLogsSchema.prefault({}),
    /** Selection, retries, hedging, breaker and head tracking over the network's nodes (docs/upstreams.md). */
    upstreamPolicy: UpstreamPolicySchema.prefault({}),
    /**
     * Largest request body sent to the node; larger ones answer 413. Default: 2 MiB for embedded (anvil's limit), none
     * for upstreams.
     */
    maxRequestBytes: z.number().int().min(1024).optional(),
    /**
     * Largest answer taken from a node (64 MiB); a larger one is cut off and the call answers -32005, free
     * (docs/upstreams.md).
     */
    maxResponseBytes: z.number().int().min(1024).optional(),
    /**
     * Also serve the devnet methods (evm_*, anvil_*, hardhat_* aliases; docs/config.md).
     * Default: true for an embedded chain, false for upstreams.
     */
    devMethods: z.boolean().optional(),
    /**
     * Methods served: Infura's Ethereum list (plus the devnet methods), plus `allow`, minus `deny` (docs/config.md).
     */
    methods: z
      .object({ allow: z.array(METHOD_NAME).max(1000).default([]), deny: z.array(METHOD_NAME).max(1000).default([]) })
      .strict()
      .optional(),
  })
  .strict()
