/**
 * The EVM node namespaces (geth's, anvil's, hardhat's, the engine API, the L2s' …): the prefix before `_` of a
 * method name. A method outside the catalog (a network's `methods.allow` may add any) is judged by its namespace:
 * its family, whether it may ever be served through an API key, how it is retried. One table, so the name-prefix
 * rules of the catalog (familyOf), the served lists (neverServed) and the retry classes (callKind) cannot drift.
 * Solana's node methods are camelCase, without a namespace.
 */
interface Namespace {
  /** Administers or rewrites the node (geth's admin, anvil's state …): never served through an API key. */
  control?: true
  /** Its effect or answer belongs to the node it reached (signing, mining, devnet state, debug): retried only when
   * the node surely did not get it. */
  nodeLocal?: true
}

const NAMESPACES: Readonly<Record<string, Namespace>> = {
  eth: {},
  net: {},
  web3: {},
  debug: { nodeLocal: true },
  trace: {},
  txpool: {},
  parity: {},
  erigon: {},
  ots: {},
  admin: { control: true, nodeLocal: true },
  miner: { control: true, nodeLocal: true },
  engine: { control: true },
  personal: { control: true, nodeLocal: true },
  anvil: { control: true, nodeLocal: true },
  evm: { control: true, nodeLocal: true },
  hardhat: { control: true, nodeLocal: true },
  clique: { control: true },
  wallet: {},
  linea: {},
  bor: {},
}

/** `(a|b|…)_`: the namespaces of the table that `test` picks, as the start of a regex alternative. */
export const evmNamespaces = (test: (n: Namespace) => boolean = () => true): string =>
  `(${Object.keys(NAMESPACES)
    .filter((n) => test(NAMESPACES[n]!))
    .join('|')})_`
