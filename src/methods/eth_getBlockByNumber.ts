/**
 * eth_getBlockByNumber `[block, fullTransactions]` (https://ethereum.github.io/execution-apis/), both required. The
 * block is a hex quantity or a tag; checked here so a wrong type gets a clear -32602 naming the parameter instead of
 * a node-specific message.
 */
import { errors } from '../errors/index.ts'

const TAGS = new Set(['latest', 'earliest', 'pending', 'safe', 'finalized'])
// Regex, not viem's isHex (src/shared/hex.ts): checked on every call, on the measured per-request path.
const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/i

export function validateGetBlockByNumber(params: unknown) {
  if (!Array.isArray(params) || params.length !== 2)
    return errors.invalidParams('eth_getBlockByNumber takes [block, fullTransactions]: two parameters')
  const [block, full] = params
  if (typeof block !== 'string' || !(TAGS.has(block) || QUANTITY.test(block)))
    return errors.invalidParams(
      'parameter 1 (block) must be a hex quantity such as "0x1b4", ' +
        'or one of latest, earliest, pending, safe, finalized',
    )
  if (typeof full !== 'boolean') return errors.invalidParams('parameter 2 (fullTransactions) must be true or false')
  return undefined
}
