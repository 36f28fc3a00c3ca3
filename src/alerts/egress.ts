/**
 * Where a webhook may connect (docs/alerts.md, "SSRF"). A webhook URL is a request the gateway makes on a
 * customer's behalf from inside the operator's network, so by default no loopback, private, link-local, CGNAT,
 * unspecified, multicast or reserved address, nor an IPv6 form that embeds one. The address is checked when the
 * socket connects (the lookup that picks it refuses such answers), so a name that resolves to a public address
 * when the URL is saved and to 127.0.0.1 when it is sent (DNS rebinding) is refused too; a literal IP in the URL
 * (WHATWG URL parsing already turns `127.1`, `0x7f000001`, `2130706433` into `127.0.0.1`) is checked before
 * connecting, where no lookup runs. `alerts.allowPrivateTargets: true` lets the operator allow them.
 */
import { lookup as dnsLookup } from 'node:dns'
import { BlockList, isIP, type LookupFunction } from 'node:net'
import { Agent, buildConnector } from 'undici'

// IANA special-purpose registries (https://www.iana.org/assignments/iana-ipv4-special-registry,
// https://www.iana.org/assignments/iana-ipv6-special-registry): the ranges that are not globally reachable.
const V4: [string, number][] = [
  ['0.0.0.0', 8], // "this network", the unspecified address (RFC 1122)
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (RFC 3927): cloud metadata services answer at 169.254.169.254
  ['172.16.0.0', 12], // private (RFC 1918)
  ['192.0.0.0', 24], // IETF protocol assignments (RFC 6890)
  ['192.168.0.0', 16], // private (RFC 1918)
  ['198.18.0.0', 15], // benchmarking (RFC 2544)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address 255.255.255.255
]
const V6: [string, number][] = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard-only (RFC 6666)
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215)
  ['fc00::', 7], // unique local (RFC 4193)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local, deprecated (RFC 3879)
  ['ff00::', 8], // multicast
]
/** IPv6 forms whose last 32 bits are an IPv4 address: mapped and compatible (RFC 4291), NAT64 (RFC 6052). */
const EMBEDDING_96 = ['::ffff:', '::', '64:ff9b::']

const BLOCKED = (() => {
  const list = new BlockList()
  for (const [net, bits] of V4) {
    list.addSubnet(net, bits, 'ipv4')
    for (const prefix of EMBEDDING_96) list.addSubnet(`${prefix}${net}`, 96 + bits, 'ipv6')
    // 6to4 (RFC 3056): 2002:AABB:CCDD::/48 carries AA.BB.CC.DD.
    const [a, b, c, d] = net.split('.').map(Number) as [number, number, number, number]
    const hex = (hi: number, lo: number) => ((hi << 8) | lo).toString(16)
    list.addSubnet(`2002:${hex(a, b)}:${hex(c, d)}::`, 16 + bits, 'ipv6')
  }
  for (const [net, bits] of V6) list.addSubnet(net, bits, 'ipv6')
  return list
})()

/** True for an address webhooks may not reach by default (and for anything that is not an IP address). */
export function isPrivateAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')
  const family = isIP(ip)
  if (family === 0) return true
  return BLOCKED.check(ip, family === 4 ? 'ipv4' : 'ipv6')
}

/**
 * Why a URL's host (`URL.hostname`) is refused without resolving it: a private literal IP, or a `localhost` name
 * (RFC 6761: they resolve to loopback); undefined when only its resolved address can tell.
 */
export function literalTargetProblem(hostname: string): string | undefined {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '')
  if (isIP(host)) return isPrivateAddress(host) ? `${host} is a private, loopback or link-local address` : undefined
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is a loopback name`
  return undefined
}

/** A connection refused by the private-target rule (the server log says why; the account sees no detail). */
export const PRIVATE_TARGET = 'ERR_CHAINGATE_PRIVATE_TARGET'
const refused = (message: string) => Object.assign(new Error(message), { code: PRIVATE_TARGET })

/**
 * `net.connect`'s lookup: refuses the name when any address it resolves to is blocked (a rebinding answer may mix
 * them). With `all` (Node's happy eyeballs, `autoSelectFamily`) it answers every address, else the first.
 */
const lookupRefusing =
  (blocked: (address: string) => boolean): LookupFunction =>
  (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, [])
      const bad = addresses.find((a) => blocked(a.address))
      if (bad) return callback(refused(`${hostname} resolves to ${bad.address}, a private address`), [])
      const first = addresses[0]
      if (!first) return callback(Object.assign(new Error(`${hostname}: no address`), { code: 'ENOTFOUND' }), [])
      if (options.all) return callback(null, addresses)
      callback(null, first.address, first.family)
    })
  }

/**
 * The dispatcher webhooks are sent with: without `allowPrivateTargets`, its connections go to public addresses
 * only (with it, the same path allows every address, so the tests that deliver to 127.0.0.1 run it too).
 * Redirects are never followed (undici's request does not, unless asked).
 */
export function createWebhookDispatcher(opts: { allowPrivateTargets: boolean; connectTimeoutMs: number }): Agent {
  const blocked = opts.allowPrivateTargets ? () => false : isPrivateAddress
  const connector = buildConnector({ timeout: opts.connectTimeoutMs, lookup: lookupRefusing(blocked) })
  return new Agent({
    connect(options, callback) {
      // A literal IP is connected to without a lookup: checked here.
      const host = options.hostname.replace(/^\[|\]$/g, '')
      if (isIP(host) && blocked(host)) return callback(refused(`${host} is a private address`), null)
      connector(options, callback)
    },
  })
}
