/**
 * The views of the method catalogs agree with their entries, for every chain family (a method granted by the wallet
 * is one the gateway serves, a served method has a price, a retry class and an address rule, …), method names never
 * repeat across families, and no other src file keeps a method table.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { CACHE_RULES, SHARED_READS, UNSHARED_READS } from '../gateway/layers/cache-rules.ts'
import { ADDRESS_CHECKED_METHODS, ADDRESS_FREE_METHODS } from '../keys/security/addresses.ts'
import { callKind } from '../upstreams/pool/retry-policy.ts'
import { LOCAL_METHODS } from '../wallet/methods/index.ts'
import { EIP155_METHODS, EIP155_SIGNING_METHODS, WALLET_EIP155_METHODS } from '../wallet/supported-methods.ts'
import {
  ALL_METHODS,
  CHAIN_FAMILIES,
  catalogFor,
  EVM_SUBSCRIPTION_KINDS,
  evmNamespaces,
  familyOf,
  RANGE_SCAN_METHOD,
  SOLANA_SUBSCRIPTION_KINDS,
  subscriptionKinds,
} from './catalog.ts'
import { methodLabel } from './labels.ts'
import {
  DEFAULT_EVENT_COSTS,
  DEFAULT_METHOD_COSTS,
  DEV_METHOD_COSTS,
  heavyFactor,
  HEAVY_METHODS,
  methodCosts,
  priceOf,
} from './prices.ts'
import { DEV_METHODS, defaultMethods, INFURA_ETHEREUM_METHODS, neverServed, servedMethods } from './served.ts'

const CATALOG = catalogFor('evm')
const entry = (m: string) => CATALOG.get(m)!
const SERVED = [...INFURA_ETHEREUM_METHODS, ...DEV_METHODS]
/** Infura serves them, and they name addresses in nested call objects the gateway does not read: refused for a key
 * with an address allowlist (Infura checks seven methods only; refusing is the safe side). */
const UNCHECKED_BUT_SERVED = ['eth_callMany', 'eth_simulateV1']

describe('method catalog views', () => {
  it('every method the wallet grants is served by the gateway or answered by the wallet itself', () => {
    const granted = [...EIP155_METHODS, ...WALLET_EIP155_METHODS]
    expect(granted.length).toBeGreaterThan(30)
    for (const m of granted)
      if (entry(m).wallet === 'chain') expect(INFURA_ETHEREUM_METHODS, m).toContain(m)
      else expect(Object.keys(LOCAL_METHODS), m).toContain(m)
    // …and what the wallet answers itself is in a scope.
    for (const m of Object.keys(LOCAL_METHODS)) expect(granted, m).toContain(m)
    for (const m of EIP155_SIGNING_METHODS) expect(entry(m).wallet, m).toBe('approval')
    // Infura does not serve it, so the wallet does not grant it either.
    expect(granted).not.toContain('eth_newPendingTransactionFilter')
  })

  it('every served method has a price (its own, or credits.defaultCost by Infura’s rule)', () => {
    for (const m of SERVED) {
      const credits = entry(m).credits
      expect(credits, m).toBeDefined()
      if (credits !== 'default') expect({ ...DEFAULT_METHOD_COSTS, ...DEV_METHOD_COSTS }[m], m).toBe(credits)
    }
    expect(DEFAULT_METHOD_COSTS.eth_call).toBe(80)
    expect(DEFAULT_METHOD_COSTS.eth_callMany).toBeUndefined() // charged credits.defaultCost
    for (const m of DEV_METHODS) expect(DEFAULT_METHOD_COSTS[m], m).toBeUndefined()
  })

  it('every served method says which addresses it names; devnet methods are never address-checked', () => {
    for (const m of INFURA_ETHEREUM_METHODS)
      if (!UNCHECKED_BUT_SERVED.includes(m))
        expect(ADDRESS_FREE_METHODS.has(m) || ADDRESS_CHECKED_METHODS.has(m), m).toBe(true)
    for (const m of UNCHECKED_BUT_SERVED) expect(entry(m).addresses, m).toBeUndefined()
    for (const m of DEV_METHODS) expect(entry(m).addresses, m).toBeUndefined()
    for (const m of ADDRESS_FREE_METHODS) expect(ADDRESS_CHECKED_METHODS.has(m), m).toBe(false)
  })

  it('every cached or shared method is a served read; unshared ones are filter calls', () => {
    for (const m of [...CACHE_RULES.keys(), ...SHARED_READS].filter((m) => CATALOG.has(m))) {
      expect(INFURA_ETHEREUM_METHODS, m).toContain(m)
      expect(callKind(m), m).toBe('read')
    }
    for (const m of UNSHARED_READS) expect(entry(m).filter, m).toMatch(/^(create|use)$/)
    for (const [m, e] of CATALOG) if (e.blockBound) expect(CACHE_RULES.has(m), m).toBe(true)
  })

  it('retry classes are total over served methods', () => {
    for (const m of SERVED) expect(entry(m).retry, m).toBeDefined()
    expect(callKind('eth_sendRawTransaction')).toBe('send-raw')
    for (const [m, e] of CATALOG)
      if (e.filter !== undefined || e.served === 'devnet' || e.nodeSigning) expect(callKind(m), m).toBe('unsafe')
  })

  it('node-signing methods are never served, whatever the config; devnet methods only with devMethods', () => {
    for (const [m, e] of CATALOG)
      if (e.nodeSigning) {
        expect(neverServed(m), m).toBe(true)
        expect(SERVED, m).not.toContain(m)
      }
    for (const m of SERVED) expect(neverServed(m) && !DEV_METHODS.includes(m), m).toBe(false)
    expect(servedMethods().has('anvil_mine')).toBe(false)
    expect(servedMethods(undefined, true).has('anvil_mine')).toBe(true)
  })
})

