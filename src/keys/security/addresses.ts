/**
 * Which addresses a call names, for the contract-address allowlist (Infura: "Any requests which query addresses
 * that aren't in the allowlist are rejected",
 * https://docs.metamask.io/developer-tools/dashboard/how-to/secure-an-api/use-an-allowlist/ ).
 * Infura documents seven checked methods; here every served method that names an address is checked, and the
 * list is closed: a method whose catalog entry (src/methods/catalog.ts) neither says it names no address nor says
 * how to read its addresses is refused for a key with an address allowlist, so a method added to a network later
 * cannot slip past it. docs/key-security.md lists the three groups.
 */
import { ALL_METHODS, anyMethodsWhere, type AddressExtractor } from '../../methods/catalog.ts'

export { isAddress } from '../../methods/addresses.ts'

/** Methods that name no address (block, transaction and filter-id reads, chain facts). */
export const ADDRESS_FREE_METHODS: ReadonlySet<string> = new Set(anyMethodsWhere((e) => e.addresses === 'none'))

/** Methods that name addresses, and how to read them. */
const EXTRACTORS: ReadonlyMap<string, AddressExtractor> = new Map(
  [...ALL_METHODS].flatMap(([m, e]) => (typeof e.addresses === 'function' ? [[m, e.addresses] as const] : [])),
)

const NONE: string[] = []

/**
 * The addresses a call names (EVM: lowercase hex; Solana: base58 as written, by every family's catalog: method names
 * are unique across families), or null when it names none (not address-checked). An empty array means
 * the call may reach addresses it does not name (eth_getLogs without an address filter, eth_call without `to`),
 * its params could not be read, or the method is not known here: rejected when the key has an address allowlist.
 */
export function touchedAddresses(method: string, params: unknown): string[] | null {
  if (ADDRESS_FREE_METHODS.has(method)) return null
  const extract = EXTRACTORS.get(method)
  return extract === undefined ? NONE : extract(params)
}

/** Methods whose address is checked (for docs and tests). */
export const ADDRESS_CHECKED_METHODS: ReadonlySet<string> = new Set(EXTRACTORS.keys())
