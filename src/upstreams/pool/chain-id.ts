/**
 * A pool's chain checks: a node on another chain than the network's never serves; one not yet confirmed
 * (unreachable at start-up) serves once a check confirms it (docs/config.md, `onChainIdMismatch`). What a node is
 * asked depends on the network's family (src/upstreams/pool/family-rules.ts): `eth_chainId`, or Solana's
 * `getGenesisHash`. A Solana network that names no `chain` takes it from the first node to answer at start; the
 * others must agree.
 */
import { ChaingateError } from '../../errors/index.ts'
import { evmChainIdOf } from './family-rules.ts'
import { post, type Member } from './member.ts'
import type { PoolState } from './state.ts'

/** The chain id in an `eth_chainId` answer (`{"result":"0x…"}`), or undefined when it holds none. */
export const chainIdOf = evmChainIdOf

/** Names the node (its redacted URL) and both ids (EVM: in decimal and hex). */
export function mismatchText(pool: PoolState, upstream: string, actual: string, expected: string): string {
  const { rules, network } = pool
  return (
    `network ${network}: upstream ${upstream} answers chain id ${rules.describe(actual)}, ` +
    `but the network is declared with chain id ${rules.describe(expected)}`
  )
}

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
  const { members, network, settings, rules } = pool
  const cooldownMs = settings.cooldownMs
  const noChain = `its ${(JSON.parse(rules.identityProbe) as { method: string }).method} answer holds no chain id`
  /** One identity probe to a node not yet confirmed; never rejects. */
  const verify = (m: Member): Promise<void> =>
    (m.verifying ??= (async () => {
      m.lastVerifyAt = Date.now()
      m.verifyError = undefined
      try {
        const actual = rules.identityOf((await post(m, rules.identityProbe, verifyTimeoutMs, settings)).body)
        // A network that names no chain takes the first node's (Solana: the genesis hash is the cluster's name).
        if (actual !== undefined && pool.expected === undefined) pool.expected = actual
        if (actual === undefined) m.chainNote = noChain
        else if (actual === pool.expected) {
          m.chain = 'confirmed'
          m.chainNote = undefined
          m.usable = m.blockedUntil <= Date.now()
        } else {
          m.chain = 'wrong'
          m.usable = false
          m.chainNote = mismatchText(pool, m.label, actual, pool.expected!)
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
      // Without a declared chain, the first node decides it: asked alone, so the others are judged against it.
      for (const m of members) {
        if (pool.expected !== undefined) break
        await verify(m)
      }
      await verifyUnknown(true)
      pool.started = true
      const fatal = members.filter((m) => m.chain === 'wrong' && m.onChainIdMismatch === 'fail')
      if (fatal.length > 0)
        throw new ChaingateError(
          'UPSTREAM_WRONG_CHAIN',
          `${fatal.map((m) => m.chainNote).join('; ')}; fix ${rules.identityKey} or the upstream URL, ` +
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
