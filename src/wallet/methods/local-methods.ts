/**
 * The wallet's own methods of a family are the catalog's: every method whose `wallet` column says the wallet answers
 * it (`wallet`, `approval`, `wallet-scope`; src/methods/entry.ts) has exactly one handler, and no handler exists for
 * another method. Checked when the handler table is built (module load), so a new catalog row without its handler,
 * or a handler the catalog does not list, fails at start and in every test that imports the wallet.
 */
import { type ChainFamily, methodsWhere } from '../../methods/catalog.ts'

/** The methods of `family` the wallet answers itself, in catalog order (the catalog's `wallet` column). */
export const walletAnsweredMethods = (family: ChainFamily): string[] =>
  methodsWhere(family, (e) => e.wallet !== undefined && e.wallet !== 'chain')

/** `handlers` keyed by the catalog's wallet-answered methods of `family`; throws when the two differ. */
export function localMethodsFor<H>(
  family: ChainFamily,
  handlers: Readonly<Record<string, H>>,
): Readonly<Record<string, H>> {
  const listed = walletAnsweredMethods(family)
  const missing = listed.filter((m) => !Object.hasOwn(handlers, m))
  const extra = Object.keys(handlers).filter((m) => !listed.includes(m))
  if (missing.length > 0 || extra.length > 0)
    throw new Error(
      `wallet ${family} methods differ from the catalog's wallet column: ` +
        `no handler for [${missing.join(', ')}], not in the catalog [${extra.join(', ')}]`,
    )
  return Object.freeze(Object.fromEntries(listed.map((m) => [m, handlers[m]!])))
}