describe('every family', () => {
  it('method names never repeat across families, and each names its family', () => {
    const total = CHAIN_FAMILIES.reduce((n, f) => n + catalogFor(f).size, 0)
    expect(ALL_METHODS.size).toBe(total)
    for (const f of CHAIN_FAMILIES) for (const m of catalogFor(f).keys()) expect(familyOf(m), m).toBe(f)
    expect(familyOf('txpool_content')).toBe('evm') // an EVM namespace outside the catalog
    expect(familyOf('getStakeActivation')).toBeUndefined() // removed from Solana's API: no family claims it
  })

  for (const family of CHAIN_FAMILIES)
    it(`${family}: every served method has a price, a retry class and an address rule; views agree with entries`, () => {
      const served = defaultMethods(family)
      expect(served.length).toBeGreaterThan(40)
      for (const m of served) {
        const e = catalogFor(family).get(m)!
        expect(e.credits, m).toBeDefined()
        if (typeof e.credits === 'number')
          expect([m, methodCosts(family)[m], priceOf(family, m)]).toEqual([m, e.credits, e.credits])
        expect(e.retry, m).toBeDefined()
        expect(callKind(m), m).toBe({ read: 'read', write: 'send-raw', 'node-local': 'unsafe' }[e.retry!])
        if (!UNCHECKED_BUT_SERVED.includes(m))
          expect(ADDRESS_FREE_METHODS.has(m) || ADDRESS_CHECKED_METHODS.has(m), m).toBe(true)
        // A read the call layers do not know is taken for a write (it ends the sharing of identical reads); the
        // EVM's few such (eth_mining, eth_getWork …) are left as they were.
        if (family === 'solana' && e.retry === 'read' && e.filter === undefined)
          expect(CACHE_RULES.has(m) || SHARED_READS.has(m) || UNSHARED_READS.has(m) || m === 'eth_getLogs', m).toBe(
            true,
          )
        expect(neverServed(m, family), m).toBe(false)
        expect(priceOf(family === 'evm' ? 'solana' : 'evm', m), m).toBeUndefined()
      }
      for (const [m, e] of catalogFor(family)) {
        if (typeof e.cache === 'object' || e.cache === 'shared') expect(callKind(m), m).toBe('read')
        if (e.walletOnly) expect([m, e.served, neverServed(m, family)]).toEqual([m, undefined, true])
        if (e.subscription !== undefined) expect(e.filter, m).toBe('subscription')
      }
      // Each subscription kind's methods are in the catalog, as a pair.
      for (const k of subscriptionKinds(family)) {
        expect(catalogFor(family).has(k.subscribe), k.subscribe).toBe(true)
        expect(catalogFor(family).has(k.unsubscribe), k.unsubscribe).toBe(true)
      }
    })
})

