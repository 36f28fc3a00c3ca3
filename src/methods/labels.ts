/**
 * Labels for what the gateway stores or exports per method (usage ledger, /usage, /metrics). A client chooses
 * the method name — up to the body limit, megabytes — so a name is kept only when the gateway serves it;
 * anything else becomes `other`. Every stored label is also capped in length.
 */
import { CHAIN_FAMILIES, subscriptionKinds } from './catalog.ts'

/** Longest label stored (a network name is at most 63 characters, served method names are shorter). */
export const MAX_LABEL_LENGTH = 64

export const OTHER_METHOD = 'other'

/** Labels the gateway itself records in place of a method name. */
const INTERNAL = new Set([
  '(invalid)',
  '(refused)',
  '(none)',
  'batch',
  // Subscription events, recorded under their kind's label (eth_subscription:newHeads, slotNotification …).
  ...CHAIN_FAMILIES.flatMap((f) => subscriptionKinds(f).map((k) => k.label)),
])

/** The method as stored: itself when served (or an internal label), else `other`. */
export function methodLabel(method: string, served: ReadonlySet<string>): string {
  // Checked first, so a megabyte-long name is never hashed for the lookup.
  if (method.length > MAX_LABEL_LENGTH) return OTHER_METHOD
  return served.has(method) || INTERNAL.has(method) ? method : OTHER_METHOD
}

/** Any other stored label (network, error kind): cut to MAX_LABEL_LENGTH characters. */
export function capLabel(label: string): string {
  return label.length > MAX_LABEL_LENGTH ? label.slice(0, MAX_LABEL_LENGTH) : label
}
