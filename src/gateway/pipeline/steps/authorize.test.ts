/**
 * Step 1 on its own, with a fake key snapshot, access check and settle: Infura's order of refusals (network, key,
 * credentials 401, network enabled 401, allowlists 403), who pays the input-error fee, and that a key without
 * security settings never waits for a promise.
 */
import { describe, expect, it } from 'vitest'
import type { ErrorCode } from '../../../errors/registry.ts'
import type { RpcCall } from '../../../jsonrpc/types.ts'
import type { KeyEntry, KeySnapshot } from '../../../keys/snapshot.ts'
import type { KeySecurity } from '../../../keys/security/types.ts'
import type { Network, NetworkRegistry } from '../../../networks/registry.ts'
import type { UpstreamPool } from '../../../upstreams/pool/pool.ts'
import type { AccessCheck, RequestMeta } from '../types.ts'
import { createAuthorize } from './authorize.ts'
import type { Settle } from './settle.ts'
import { evmNetwork } from '../../../networks/network.test-support.ts'

const NET: Network = evmNetwork('net', 1)
const OTHER: Network = evmNetwork('other', 2)
const FEE = 5
const call = (method: string): RpcCall => ({ id: 1, hasId: true, method, params: [] })

function setup(opts: { security?: boolean; denied?: ErrorCode | null } = {}) {
  const entry = {
    id: 'key-id',
    accountId: 'acc',
    networks: new Set(['net']),
    security: opts.security ? ({} as KeySecurity) : null,
  } as KeyEntry
  const keys = { get: (k: string) => (k === 'good' ? entry : undefined) } as KeySnapshot
  const refused: string[] = []
  const fees: { code: ErrorCode; method: string | undefined }[] = []
  const settle = {
    refused: (network: string, code: ErrorCode) => void refused.push(`${network}:${code}`),
    inputError: (_e: KeyEntry, _n: string, code: ErrorCode, method?: string) => {
      fees.push({ code, method })
      return FEE
    },
  } as Settle
  let checks = 0
  const checkAccess: AccessCheck = async () => {
    checks++
    return opts.denied ? { code: opts.denied as 'SECRET_INVALID' } : null
  }
  const pool = {} as UpstreamPool
  const authorize = createAuthorize({
    networks: { describe: () => 'net, other' } as unknown as NetworkRegistry,
    keys,
    pools: new Map([
      ['net', pool],
      ['other', pool],
    ]),
    checkAccess,
    settle,
  })
  const meta = (m: Partial<RequestMeta>): RequestMeta => ({ network: NET, networkLabel: 'net', key: 'good', ...m })
  return { authorize, meta, refused, fees, checks: () => checks, pool, entry }
}

describe('authorize step', () => {
  it('refuses an unknown network, a missing key and an unknown key for free, in that order', () => {
    const { authorize, meta, refused, fees } = setup()
    expect(authorize(meta({ network: undefined, networkLabel: 'nope', key: undefined }), [], 'http')).toMatchObject({
      code: 'NETWORK_UNKNOWN',
      credits: 0,
      detail: 'unknown network "nope": known networks are net, other',
    })
    expect(authorize(meta({ key: undefined }), [], 'http')).toMatchObject({ code: 'KEY_REQUIRED', credits: 0 })
    expect(authorize(meta({ key: 'bad' }), [], 'http')).toMatchObject({ code: 'KEY_INVALID', credits: 0 })
    expect(refused).toEqual(['unknown:NETWORK_UNKNOWN', 'net:KEY_REQUIRED', 'net:KEY_INVALID'])
    expect(fees).toEqual([])
  })

  it('a key without security settings is answered synchronously; a network it lacks costs the fee', () => {
    const { authorize, meta, fees, checks, pool, entry } = setup()
    const ok = authorize(meta({ origin: 'https://dapp.example' }), [call('eth_call')], 'ws')
    expect(ok).not.toBeInstanceOf(Promise)
    expect(ok).toMatchObject({ code: undefined, credits: 0, keyId: 'key-id' })
    expect((ok as { ctx: unknown }).ctx).toMatchObject({ entry, network: NET, pool, transport: 'ws' })
    expect(authorize(meta({ network: OTHER }), [call('eth_call'), call('eth_chainId')], 'http')).toMatchObject({
      code: 'NETWORK_NOT_ENABLED',
      credits: FEE,
      keyId: 'key-id',
    })
    expect(fees).toEqual([{ code: 'NETWORK_NOT_ENABLED', method: 'batch' }])
    expect(checks()).toBe(0)
  })

  it('credentials (401) are checked before the network; the allowlists (403) after it', async () => {
    const secret = setup({ security: true, denied: 'SECRET_INVALID' })
    await expect(secret.authorize(secret.meta({ network: OTHER }), [call('eth_call')], 'http')).resolves.toMatchObject({
      code: 'SECRET_INVALID',
      credits: FEE,
    })
    expect(secret.fees).toEqual([{ code: 'SECRET_INVALID', method: 'eth_call' }])

    const allowlist = setup({ security: true, denied: 'KEY_SETTINGS_REJECTED' })
    const wrongNetwork = allowlist.authorize(allowlist.meta({ network: OTHER }), [call('eth_call')], 'http')
    await expect(wrongNetwork).resolves.toMatchObject({ code: 'NETWORK_NOT_ENABLED' })
    const rightNetwork = allowlist.authorize(allowlist.meta({}), [], 'http')
    await expect(rightNetwork).resolves.toMatchObject({ code: 'KEY_SETTINGS_REJECTED', credits: FEE })
    expect(allowlist.fees.map((f) => f.method)).toEqual(['eth_call', undefined])

    const passes = setup({ security: true, denied: null })
    await expect(passes.authorize(passes.meta({}), [call('eth_call')], 'http')).resolves.toMatchObject({
      code: undefined,
      keyId: 'key-id',
    })
    expect(passes.checks()).toBe(1)
  })
})