/** Every HTTP method of https://solana.com/docs/rpc/http (the same set as @solana/kit's SolanaRpcApi). */
const SOLANA_HTTP = [
  'getAccountInfo',
  'getBalance',
  'getBlock',
  'getBlockCommitment',
  'getBlockHeight',
  'getBlockProduction',
  'getBlockTime',
  'getBlocks',
  'getBlocksWithLimit',
  'getClusterNodes',
  'getEpochInfo',
  'getEpochSchedule',
  'getFeeForMessage',
  'getFirstAvailableBlock',
  'getGenesisHash',
  'getHealth',
  'getHighestSnapshotSlot',
  'getIdentity',
  'getInflationGovernor',
  'getInflationRate',
  'getInflationReward',
  'getLargestAccounts',
  'getLatestBlockhash',
  'getLeaderSchedule',
  'getMaxRetransmitSlot',
  'getMaxShredInsertSlot',
  'getMinimumBalanceForRentExemption',
  'getMultipleAccounts',
  'getProgramAccounts',
  'getRecentPerformanceSamples',
  'getRecentPrioritizationFees',
  'getSignatureStatuses',
  'getSignaturesForAddress',
  'getSlot',
  'getSlotLeader',
  'getSlotLeaders',
  'getStakeMinimumDelegation',
  'getSupply',
  'getTokenAccountBalance',
  'getTokenAccountsByDelegate',
  'getTokenAccountsByOwner',
  'getTokenLargestAccounts',
  'getTokenSupply',
  'getTransaction',
  'getTransactionCount',
  'getVersion',
  'getVoteAccounts',
  'isBlockhashValid',
  'minimumLedgerSlot',
  'requestAirdrop',
  'sendTransaction',
  'simulateTransaction',
]
const SOLANA_PUBSUB = ['account', 'logs', 'program', 'signature', 'slot', 'root']

describe('per-method rules', () => {
  it('one range scan (the layers compare its name), idempotent writes are writes, gateway answers are served', () => {
    expect([...ALL_METHODS].filter(([, e]) => e.rangeScan === true).map(([m]) => m)).toEqual([RANGE_SCAN_METHOD])
    expect(RANGE_SCAN_METHOD).toBe('eth_getLogs')
    const idempotent = [...ALL_METHODS].filter(([, e]) => e.idempotentWrite === true)
    expect(idempotent.map(([m]) => m)).toEqual(['eth_sendRawTransaction'])
    for (const [m, e] of idempotent) expect(e.retry, m).toBe('write')
    expect([...ALL_METHODS].filter(([, e]) => 'gatewayResult' in e).map(([m]) => m)).toEqual(['eth_accounts'])
  })
})

describe('EVM namespaces', () => {
  it('one table for the name-prefix rules: family, never served, retry class', () => {
    const all = new RegExp(`^${evmNamespaces()}`)
    // Every EVM catalog method is named with a namespace of the table, so an unlisted one gets the same rules.
    for (const m of catalogFor('evm').keys()) expect(all.test(m), m).toBe(true)
    expect(['clique_propose', 'engine_newPayloadV4', 'admin_peers'].map((m) => [familyOf(m), neverServed(m)])).toEqual(
      Array(3).fill(['evm', true]),
    )
    expect(['debug_setHead', 'hardhat_x', 'eth_newWhateverFilter', 'eth_signTypedData_v9'].map(callKind)).toEqual(
      Array(4).fill('unsafe'),
    )
    expect(['trace_x', 'engine_x', 'ots_getApiLevel', 'bor_getAuthor'].map(callKind)).toEqual(Array(4).fill('read'))
  })
})

