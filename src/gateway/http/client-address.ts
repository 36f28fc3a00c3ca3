/**
 * The client's address of a request that fastify does not route (the WebSocket upgrade), by fastify's own rule for
 * `gateway.trustProxy` (https://fastify.dev/docs/latest/Reference/Server/#trustproxy, the `proxy-addr` algorithm):
 * from the socket's peer back through X-Forwarded-For, the first address that is not a trusted proxy; every one
 * trusted: the furthest. Off: the socket's peer, whatever the headers say.
 */
import { BlockList, isIP } from 'node:net'

/** `proxy-addr`'s names for address ranges. */
const NAMED: Record<string, string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
}

/** An IPv4-mapped IPv6 address (how a dual-stack listener sees IPv4 peers) as its IPv4 form. */
const plain = (addr: string): string => {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(addr)
  return m ? m[1]! : addr
}

export type ClientAddress = (peer: string | undefined, forwardedFor: string | string[] | undefined) => string

/** Throws on an entry that is neither an address, a CIDR range nor a name above (the config schema's strings). */
export function clientAddressResolver(trustProxy: boolean | string | string[] | undefined): ClientAddress {
  const peerOnly: ClientAddress = (peer) => plain(peer ?? '')
  if (trustProxy === undefined || trustProxy === false) return peerOnly
  let trusted: (addr: string) => boolean
  if (trustProxy === true) trusted = () => true
  else {
    const list = new BlockList()
    const entries = (Array.isArray(trustProxy) ? trustProxy : trustProxy.split(','))
      .map((e) => e.trim())
      .filter(Boolean)
    for (const entry of entries.flatMap((e) => NAMED[e] ?? [e])) {
      const [ip, bits] = entry.split('/') as [string, string | undefined]
      const v = isIP(plain(ip))
      if (v === 0) throw new Error(`gateway.trustProxy: ${JSON.stringify(entry)} is not an address or CIDR range`)
      const type = v === 4 ? 'ipv4' : 'ipv6'
      if (bits === undefined) list.addAddress(plain(ip), type)
      else list.addSubnet(plain(ip), Number(bits), type)
    }
    trusted = (addr) => {
      const v = isIP(addr)
      return v !== 0 && list.check(addr, v === 4 ? 'ipv4' : 'ipv6')
    }
  }
  return (peer, forwardedFor) => {
    let addr = plain(peer ?? '')
    if (!trusted(addr)) return addr
    const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? '')
    const hops = header
      .split(',')
      .map((h) => plain(h.trim()))
      .filter(Boolean)
    for (let i = hops.length - 1; i >= 0; i--) {
      addr = hops[i]!
      if (!trusted(addr)) return addr
    }
    return addr
  }
}
