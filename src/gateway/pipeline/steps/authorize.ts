/**
 * Step 1, authorize, in Infura's order (https://docs.metamask.io/services/how-to/secure-an-api/): network known →
 * key in the snapshot → secret and JWT (401) → network enabled on the key (401) → allowlists (403). Refusals are
 * registry codes; the edge words them.
 *
 * Synchronous unless the key has security settings to check: most requests never wait for a promise here
 * (measured per call in bench/).
 */
import type { KeyEntry, KeySnapshot } from '../../../keys/snapshot.ts'
import type { ErrorCode } from '../../../errors/registry.ts'
import type { RpcCall } from '../../../jsonrpc/types.ts'
import type { Network, NetworkRegistry } from '../../../networks/registry.ts'
import type { UpstreamPool } from '../../../upstreams/pool/pool.ts'
import type { AccessCheck, Authorized, RequestMeta, Transport } from '../types.ts'
import type { Settle } from './settle.ts'

export interface AuthorizeDeps {
  networks: NetworkRegistry
  keys: KeySnapshot
  pools: Map<string, UpstreamPool>
  checkAccess: AccessCheck
  settle: Settle
}

export type Authorize = (
  req: RequestMeta,
  calls: readonly RpcCall[],
  transport: Transport,
) => Authorized | Promise<Authorized>

export function createAuthorize(deps: AuthorizeDeps): Authorize {
  const refuse = (
    code: ErrorCode,
    network: string,
    credits: number,
    keyId: string | undefined,
    detail?: string,
  ): Authorized => {
    deps.settle.refused(network, code)
    return { ctx: undefined, code, credits, keyId, detail }
  }
  /** A refusal after the key is known costs the input-error fee (a promise when the limit store asks Redis). */
  const refuseWithFee = (
    code: ErrorCode,
    network: string,
    entry: KeyEntry,
    calls: readonly RpcCall[],
  ): Authorized | Promise<Authorized> => {
    // Usage shows the method refused (as the dashboard does), `batch` for several, `(invalid)` for none.
    const method = calls.length === 1 ? calls[0]!.method : calls.length > 1 ? 'batch' : undefined
    const fee = deps.settle.inputError(entry, network, code, method)
    return typeof fee === 'number'
      ? refuse(code, network, fee, entry.id)
      : fee.then((f) => refuse(code, network, f, entry.id))
  }

  const networkCheck = (
    entry: KeyEntry,
    network: Network,
    transport: Transport,
    calls: readonly RpcCall[],
    origin: string | undefined,
  ): Authorized | Promise<Authorized> => {
    if (!entry.networks.has(network.name)) return refuseWithFee('NETWORK_NOT_ENABLED', network.name, entry, calls)
    return {
      // Every field set (undefined until known): one object shape for every call.
      ctx: {
        entry,
        network,
        pool: deps.pools.get(network.name)!,
        transport,
        client: undefined,
        origin,
        span: undefined,
        arrivedAt: undefined,
      },
      code: undefined,
      credits: 0,
      keyId: entry.id,
      detail: undefined,
    }
  }

  return (req, calls, transport) => {
    const network = req.network
    if (!network)
      return refuse(
        'NETWORK_UNKNOWN',
        'unknown',
        0,
        undefined,
        `unknown network "${req.networkLabel}": known networks are ${deps.networks.describe(transport)}`,
      )
    if (req.key === undefined) return refuse('KEY_REQUIRED', network.name, 0, undefined)
    const entry = deps.keys.get(req.key) // any string: what is not a key is simply not found
    if (!entry) return refuse('KEY_INVALID', network.name, 0, undefined)
    if (!entry.security) return networkCheck(entry, network, transport, calls, req.origin)
    return deps
      .checkAccess(entry.security, {
        authorization: req.authorization,
        origin: req.origin,
        userAgent: req.userAgent,
        calls: calls.map((c) => ({ method: c.method, params: c.params })),
      })
      .then((denied): Authorized | Promise<Authorized> => {
        // Credentials (401) come before the network check; the allowlists (403) after it. (The network check
        // refuses only synchronously: a promise means a fee being charged, i.e. a refusal.)
        if (!denied || denied.code === 'KEY_SETTINGS_REJECTED') {
          if (!denied || !entry.networks.has(network.name))
            return networkCheck(entry, network, transport, calls, req.origin)
        }
        return refuseWithFee(denied.code, network.name, entry, calls)
      })
  }
}