describe('subscription kinds', () => {
  it("each family's kind table agrees with its union and with its subscribe entries", () => {
    const names = { evm: EVM_SUBSCRIPTION_KINDS, solana: SOLANA_SUBSCRIPTION_KINDS }
    for (const family of CHAIN_FAMILIES) {
      const kinds = subscriptionKinds(family)
      expect(
        kinds.map((k) => k.kind),
        family,
      ).toEqual([...names[family]])
      for (const k of kinds) {
        expect(catalogFor(family).get(k.subscribe)?.filter, k.subscribe).toBe('subscription')
        expect(catalogFor(family).get(k.unsubscribe)?.filter, k.unsubscribe).toBe('subscription')
        if (family === 'solana') {
          expect(catalogFor(family).get(k.subscribe)?.subscription, k.subscribe).toEqual({
            kind: k.kind,
            role: 'subscribe',
          })
          expect(catalogFor(family).get(k.unsubscribe)?.subscription).toEqual({ kind: k.kind, role: 'unsubscribe' })
          expect(!!k.unstable, k.kind).toBe(catalogFor(family).get(k.subscribe)?.served === undefined)
        }
        // Priced and labelled: its default event price, a ledger label the usage views keep.
        expect(DEFAULT_EVENT_COSTS[k.price], k.kind).toBe(k.credits)
        expect(methodLabel(k.label, new Set()), k.label).toBe(k.label)
      }
      // Every `*Subscribe` entry opens one of the table's kinds, and every kind has one (EVM's eth_subscribe names
      // its kind in params[0], so none of its entries does).
      const subscribeKinds = [...catalogFor(family).values()].flatMap((e) =>
        e.subscription?.role === 'subscribe' ? [e.subscription.kind] : [],
      )
      expect(subscribeKinds.sort(), family).toEqual(family === 'solana' ? kinds.map((k) => k.kind).sort() : [])
    }
    // Infura's event prices, the charge rules and what is replayed after a lost node connection.
    expect(subscriptionKinds('evm').map((k) => [k.kind, k.credits, k.charge, k.replay])).toEqual([
      ['newHeads', 50, 'each', 'heads'],
      ['logs', 300, 'per-block', 'logs'],
      ['newPendingTransactions', 200, 'per-second', undefined],
    ])
    for (const k of subscriptionKinds('solana'))
      expect([k.kind, k.credits, k.charge, k.replay]).toEqual([k.kind, 180, 'each', undefined])
  })
})

