/**
 * A request line (src/observability/logger.ts createRequestLines), written as bytes straight into the log's
 * buffer: the key, network and method parts are encoded once and copied, numbers are written digit by digit. No
 * string is built per line (building, flattening and encoding one cost about twice as much: docs/benchmarks.md).
 * The bytes are exactly those of `lineText`, which is kept for what does not fit the buffer.
 */

/** Longest method name written to a request line; a client can send any string as a method. */
export const MAX_LOGGED_METHOD = 128

/** Distinct key, network and method combinations whose encoded part is kept; beyond, it is encoded per line. */
const MAX_KEPT = 4096

const bytes = (s: string) => Buffer.from(s, 'utf8')
const OPEN = bytes('{"level":30,"time":')
const CALLS = bytes(',"calls":')
const STATUS = bytes(',"status":')
const CREDITS = bytes(',"credits":')
const MS = bytes(',"ms":')
const FROM_CACHE = bytes(',"source":"cache"')
const FROM_DEDUP = bytes(',"source":"dedup"')
const CLOSE = bytes(',"msg":"rpc"}\n')
/** "00" to "99": two digits' bytes at 2 * n. */
const PAIRS = bytes(Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0')).join(''))
/** Every fixed part and four numbers of at most 24 characters each. */
const FIXED_BYTES =
  OPEN.length + CALLS.length + STATUS.length + CREDITS.length + MS.length + FROM_CACHE.length + CLOSE.length + 5 * 24

const loggedMethod = (method: string) =>
  method.length > MAX_LOGGED_METHOD ? `${method.slice(0, MAX_LOGGED_METHOD)}…` : method

/**
 * The line as text (pino's shape: level 30, time, msg "rpc"). Positional, as RequestLines.write that passes them on:
 * nothing allocated per request (docs/benchmarks.md, "Named arguments on the per-request path").
 */
export function lineText(
  time: number,
  keyId: string | undefined,
  network: string,
  method: string,
  calls: number,
  status: number,
  credits: number,
  ms: number,
  source: 'cache' | 'dedup' | undefined,
): string {
  return `{"level":30,"time":${time},${
    keyId === undefined ? '' : `"keyId":"${keyId}",`
  }"network":"${network}","method":${JSON.stringify(loggedMethod(method))},"calls":${calls},"status":${
    status
  },"credits":${credits},"ms":${Math.round(ms * 10) / 10},${
    source === undefined ? '' : `"source":"${source}",`
  }"msg":"rpc"}\n`
}

export type LineEncoder = (
  buffer: Buffer,
  at: number,
  time: number,
  keyId: string | undefined,
  network: string,
  method: string,
  calls: number,
  status: number,
  credits: number,
  ms: number,
  source: 'cache' | 'dedup' | undefined,
) => number

/**
 * Writes a line at `at`; returns where it ends, or -1 (nothing written) when it may not fit. `ms` is rounded to 0.1.
 */
export function createLineEncoder(): LineEncoder {
  // The key, network, method and `,"calls":` parts, encoded once per combination and copied as one: a client's
  // calls name the same three again, so the last one is checked first, without a map lookup.
  const heads = new Map<string | undefined, Map<string, Map<string, Buffer>>>()
  let kept = 0
  let lastKey: string | undefined
  let lastNetwork: string | undefined
  let lastMethod: string | undefined
  let lastHead: Buffer | undefined
  const headOf = (keyId: string | undefined, network: string, method: string): Buffer => {
    if (lastHead !== undefined && keyId === lastKey && network === lastNetwork && method === lastMethod) return lastHead
    let byNetwork = heads.get(keyId)
    let byMethod = byNetwork?.get(network)
    let head = byMethod?.get(method)
    if (head === undefined) {
      const key = keyId === undefined ? '' : `,"keyId":"${keyId}"`
      head = bytes(`${key},"network":"${network}","method":${JSON.stringify(loggedMethod(method))},"calls":`)
      // A longer method name (a client's choice, up to the body's size) is not kept: its line is written shortened
      // anyway, and 4,096 of them would hold gigabytes.
      if (kept < MAX_KEPT && method.length <= MAX_LOGGED_METHOD) {
        kept++
        if (byNetwork === undefined) heads.set(keyId, (byNetwork = new Map()))
        if (byMethod === undefined) byNetwork.set(network, (byMethod = new Map()))
        byMethod.set(method, head)
      }
    }
    lastKey = keyId
    lastNetwork = network
    lastMethod = method
    lastHead = head
    return head
  }

  // One TypedArray set (a memmove) per part: a loop over the bytes cost ~4x as many instructions.
  const copy = (to: Buffer, at: number, from: Buffer): number => {
    to.set(from, at)
    return at + from.length
  }
  /** A non-negative integer's digits; anything else as JavaScript prints it (ASCII, at most 24 characters). */
  const number = (to: Buffer, at: number, n: number): number => {
    if (!(n >= 0 && n <= Number.MAX_SAFE_INTEGER && Number.isInteger(n))) return at + to.write(String(n), at, 'latin1')
    if (n < 1e8) return digits(to, at, n, 1)
    // Eight digits at a time: 32-bit integer arithmetic (a time in ms has 13 digits; MAX_SAFE_INTEGER 16).
    const high = Math.floor(n / 1e8)
    return digits(to, digits(to, at, high, 1), n - high * 1e8, 8)
  }
  /** `x` (0 <= x < 1e8, an integer) in at least `width` digits, zeros first: two digits per division. */
  const digits = (to: Buffer, at: number, x: number, width: number): number => {
    let n = x < 1e4 ? (x < 10 ? 1 : x < 100 ? 2 : x < 1e3 ? 3 : 4) : x < 1e6 ? (x < 1e5 ? 5 : 6) : x < 1e7 ? 7 : 8
    if (n < width) n = width
    let i = at + n
    let y = x
    while (y >= 100) {
      const q = (y / 100) | 0
      const r = (y - q * 100) << 1
      to[--i] = PAIRS[r + 1]!
      to[--i] = PAIRS[r]!
      y = q
    }
    if (y >= 10) {
      to[--i] = PAIRS[(y << 1) + 1]!
      to[--i] = PAIRS[y << 1]!
    } else to[--i] = 0x30 + y
    while (i > at) to[--i] = 0x30
    return at + n
  }

  return (buffer, at, time, keyId, network, method, calls, status, credits, ms, source) => {
    const head = headOf(keyId, network, method)
    if (at + FIXED_BYTES - CALLS.length + head.length > buffer.length) return -1
    at = copy(buffer, at, OPEN)
    at = number(buffer, at, time)
    at = copy(buffer, at, head)
    at = number(buffer, at, calls)
    at = copy(buffer, at, STATUS)
    at = number(buffer, at, status)
    at = copy(buffer, at, CREDITS)
    at = number(buffer, at, credits)
    at = copy(buffer, at, MS)
    // Tenths of a millisecond, printed as JavaScript prints Math.round(ms * 10) / 10 (12, 12.5, 0.3).
    const tenths = Math.round(ms * 10)
    if (!(tenths >= 0 && tenths <= Number.MAX_SAFE_INTEGER))
      at += buffer.write(String(Math.round(ms * 10) / 10), at, 'latin1')
    else {
      at = number(buffer, at, Math.floor(tenths / 10))
      const d = tenths % 10
      if (d !== 0) {
        buffer[at++] = 0x2e
        buffer[at++] = 0x30 + d
      }
    }
    if (source !== undefined) at = copy(buffer, at, source === 'cache' ? FROM_CACHE : FROM_DEDUP)
    return copy(buffer, at, CLOSE)
  }
}
