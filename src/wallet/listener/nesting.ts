/**
 * The gateway's nesting limit for wallet messages (issue 20): a wallet_invokeMethod whose `request.params` nest
 * deeper than the gateway accepts gets the gateway's own answer (-32600 "nested deeper than 64 levels") with the
 * call's id, found on the message text before anything serializes the params or walks them recursively.
 */
import { MAX_CALL_DEPTH } from '../../jsonrpc/body-check.ts'

/**
 * The call inside `wallet_invokeMethod` sits two levels down (message → params → request), and the gateway counts
 * the call object as level 1: so a message may nest two levels more than a gateway call.
 */
export const MAX_MESSAGE_DEPTH = MAX_CALL_DEPTH + 2

export const NESTING_REASON = `nested deeper than ${MAX_CALL_DEPTH} levels`

/** True when parsed JSON `text` nests objects and arrays deeper than `max` (strings are skipped). */
export function nestsDeeperThan(text: string, max: number = MAX_MESSAGE_DEPTH): boolean {
  let openings = 0
  for (let at = text.indexOf('{'); at !== -1 && openings <= max; at = text.indexOf('{', at + 1)) openings++
  for (let at = text.indexOf('['); at !== -1 && openings <= max; at = text.indexOf('[', at + 1)) openings++
  if (openings <= max) return false // depth is at most the number of opening brackets
  let depth = 0
  const n = text.length
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // A string (valid JSON, so it ends): skip to its closing quote, past escapes.
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i)
        if (d === 0x5c) i++
        else if (d === 0x22) break
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true
    } else if (c === 0x7d || c === 0x5d) depth--
  }
  return false
}