describe('solana catalog', () => {
  const sol = catalogFor('solana')
  it('serves every HTTP method of the docs and the stable PubSub pairs, nothing else by default', () => {
    expect(SOLANA_HTTP).toHaveLength(52)
    const pubsub = SOLANA_PUBSUB.flatMap((k) => [`${k}Subscribe`, `${k}Unsubscribe`])
    expect([...defaultMethods('solana')].sort()).toEqual([...SOLANA_HTTP, ...pubsub].sort())
    expect(subscriptionKinds('solana').map((k) => [k.kind, k.notification, k.unstable ?? false])).toEqual([
      ...SOLANA_PUBSUB.map((k) => [k, `${k}Notification`, false]),
      ['block', 'blockNotification', true],
      ['vote', 'voteNotification', true],
      ['slotsUpdates', 'slotsUpdatesNotification', true],
    ])
    expect(subscriptionKinds('evm').map((k) => k.kind)).toEqual(['newHeads', 'logs', 'newPendingTransactions'])
  })

  it('prices every method 180 (Infura), heavy scans ten times that', () => {
    for (const m of defaultMethods('solana')) expect([m, priceOf('solana', m)]).toEqual([m, 180])
    expect([...HEAVY_METHODS].sort()).toEqual(['getLargestAccounts', 'getProgramAccounts'])
    const program = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
    expect(heavyFactor('getProgramAccounts', [program])).toBe(10)
    expect(heavyFactor('getProgramAccounts', [program, { filters: [] }])).toBe(10)
    expect(heavyFactor('getProgramAccounts', [program, { filters: [{ dataSize: 165 }] }])).toBe(1)
    expect(heavyFactor('getLargestAccounts', [])).toBe(10)
    expect(heavyFactor('getBalance', [program])).toBe(1)
    expect(heavyFactor('eth_getLogs', [{}])).toBe(1)
  })

  it('retries reads, resends sendTransaction without hedging, keeps airdrops and subscriptions on their node', () => {
    expect(callKind('getAccountInfo')).toBe('read')
    expect(callKind('sendTransaction')).toBe('send-raw')
    expect(callKind('requestAirdrop')).toBe('unsafe')
    expect(callKind('accountSubscribe')).toBe('unsafe')
  })

  it('caches by commitment: finalized blocks and transactions, static facts; never a write', () => {
    expect(CACHE_RULES.get('getBlock')).toEqual({ kind: 'finalized', config: 1 })
    expect(CACHE_RULES.get('getTransaction')).toEqual({ kind: 'finalized', config: 1 })
    expect(CACHE_RULES.get('getGenesisHash')).toEqual({ kind: 'static' })
    for (const m of ['sendTransaction', 'requestAirdrop']) {
      expect(CACHE_RULES.has(m) || SHARED_READS.has(m), m).toBe(false)
    }
    for (const [m, e] of sol) if (e.blockBound) expect(e.retry, m).toBe('read')
  })

  it("lists the wallet's signing methods for the wallet's solana scopes; no node serves them", () => {
    const wallet = [...sol].filter(([, e]) => e.wallet === 'approval').map(([m]) => m)
    expect(wallet).toEqual([
      'signMessage',
      'signTransaction',
      'signAllTransactions',
      'signAndSendTransaction',
      'signIn',
    ])
    expect(() => servedMethods({ allow: ['signMessage'] }, false, 'solana')).toThrow(
      /signMessage can never be served through an API key \(the wallet's, not a node's/,
    )
  })

  it("refuses another family's method in a network's allow list, naming both families", () => {
    expect(() => servedMethods({ allow: ['getBalance'] })).toThrow(
      'networks[].methods.allow: getBalance is a Solana method; this network is EVM (docs/config.md)',
    )
    expect(() => servedMethods({ allow: ['eth_call', 'txpool_content'] }, false, 'solana')).toThrow(
      /eth_call is an EVM method, txpool_content is an EVM method; this network is Solana/,
    )
    expect(servedMethods({ allow: ['getAgGenesisCert'] }, false, 'solana').has('getAgGenesisCert')).toBe(true)
    expect(servedMethods({ deny: ['requestAirdrop'] }, false, 'solana').has('requestAirdrop')).toBe(false)
    expect(servedMethods(undefined, false, 'solana').has('getBalance')).toBe(true)
    expect(servedMethods(undefined, false, 'solana').has('eth_call')).toBe(false)
  })
})

const SRC = join(import.meta.dirname, '..')
/** Solana's method names (camelCase, no namespace): those of its catalog. */
const SOLANA_NAMES: ReadonlySet<string> = new Set(catalogFor('solana').keys())
/** A cheap first pass: files with fewer distinct words like method names cannot name ten methods. */
const WORD = new RegExp(
  '\\b((eth|net|web3|debug|trace|anvil|evm|hardhat|personal|wallet|txpool|parity|erigon|ots|admin|miner|engine)_\\w+|' +
    `${[...SOLANA_NAMES].join('|')})\\b`,
  'g',
)
const METHOD =
  /^(eth|net|web3|debug|trace|anvil|evm|hardhat|personal|wallet|txpool|parity|erigon|ots|admin|miner|engine)_/

/** The chain method names a file spells out: string literals and object keys. */
export function methodNames(text: string): Set<string> {
  const names = new Set<string>()
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) || (ts.isIdentifier(node) && ts.isPropertyAssignment(node.parent)))
      if (METHOD.test(node.text) || SOLANA_NAMES.has(node.text)) names.add(node.text)
    ts.forEachChild(node, visit)
  }
  visit(ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true))
  return names
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) return sources(p)
    return p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : []
  })
}

describe('one method table', () => {
  it('counts method names in literals and object keys', () => {
    const names = methodNames(
      "const a = { eth_call: 1, 'net_version': 2, getSlot: 3 }; f('web3_clientVersion', `debug_x`, 'x_y', 'getFoo')",
    )
    expect([...names].sort()).toEqual(['debug_x', 'eth_call', 'getSlot', 'net_version', 'web3_clientVersion'])
  })

  it('exactly one src file per family, its catalog, names ten or more chain methods', () => {
    // The embedded Solana devnet is a node, not the gateway: it implements the methods it answers, one by one.
    const many = sources(SRC)
      .map((f) => ({ file: relative(SRC, f), text: readFileSync(f, 'utf8') }))
      .filter((f) => !f.file.startsWith(join('upstreams', 'devnet', 'solana')))
      .filter((f) => new Set(f.text.match(WORD)).size >= 10)
      .map((f) => ({ file: f.file, count: methodNames(f.text).size }))
      .filter((f) => f.count >= 10)
    expect(many.map((f) => f.file).sort()).toEqual([
      join('methods', 'evm', 'catalog.ts'),
      join('methods', 'solana', 'catalog.ts'),
    ])
    for (const f of many) expect(f.count, f.file).toBeGreaterThan(60)
  })
})
