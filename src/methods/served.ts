/**
 * The JSON-RPC methods a network serves: an explicit list, never a namespace prefix (a prefix let node-signing
 * methods such as eth_sendTransactionSync and node controls such as debug_setHead through). The default is the
 * Ethereum list Infura documents — https://docs.metamask.io/services/reference/ethereum/json-rpc-methods/
 * (standard, subscription, filter, trace and debug methods) — changed per network with
 * `networks[].methods.{allow,deny}` (docs/config.md). Built once per network at start from the method catalog
 * (catalog.ts); a call is one Set lookup.
 */
import { methodsWhere } from './catalog.ts'

/** Infura's Ethereum list: served on every network unless its config says otherwise. */
export const INFURA_ETHEREUM_METHODS: readonly string[] = methodsWhere((e) => e.served === 'infura')

/** Methods that sign with keys the node holds: a key holder would spend the node operator's accounts. */
const NODE_SIGNING: ReadonlySet<string> = new Set(methodsWhere((e) => e.nodeSigning === true))
/** Namespaces that administer or rewrite the node (geth, anvil, hardhat, the engine API). */
const NODE_CONTROL = /^(admin|personal|miner|anvil|evm|hardhat|engine|clique)_/
/** The debug methods that only read; every other debug_* can change or stop the node (debug_setHead …). */
const DEBUG_READ =
  /^debug_(trace\w*|storageRangeAt|getRaw\w+|getBadBlocks|getAccessibleState|getModifiedAccountsBy\w+)$/

/** Whether a method can never be served through an API key, whatever the configuration says. */
export function neverServed(method: string): boolean {
  return (
    NODE_SIGNING.has(method) || NODE_CONTROL.test(method) || (method.startsWith('debug_') && !DEBUG_READ.test(method))
  )
}

export interface MethodsConfig {
  allow?: readonly string[] | undefined
  deny?: readonly string[] | undefined
}

const DEFAULT_SERVED: ReadonlySet<string> = new Set(INFURA_ETHEREUM_METHODS)

/**
 * What a local devnet answers (anvil's evm_*, anvil_* and their hardhat_* aliases), served on embedded networks
 * (`networks[].devMethods`); the catalog says which are left out on purpose and why.
 */
export const DEV_METHODS: readonly string[] = methodsWhere((e) => e.served === 'devnet')

/**
 * A network's served methods: Infura's list (plus DEV_METHODS when `devMethods`), plus `allow`, minus `deny`.
 * Throws on an `allow` entry that can never be served.
 */
export function servedMethods(config?: MethodsConfig, devMethods = false): ReadonlySet<string> {
  if (!devMethods && (config === undefined || ((config.allow?.length ?? 0) === 0 && (config.deny?.length ?? 0) === 0)))
    return DEFAULT_SERVED
  const refused = (config?.allow ?? []).filter(neverServed)
  if (refused.length > 0)
    throw new Error(
      `networks[].methods.allow: ${refused.join(', ')} can never be served through an API key ` +
        '(node signing or node control; docs/config.md)',
    )
  const set = new Set([...INFURA_ETHEREUM_METHODS, ...(devMethods ? DEV_METHODS : []), ...(config?.allow ?? [])])
  for (const m of config?.deny ?? []) set.delete(m)
  return set
}

export { DEFAULT_SERVED }
