/**
 * Filter ids that name the node holding the filter (docs/upstreams.md, "Filters"). A network of several nodes hands
 * clients `eth_newFilter` / `eth_newBlockFilter` / `eth_newPendingTransactionFilter` ids that carry which of its
 * nodes created the filter, so `eth_getFilterChanges` / `eth_getFilterLogs` / `eth_uninstallFilter` reach that node
 * from any replica or worker: nothing is stored, every process decodes the same id the same way.
 *
 *   0x  c|d  II  FFFF  <node id>
 *
 * - `c`: the node's id was `0x` + lowercase hex digits; they follow as they are (leading zeros kept).
 *   `d`: any other id (upper case, no `0x`, not hex): its UTF-8 bytes in hex. Either way the node gets back
 *   exactly the string it handed out (nodes compare ids as strings).
 * - `II`: the node's position in the network's `upstreams` list (00–ff).
 * - `FFFF`: 16 bits of SHA-256 over the network name and the node's URL without credentials (what /healthz shows):
 *   an id minted before the config changed under that position is not sent to another node.
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
const HEADER = 2 + 1 + 2 + 4 // 0x, tag, position, fingerprint

const LOWER_HEX_ID = /^0x[0-9a-f]+$/
const HEX_DIGITS = /^[0-9a-f]+$/
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** The 4 hex digits that tell one node of a network from the one that held its position under another config. */
export const nodeFingerprint = (network: string, label: string): string =>
  createHash('sha256').update(`${network}\n${label}`).digest('hex').slice(0, 4)

/**
 * The id the client gets for the node's `nodeId`; the node's own id when it cannot be encoded (then it is no one's).
 */
export function encodeFilterId(position: number, fingerprint: string, nodeId: string): string {
  if (
    !Number.isInteger(position) ||
    position < 0 ||
    position >= MAX_FILTER_NODES ||
    !/^[0-9a-f]{4}$/.test(fingerprint) ||
    nodeId.length === 0
  )
    return nodeId
  const head = `${position.toString(16).padStart(2, '0')}${fingerprint}`
  const id = LOWER_HEX_ID.test(nodeId)
    ? `0x${TAG_HEX}${head}${nodeId.slice(2)}`
    : `0x${TAG_BYTES}${head}${Buffer.from(nodeId, 'utf8').toString('hex')}`
  return id.length > MAX_FILTER_ID_LENGTH ? nodeId : id
}

export interface DecodedFilterId {
  /** The node's position in the network's upstream list. */
  position: number
  fingerprint: string
  /** The id the node handed out, exactly. */
  nodeId: string
}

/** A client's filter id back to the node and its own id; undefined for anything this gateway did not hand out. */
export function decodeFilterId(id: unknown): DecodedFilterId | undefined {
  if (typeof id !== 'string' || id.length <= HEADER || id.length > MAX_FILTER_ID_LENGTH) return undefined
  // Hex is case-insensitive for clients that upper-case it; the node's digits were lower case (tag c).
  const s = id.toLowerCase()
  if (s[0] !== '0' || s[1] !== 'x' || !HEX_DIGITS.test(s.slice(2))) return undefined
  const tag = s[2]
  const position = parseInt(s.slice(3, 5), 16)
  const fingerprint = s.slice(5, HEADER)
  const rest = s.slice(HEADER)
  if (tag === TAG_HEX) return { position, fingerprint, nodeId: `0x${rest}` }
  if (tag !== TAG_BYTES || rest.length % 2 !== 0) return undefined
  try {
    return { position, fingerprint, nodeId: utf8.decode(Buffer.from(rest, 'hex')) }
  } catch {
    return undefined // not UTF-8: not an id this gateway encoded
  }
}
