/**
 * What the usage ledger's own labels mean, in words (docs/dashboard.md, "Usage labels"). The gateway stores these
 * in place of a method name (src/gateway/pipeline/steps/settle.ts, src/methods/labels.ts); a user reading the usage
 * page should not have to know them.
 */
import { subscriptionKinds } from '../methods/catalog.ts'
import { OTHER_METHOD } from '../methods/labels.ts'

export interface LabelMeaning {
  /** Shown in charts and tables instead of the stored label. */
  name: string
  /** One sentence for the legend under the table. */
  meaning: string
}

const METHOD_LABELS: Record<string, LabelMeaning> = {
  '(invalid)': {
    name: 'rejected input',
    meaning:
      'Requests or calls refused for their input (not JSON, not a valid JSON-RPC call, bad parameters); ' +
      'each costs the input-error fee.',
  },
  batch: {
    name: 'batch refused by a limit',
    meaning:
      'Batches refused as a whole by a credit limit (their calls counted as errors, free), and the batch fee ' +
      'when credits.batchEnvelope is set.',
  },
  '(refused)': {
    name: 'refused by key settings',
    meaning: "Calls refused by the key's security settings (secret, JWT or allowlists).",
  },
  '(none)': { name: 'request without calls', meaning: 'Requests refused before any call could be read.' },
  [OTHER_METHOD]: {
    name: 'unsupported method',
    meaning:
      'Calls of methods no network of this gateway serves (recorded under one label, whatever name the client sent).',
  },
}

const SUBSCRIPTION = 'eth_subscription:'
/** Solana's subscription events: recorded under their notification's method, by kind. */
const SOLANA_EVENTS = new Map(subscriptionKinds('solana').map((k) => [k.notification, k]))

/** The meaning of a stored method label, or undefined for a real method name. */
export function methodLabelMeaning(label: string): LabelMeaning | undefined {
  if (Object.hasOwn(METHOD_LABELS, label)) return METHOD_LABELS[label]
  if (label.startsWith(SUBSCRIPTION)) {
    const kind = label.slice(SUBSCRIPTION.length)
    return {
      name: `${kind} subscription events`,
      meaning: `Events delivered on ${kind} subscriptions (eth_subscribe), charged per event.`,
    }
  }
  const solana = SOLANA_EVENTS.get(label)
  if (solana !== undefined)
    return {
      name: `${solana.kind} subscription events`,
      meaning: `Notifications delivered on ${solana.subscribe} subscriptions (Solana), charged per notification.`,
    }
  return undefined
}

/** The readable name of a stored method label (a real method name stays itself). */
export const methodDisplayName = (label: string): string => methodLabelMeaning(label)?.name ?? label

/** A stored error label (`http:429`, `rpc:-32000`) in words. */
export function errorDisplayName(label: string): string {
  const http = /^http:(\d{3})$/.exec(label)
  if (http) return `HTTP ${http[1]}${HTTP_WORDS[http[1]!] ? ` (${HTTP_WORDS[http[1]!]})` : ''}`
  const rpc = /^rpc:(-?\d+)$/.exec(label)
  if (rpc) return `JSON-RPC error ${rpc[1]}`
  return label
}

const HTTP_WORDS: Record<string, string> = {
  '400': 'bad request',
  '401': 'key or secret refused',
  '402': 'daily credits used up',
  '403': 'refused by key settings',
  '404': 'no such endpoint',
  '413': 'body too large',
  '429': 'over a credits limit',
  '503': 'network unavailable',
}
