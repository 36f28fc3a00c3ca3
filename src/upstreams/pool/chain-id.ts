/**
 * A pool's chain id checks: a node whose `eth_chainId` is not the
 * network's never serves; one not yet confirmed (unreachable at start-up) serves once a check confirms it
 * (docs/config.md, `onChainIdMismatch`).
 */
import { hexToNumber, isHex } from '../../shared/hex.ts'
import { ChaingateError } from '../../errors/index.ts'
import { post, type Member } from './member.ts'
import type { PoolState } from './state.ts'

/** The chain id in an `eth_chainId` answer (`{"result":"0x…"}`), or undefined when it holds none. */
export function chainIdOf(body: Buffer): number | undefined {
  try {
    const result = (JSON.parse(body.toString()) as { result?: unknown }).result
    // At most 16 hex digits; hexToNumber throws beyond 2^53-1 (caught: no chain id).
    if (!isHex(result) || result.length < 3 || result.length > 18) return undefined
    return hexToNumber(result)
  } catch {
    return undefined
  }
}

const both = (id: number) => `${id} (0x${id.toString(16)})`

/** Names the node (its redacted URL) and both ids, in decimal and hex. */
export function mismatchText(network: string, upstream: string, actual: number, expected: number): string {
  return (
    `network ${network}: upstream ${upstream} answers chain id ${both(actual)}, ` +
    `but the network is declared with chain id ${both(expected)}`
  )
}

const CHAIN_ID_PROBE = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'

export interface ChainIdCheck {
  /**
   * Checks the unconfirmed nodes: all now (`force`), or those not tried within the cooldown, in the background.
   * A node whose provider refused the check waits out its back-off, so calls do not hammer it.
   */
  verifyUnknown(force: boolean): Promise<unknown>
  /**
   * Start-up: checks every node, rejects (UPSTREAM_WRONG_CHAIN) when one with `onChainIdMismatch: 'fail'`
   * answers another id, and logs those excluded or unreachable.
   */
  checkAtStartUp(): Promise<void>
}

export function createChainIdCheck(pool: PoolState, verifyTimeoutMs: number): ChainIdCheck {
  const { members, network, expected, settings } = pool
  const cooldownMs = settings.cooldownMs
  /** One `eth_chainId` to a node not yet confirmed; never rejects. */
  const verify = (m: Member): Promise<void> =>
    (m.verifying ??= (async () => {
      m.lastVerifyAt = Date.now()
      m.verifyError = undefined
      try {
        const actual = chainIdOf((await post(m, CHAIN_ID_PROBE, verifyTimeoutMs, settings)).body)
        if (actual === undefined) m.chainNote = 'its eth_chainId answer holds no chain id'
        else if (actual === expected) {
          m.chain = 'confirmed'
          m.chainNote = undefined
          m.usable = m.blockedUntil <= Date.now()
        } else {
          m.chain = 'wrong'
          m.usable = false
          m.chainNote = mismatchText(network, m.label, actual, expected!)
          if (pool.started) pool.log?.error({ network, upstream: m.label }, `${m.chainNote}; kept out of rotation`)
        }
      } catch (err) {
        m.verifyError = err as Error
        m.chainNote = `not reachable: ${(err as Error).message}`
      } finally {
        m.verifying = undefined
      }
    })())
  const verifyUnknown = (force: boolean): Promise<unknown> => {
    const now = Date.now()
    const due = (m: Member) =>
      m.chain === 'unknown' &&
      m.blockedUntil <= now &&
      (force || (m.verifying === undefined && now - m.lastVerifyAt >= cooldownMs))
    return Promise.all(members.filter(due).map(verify))
  }

  return {
    verifyUnknown,
    async checkAtStartUp() {
      await verifyUnknown(true)
      pool.started = true
      const fatal = members.filter((m) => m.chain === 'wrong' && m.onChainIdMismatch === 'fail')
      if (fatal.length > 0)
        throw new ChaingateError(
          'UPSTREAM_WRONG_CHAIN',
          `${fatal.map((m) => m.chainNote).join('; ')}; fix networks[].chainId or the upstream URL, ` +
            "or set the upstream's onChainIdMismatch: exclude",
        )
      for (const m of members) {
        if (m.chain === 'wrong')
          pool.log?.warn(
            { network, upstream: m.label },
            `${m.chainNote}; excluded from rotation (onChainIdMismatch: exclude)`,
          )
        else if (m.chain === 'unknown')
          pool.log?.warn(
            { network, upstream: m.label, reason: m.chainNote },
            'upstream not reachable at start-up: out of rotation until its chain id is confirmed ' +
              '(checked again when needed)',
          )
      }
    },
  }
}
