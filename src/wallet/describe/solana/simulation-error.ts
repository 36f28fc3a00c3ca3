/**
 * A simulation's `err` (Agave's TransactionError as JSON: `"BlockhashNotFound"`, `{ "InstructionError": [1,
 * { "Custom": 1 }] }`, `{ "InsufficientFundsForRent": { "account_index": 2 } }`) as a short sentence.
 */
import { splitName } from './instructions.ts'

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** `custom program error 0x1`, `insufficient funds`, as the CLI prints them. */
function instructionError(e: unknown): string {
  if (typeof e === 'string') return splitName(e).toLowerCase()
  if (isObject(e) && typeof e.Custom === 'number') return `custom program error 0x${e.Custom.toString(16)}`
  if (isObject(e) && typeof e.BorshIoError === 'string') return `serialization error ${e.BorshIoError.slice(0, 100)}`
  return JSON.stringify(e)?.slice(0, 200) ?? 'unknown error'
}

export function describeSimulationError(err: unknown): string {
  if (typeof err === 'string') return splitName(err).toLowerCase()
  if (isObject(err)) {
    const ie = err.InstructionError
    if (Array.isArray(ie) && typeof ie[0] === 'number')
      return `instruction #${ie[0] + 1} failed: ${instructionError(ie[1])}`
    const [kind, detail] = Object.entries(err)[0] ?? []
    if (kind) {
      const index =
        isObject(detail) && typeof detail.account_index === 'number' ? ` (account ${detail.account_index})` : ''
      return `${splitName(kind).toLowerCase()}${index}`
    }
  }
  return JSON.stringify(err)?.slice(0, 200) ?? 'unknown error'
}
