/**
 * Which network and key a request on an RPC path names (src/shared/rpc-paths.ts: `/v3/<key>` on a network's host
 * name, or `/networks/<name>/v3/<key>`), for the hot route (./rpc-route.ts) and the WebSocket upgrade
 * (./ws-upgrade.ts).
 */
import type { Network, NetworkRegistry } from '../../networks/registry.ts'
import { matchRpcPath, type RpcPathMatch, type RpcTransport } from '../../shared/rpc-paths.ts'

export interface RpcTarget {
  network: Network | undefined
  label: string
  key: string | undefined
}

/** Which network and key a request target names (src/shared/rpc-paths.ts); undefined when not an RPC path. */
export function rpcTarget(
  url: string,
  host: string | undefined,
  transport: RpcTransport,
  networks: NetworkRegistry,
): RpcTarget | undefined {
  const m = matchRpcPath(url, transport)
  return m === undefined ? undefined : targetOf(m, host, networks)
}

/** The target of a path already matched (the hot route keeps the last match). */
export function targetOf(m: RpcPathMatch, host: string | undefined, networks: NetworkRegistry): RpcTarget {
  if (m.form === 'path') return { network: networks.byName(m.network!), label: m.network!, key: m.key }
  return { network: networks.byHost(host ?? ''), label: host ?? '', key: m.key }
}
