/**
 * Filter ids that name the node holding the filter and the key that owns it (docs/upstreams.md, "Filters"). A
 * network hands clients `eth_newFilter` / `eth_newBlockFilter` / `eth_newPendingTransactionFilter` ids that carry
 * which of its nodes created the filter, so `eth_getFilterChanges` / `eth_getFilterLogs` / `eth_uninstallFilter`
 * reach that node from any replica or worker: nothing is stored, every process decodes the same id the same way.
 *
 *   0x  c|d  II  FFFF  OOOO  <node id, masked>
 *
 * - `c`: the node's id was `0x` + lowercase hex digits; they follow (masked, below; leading zeros kept).
 *   `d`: any other id (upper case, no `0x`, not hex): its UTF-8 bytes in hex. Either way the node gets back
 *   exactly the string it handed out (nodes compare ids as strings).
 * - `II`: the node's position in the network's `upstreams` list (00–ff).
 * - `FFFF`: 16 bits of SHA-256 over the network name and the node's URL without credentials (what /healthz shows):
 *   an id minted before the config changed under that position is not sent to another node.
 * - `OOOO` and the mask: a filter belongs to the API key that created it. The caller passes an opaque owner (the
 *   key id); the node's digits are XORed with a SHA-256 keystream of the owner, and `OOOO` is 16 bits of SHA-256
 *   over the owner and the node's id. Another key decodes a different node id whose `OOOO` does not match: the id is
 *   nobody's to it, the same answer as an unknown id. Without the owner (key ids are not shown to other accounts)
 *   the node's id cannot be read back out of the client's id to be re-encoded for another key.
 *
 * The first digit is never 0, so the id stays a QUANTITY (`0x` + hex digits, no leading zero) that clients such as
 * viem and ethers accept. Decoding never throws: anything that is not such an id is `undefined`.
 */
import { createHash } from 'node:crypto'

const TAG_HEX = 'c'
const TAG_BYTES = 'd'
/** Positions an id can name (two hex digits). */
export const MAX_FILTER_NODES = 256
/** Ids longer than this are nobody's: not decoded (a node's own ids are 3–66 characters). */
export const MAX_FILTER_ID_LENGTH = 1024
const HEADER = 2 + 1 + 2 + 4 + 4 // 0x, tag, position, fingerprint, owner tag

const LOWER_HEX_ID = /^0x[0-9a-f]+$/
const HEX_DIGITS = /^[0-9a-f]+$/
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** The 4 hex digits that tell one node of a network from the one that held its position under another config. */
export const nodeFingerprint = (network: string, label: string): string =>
  createHash('sha256').update(`${network}\n${label}`).digest('hex').slice(0, 4)

/** 16 bits binding a node's id to its owner. */
const ownerTag = (owner: string, nodeId: string): string =>
  createHash('sha256').update(`${owner}\n${nodeId}`).digest('hex').slice(0, 4)

/** The hex digits `digits` XORed with a keystream of the owner and the id's header (its own inverse). */
function masked(digits: string, owner: string, head: string): string {
  let out = ''
  for (let block = 0; out.length < digits.length; block++) {
    const key = createHash('sha256').update(`${owner}\n${head}\n${block}`).digest('hex')
    const end = Math.min(digits.length, out.length + key.length)
    for (let i = out.length, k = 0; i < end; i++, k++)
      out += (parseInt(digits[i]!, 16) ^ parseInt(key[k]!, 16)).toString(16)
  }
  return out
}

/**
 * The id the client gets for the node's `nodeId`, bound to `owner` (the API key's id; '' when none); the node's own
 * id when it cannot be encoded (then it is no one's).
 */
export function encodeFilterId(position: number, fingerprint: string, nodeId: string, owner = ''): string {
  if (
    !Number.isInteger(position) ||
    position < 0 ||
    position >= MAX_FILTER_NODES ||
    !/^[0-9a-f]{4}$/.test(fingerprint) ||
    nodeId.length === 0
  )
    return nodeId
  const hex = LOWER_HEX_ID.test(nodeId)
  const head = `${hex ? TAG_HEX : TAG_BYTES}${position.toString(16).padStart(2, '0')}${fingerprint}`
  const digits = hex ? nodeId.slice(2) : Buffer.from(nodeId, 'utf8').toString('hex')
  if (HEADER + digits.length > MAX_FILTER_ID_LENGTH) return nodeId
  return `0x${head}${ownerTag(owner, nodeId)}${masked(digits, owner, head)}`
}

export interface DecodedFilterId {
  /** The node's position in the network's upstream list. */
  position: number
  fingerprint: string
  /** The id the node handed out, exactly. */
  nodeId: string
}

/**
 * A client's filter id back to the node and its own id; undefined for anything this gateway did not hand out to
 * `owner`.
 */
export function decodeFilterId(id: unknown, owner = ''): DecodedFilterId | undefined {
  if (typeof id !== 'string' || id.length <= HEADER || id.length > MAX_FILTER_ID_LENGTH) return undefined
  // Hex is case-insensitive for clients that upper-case it; the node's digits were lower case (tag c).
  const s = id.toLowerCase()
  if (s[0] !== '0' || s[1] !== 'x' || !HEX_DIGITS.test(s.slice(2))) return undefined
  const tag = s[2]
  const position = parseInt(s.slice(3, 5), 16)
  const fingerprint = s.slice(5, 9)
  const rest = masked(s.slice(HEADER), owner, s.slice(2, 9))
  let nodeId: string
  if (tag === TAG_HEX) nodeId = `0x${rest}`
  else if (tag !== TAG_BYTES || rest.length % 2 !== 0) return undefined
  else
    try {
      nodeId = utf8.decode(Buffer.from(rest, 'hex'))
    } catch {
      return undefined // not UTF-8: not an id this gateway encoded for this owner
    }
  return ownerTag(owner, nodeId) === s.slice(9, HEADER) ? { position, fingerprint, nodeId } : undefined
}
