/**
 * The JSON-RPC methods a network serves: an explicit list, never a namespace prefix (a prefix let node-signing
 * methods such as eth_sendTransactionSync and node controls such as debug_setHead through). The default is the
 * family's list (the catalog's `served: 'infura'` entries): on EVM networks the Ethereum list Infura documents —
 * https://docs.metamask.io/services/reference/ethereum/json-rpc-methods/ (standard, subscription, filter, trace and
 * debug methods) —, on Solana networks the standard Solana API (https://solana.com/docs/rpc), changed per network
 * with `networks[].methods.{allow,deny}` (docs/config.md). Built once per network at start from the family's method
 * catalog (catalog.ts); a call is one Set lookup.
 */
import { evmNamespaces, FAMILY_NAMES, familyOf, methodsWhere, type ChainFamily } from './catalog.ts'

const servedBy = (family: ChainFamily) => methodsWhere(family, (e) => e.served === 'infura')
const DEFAULT_LISTS: Readonly<Record<ChainFamily, readonly string[]>> = {
  evm: servedBy('evm'),
  solana: servedBy('solana'),
}

/** A family's default list: served on every network of the family unless its config says otherwise. */
export const defaultMethods = (family: ChainFamily): readonly string[] => DEFAULT_LISTS[family]

/** Infura's Ethereum list: served on every EVM network unless its config says otherwise. */
export const INFURA_ETHEREUM_METHODS: readonly string[] = DEFAULT_LISTS.evm

/** Methods that sign with keys the node holds: a key holder would spend the node operator's accounts. */
const NODE_SIGNING: ReadonlySet<string> = new Set(methodsWhere('evm', (e) => e.nodeSigning === true))
/** Namespaces that administer or rewrite the node (geth, anvil, hardhat, the engine API): the catalog's. */
const NODE_CONTROL = new RegExp(`^${evmNamespaces((n) => n.control === true)}`)
/** The debug methods that only read; every other debug_* can change or stop the node (debug_setHead …). */
const DEBUG_READ =
  /^debug_(trace\w*|storageRangeAt|getRaw\w+|getBadBlocks|getAccessibleState|getModifiedAccountsBy\w+)$/

/** A family's wallet methods (Solana's signMessage …): the wallet's, never a node's. */
const WALLET_ONLY: Readonly<Record<ChainFamily, ReadonlySet<string>>> = {
  evm: new Set(methodsWhere('evm', (e) => e.walletOnly === true)),
  solana: new Set(methodsWhere('solana', (e) => e.walletOnly === true)),
}

/** The family a method belongs to when it is another's than `family` (a Solana method on an EVM network …). */
export function otherFamily(method: string, family: ChainFamily): ChainFamily | undefined {
  const f = familyOf(method)
  return f === undefined || f === family ? undefined : f
}

/**
 * Whether a method can never be served through an API key on a network of `family`, whatever the configuration
 * says: node signing and node control (EVM), a wallet's method, or another family's method.
 */
export function neverServed(method: string, family: ChainFamily = 'evm'): boolean {
  if (WALLET_ONLY[family].has(method) || otherFamily(method, family) !== undefined) return true
  if (family !== 'evm') return false
  return (
    NODE_SIGNING.has(method) || NODE_CONTROL.test(method) || (method.startsWith('debug_') && !DEBUG_READ.test(method))
  )
}

export interface MethodsConfig {
  allow?: readonly string[] | undefined
  deny?: readonly string[] | undefined
}

const DEFAULT_SETS: Readonly<Record<ChainFamily, ReadonlySet<string>>> = {
  evm: new Set(DEFAULT_LISTS.evm),
  solana: new Set(DEFAULT_LISTS.solana),
}
/** The EVM default set (usage labels' default, the method policy's default). */
const DEFAULT_SERVED: ReadonlySet<string> = DEFAULT_SETS.evm

/** A family's default set, built once. */
export const defaultServed = (family: ChainFamily): ReadonlySet<string> => DEFAULT_SETS[family]

/**
 * What a local EVM devnet answers (anvil's evm_*, anvil_* and their hardhat_* aliases), served on embedded networks
 * (`networks[].devMethods`); the catalog says which are left out on purpose and why.
 */
export const DEV_METHODS: readonly string[] = methodsWhere('evm', (e) => e.served === 'devnet')
const DEV_LISTS: Readonly<Record<ChainFamily, readonly string[]>> = {
  evm: DEV_METHODS,
  solana: methodsWhere('solana', (e) => e.served === 'devnet'),
}

/**
 * A network's served methods: its family's list (plus the family's devnet methods when `devMethods`), plus `allow`,
 * minus `deny`. Throws on an `allow` entry that can never be served there (another family's method included).
 */
export function servedMethods(
  config?: MethodsConfig,
  devMethods = false,
  family: ChainFamily = 'evm',
): ReadonlySet<string> {
  if (!devMethods && (config === undefined || ((config.allow?.length ?? 0) === 0 && (config.deny?.length ?? 0) === 0)))
    return DEFAULT_SETS[family]
  const allow = config?.allow ?? []
  const foreign = allow.filter((m) => otherFamily(m, family) !== undefined)
  if (foreign.length > 0) {
    const named = foreign.map((m) => `${m} is ${article(otherFamily(m, family)!)} method`)
    throw new Error(
      `networks[].methods.allow: ${named.join(', ')}; this network is ${FAMILY_NAMES[family]} (docs/config.md)`,
    )
  }
  const refused = allow.filter((m) => neverServed(m, family))
  if (refused.length > 0)
    throw new Error(
      `networks[].methods.allow: ${refused.join(', ')} can never be served through an API key ` +
        `(${family === 'evm' ? 'node signing or node control' : "the wallet's, not a node's"}; docs/config.md)`,
    )
  const set = new Set([...DEFAULT_LISTS[family], ...(devMethods ? DEV_LISTS[family] : []), ...allow])
  for (const m of config?.deny ?? []) set.delete(m)
  return set
}

/** "an EVM", "a Solana". */
export const article = (family: ChainFamily): string =>
  `${/^[AEIOU]/.test(FAMILY_NAMES[family]) ? 'an' : 'a'} ${FAMILY_NAMES[family]}`

export { DEFAULT_SERVED }
