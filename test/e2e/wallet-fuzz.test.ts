/**
 * Seeded, bounded fuzzing of the wallet's WebSocket API (issue 8 "fuzz suite", wallet side), loopback only: random
 * and near-valid messages for the four wallet_* methods, on a paired connection of a wallet that auto-approves (so
 * sessions exist and invokeMethod reaches the local methods and the chain). Every message must get exactly one
 * answer with its own id, the connection must stay open, and the wallet must log no internal error (a bug).
 */
import { expect, test } from 'vitest'
import { ACCOUNT_0, CHAIN_A, CHAIN_B, dapp, pairingOf, rawSocket, useWalletOnDevnets } from './helpers/wallet.ts'

const SEED = Number(process.env.FUZZ_SEED ?? 20261126)
const MESSAGES = Number(process.env.FUZZ_MESSAGES ?? 1200)

/** mulberry32: small, seeded, good enough to pick shapes. */
function rng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!
  return { next, int, pick }
}

const logLines: string[] = []

const wallet = useWalletOnDevnets({ autoApprove: true, maxMessagesPerSecond: 100_000 }, { logLines })

test(`${MESSAGES} fuzzed messages (seed ${SEED}): one answer each, right id, connection open, no internal error`, async () => {
  const r = rng(SEED)
  const origin = 'https://fuzz.example'
  const d = dapp(wallet.h.url, origin)
  await d.client.getSession() // creates the site's pairing secret
  const s = await rawSocket(
    `${wallet.h.url}?origin=${encodeURIComponent(origin)}&pairing=${pairingOf(wallet.h.url, origin)}`,
  )

  const scopes = [
    `eip155:${CHAIN_A}`,
    `eip155:${CHAIN_B}`,
    'eip155:1',
    'eip155',
    'wallet',
    'wallet:eip155',
    'EIP155:1',
    '',
    'a',
    'x'.repeat(300),
    'eip155:0x1',
  ]
  const methods = [
    'eth_chainId',
    'eth_blockNumber',
    'eth_getBalance',
    'personal_sign',
    'eth_signTypedData_v4',
    'eth_subscribe',
    'eth_unsubscribe',
    'web3_clientVersion',
    'wallet_addEthereumChain',
    'eth_accounts',
    'toString',
    '__proto__',
    '',
  ]
  const junk = (depth = 0): unknown => {
    switch (r.int(depth > 2 ? 6 : 9)) {
      case 0:
        return null
      case 1:
        return r.int(2) === 0
      case 2:
        return r.pick([0, -1, 1.5, 1e308, Number.MAX_SAFE_INTEGER, 2 ** 64])
      case 3:
        return r.pick([
          '',
          'x',
          ACCOUNT_0,
          '0x',
          '0xzz',
          '\u0000',
          '\ud800',
          `eip155:${CHAIN_A}:${ACCOUNT_0}`,
          'not-an-account',
        ])
      case 4:
        return 'y'.repeat(r.int(2000))
      case 5:
        return r.pick(scopes)
      case 6:
        return Array.from({ length: r.int(4) }, () => junk(depth + 1))
      case 7:
        return Object.fromEntries(
          Array.from({ length: r.int(4) }, () => [
            r.pick([
              'methods',
              'notifications',
              'accounts',
              'references',
              'scopes',
              'method',
              'params',
              'chainId',
              'expiry',
              r.pick(scopes),
            ]),
            junk(depth + 1),
          ]),
        )
      default:
        return {
          methods: [r.pick(methods)],
          notifications: r.int(2) ? ['eth_subscription'] : [],
          ...(r.int(3) === 0 ? { accounts: [junk(depth + 1)] } : {}),
        }
    }
  }
  const params = (method: string): unknown => {
    if (r.int(5) === 0) return junk()
    switch (method) {
      case 'wallet_createSession':
        if (r.int(2) === 0)
          return {
            optionalScopes: {
              [`eip155:${CHAIN_A}`]: { methods: methods.filter((m) => m !== ''), notifications: ['eth_subscription'] },
              wallet: { references: ['eip155'], methods: [], notifications: [] },
            },
          }
        return {
          optionalScopes: {
            [r.pick(scopes)]: junk(1),
            ...(r.int(2)
              ? { eip155: { references: [String(CHAIN_A)], methods: [r.pick(methods)], notifications: [] } }
              : {}),
          },
          ...(r.int(4) === 0 ? { sessionProperties: junk(1) } : {}),
        }
      case 'wallet_invokeMethod': {
        const m = r.pick(methods)
        const p =
          m === 'personal_sign'
            ? ['0x6869', r.int(2) ? ACCOUNT_0 : junk(1)]
            : m === 'eth_getBalance'
              ? [r.int(2) ? ACCOUNT_0 : junk(1), 'latest']
              : junk(1)
        const scope = r.int(10) < 6 ? `eip155:${CHAIN_A}` : r.int(4) === 0 ? 'wallet:eip155' : r.pick(scopes)
        return { scope, request: r.int(6) === 0 ? junk(1) : { method: r.int(8) === 0 ? junk(1) : m, params: p } }
      }
      case 'wallet_revokeSession':
        return r.int(2) ? { scopes: [r.pick(scopes)] } : junk()
      default:
        return junk()
    }
  }

  let invoked = 0
  for (let i = 0; i < MESSAGES; i++) {
    const w = r.int(20)
    const method =
      w < 2
        ? r.pick(['eth_chainId', 'wallet_notify', 'toString', '', 'WALLET_GETSESSION'])
        : w < 6
          ? 'wallet_createSession'
          : w < 8
            ? 'wallet_getSession'
            : w < 19
              ? 'wallet_invokeMethod'
              : 'wallet_revokeSession'
    const answer = await s.call({ method, params: params(method) })
    if (method === 'wallet_invokeMethod' && !answer.error) invoked++
    expect(answer.jsonrpc).toBe('2.0')
    expect('result' in answer !== 'error' in answer).toBe(true)
    if (answer.error) {
      expect(Number.isInteger(answer.error.code)).toBe(true)
      expect(typeof answer.error.message).toBe('string')
      expect(answer.error.message).not.toMatch(/\bat .*\.ts:\d+/) // no stack
    }
  }
  // Bad envelopes and non-JSON in between: answered with id null, connection still usable.
  expect((await s.call('{"jsonrpc":"2.0","id":')).error.code).toBe(-32700)
  expect((await s.call({ method: 'wallet_getSession' })).result).toBeDefined()
  // The generator must reach past validation: sessions exist and granted methods run (locally or on the chain).
  expect(invoked).toBeGreaterThan(10)
  expect(s.ws.readyState).toBe(s.ws.OPEN)
  expect(logLines.filter((l) => /"level":50/.test(l) || /internal error/.test(l))).toEqual([])
  s.ws.close()
  await d.close()
}, 120_000)
