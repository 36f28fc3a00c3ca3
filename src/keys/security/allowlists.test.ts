import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import { checkAllowlists } from './evaluate.ts'
import { ADDR_A, ADDR_B, sec, call, evaluate } from './evaluate.test-support.ts'

describe('origins', () => {
  async function allowed(entries: string[], origin: string | undefined): Promise<boolean> {
    return (await evaluate(sec({ lists: { origins: entries } }), { origin, calls: [call('eth_blockNumber')] })) === null
  }

  test('behavior: exact origin with scheme', async () => {
    expect(await allowed(['https://app.example.com'], 'https://app.example.com')).toBe(true)
    expect(await allowed(['https://app.example.com'], 'http://app.example.com')).toBe(false)
    expect(await allowed(['https://app.example.com'], 'https://other.example.com')).toBe(false)
  })

  test('behavior: scheme is optional; without it any scheme matches', async () => {
    expect(await allowed(['mydapp.example.com'], 'https://mydapp.example.com')).toBe(true)
    expect(await allowed(['mydapp.example.com'], 'http://mydapp.example.com')).toBe(true)
    expect(await allowed(['mydapp.example.com'], 'https://evil.com')).toBe(false)
  })

  test('behavior: wildcard subdomains match any depth but not the bare domain or look-alikes', async () => {
    const e = ['https://*.example.com']
    expect(await allowed(e, 'https://your-app.example.com')).toBe(true)
    expect(await allowed(e, 'https://a.b.example.com')).toBe(true)
    expect(await allowed(e, 'https://example.com')).toBe(false)
    expect(await allowed(e, 'https://evilexample.com')).toBe(false)
    expect(await allowed(e, 'https://example.com.evil.com')).toBe(false)
    expect(await allowed(e, 'http://your-app.example.com')).toBe(false)
    expect(await allowed(['*.example.com'], 'http://your-app.example.com')).toBe(true)
  })

  test('behavior: a scheme-only entry allows every origin of that scheme', async () => {
    expect(await allowed(['https://'], 'https://anything.org')).toBe(true)
    expect(await allowed(['https://'], 'http://anything.org')).toBe(false)
    expect(await allowed(['chrome-extension://'], 'chrome-extension://abcdefghijklmnop')).toBe(true)
  })

  test('behavior: the port is part of the host; default ports are implicit', async () => {
    expect(await allowed(['localhost:3000'], 'http://localhost:3000')).toBe(true)
    expect(await allowed(['localhost:3000'], 'http://localhost:3001')).toBe(false)
    expect(await allowed(['localhost'], 'http://localhost:3000')).toBe(false)
    expect(await allowed(['https://app.example.com'], 'https://app.example.com:443')).toBe(true)
  })

  test('behavior: case-insensitive', async () => {
    expect(await allowed(['HTTPS://App.Example.com'], 'https://app.EXAMPLE.com')).toBe(true)
  })

  test('error: a request without a matching Origin header is rejected', async () => {
    expect(await allowed(['https://app.example.com'], undefined)).toBe(false)
    expect(await allowed(['https://app.example.com'], 'null')).toBe(false)
    expect(await allowed(['https://app.example.com'], 'garbage')).toBe(false)
  })

  test('behavior: entries of the same type OR', async () => {
    expect(await allowed(['https://a.com', 'https://b.com'], 'https://b.com')).toBe(true)
  })
})

describe('user agents', () => {
  const s = sec({ lists: { userAgents: ['Android', 'MyBot/1'] } })

  test('behavior: substring match, entries OR', async () => {
    expect(await evaluate(s, { userAgent: 'Mozilla/5.0 (Linux; Android 14)', calls: [] })).toBeNull()
    expect(await evaluate(s, { userAgent: 'MyBot/1.2', calls: [] })).toBeNull()
  })

  test('error: other or missing user agent is rejected', async () => {
    expect((await evaluate(s, { userAgent: 'curl/8.0', calls: [] }))?.code).toBe('KEY_SETTINGS_REJECTED')
    expect((await evaluate(s, { calls: [] }))?.code).toBe('KEY_SETTINGS_REJECTED')
  })
})

describe('methods', () => {
  const s = sec({ lists: { methods: ['eth_blockNumber', 'eth_chainId'] } })

  test('behavior: exact names, every call of a batch must be listed', async () => {
    expect(await evaluate(s, { calls: [call('eth_blockNumber'), call('eth_chainId')] })).toBeNull()
    expect((await evaluate(s, { calls: [call('eth_blockNumber'), call('eth_getBalance')] }))?.code).toBe(
      'KEY_SETTINGS_REJECTED',
    )
    expect((await evaluate(s, { calls: [call('ETH_BLOCKNUMBER')] }))?.code).toBe('KEY_SETTINGS_REJECTED')
  })
})

describe('contract addresses', () => {
  const s = sec({ lists: { addresses: [ADDR_A] } })
  const ok = async (c: { method: string; params: unknown }) => (await evaluate(s, { calls: [c] })) === null

  test('behavior: eth_call and eth_estimateGas check `to`, case-insensitively', async () => {
    expect(await ok(call('eth_call', [{ to: ADDR_A.toUpperCase().replace('0X', '0x'), data: '0x' }, 'latest']))).toBe(
      true,
    )
    expect(await ok(call('eth_call', [{ to: ADDR_B }, 'latest']))).toBe(false)
    expect(await ok(call('eth_estimateGas', [{ to: ADDR_A }]))).toBe(true)
    expect(await ok(call('eth_estimateGas', [{ data: '0x60' }]))).toBe(false)
  })

  test('behavior: eth_getLogs checks `address`, a string or an array; no address filter is rejected', async () => {
    expect(await ok(call('eth_getLogs', [{ address: ADDR_A, fromBlock: '0x0' }]))).toBe(true)
    expect(await ok(call('eth_getLogs', [{ address: [ADDR_A] }]))).toBe(true)
    expect(await ok(call('eth_getLogs', [{ address: [ADDR_A, ADDR_B] }]))).toBe(false)
    expect(await ok(call('eth_getLogs', [{ fromBlock: '0x0' }]))).toBe(false)
  })

  test('behavior: address-first methods check params[0]', async () => {
    for (const m of ['eth_getBalance', 'eth_getCode', 'eth_getTransactionCount']) {
      expect(await ok(call(m, [ADDR_A, 'latest'])), m).toBe(true)
      expect(await ok(call(m, [ADDR_B, 'latest'])), m).toBe(false)
    }
    expect(await ok(call('eth_getStorageAt', [ADDR_A, '0x0', 'latest']))).toBe(true)
    expect(await ok(call('eth_getStorageAt', [ADDR_B, '0x0', 'latest']))).toBe(false)
    expect(await ok(call('eth_getBalance', 'not-an-array'))).toBe(false)
  })

  test('behavior: methods without an address parameter are not address-checked', async () => {
    expect(await ok(call('eth_blockNumber'))).toBe(true)
    expect(await ok(call('eth_getTransactionReceipt', [`0x${'ab'.repeat(32)}`]))).toBe(true)
    expect(await ok(call('eth_getFilterChanges', ['0x1']))).toBe(true)
    expect(await ok(call('eth_subscribe', ['newHeads']))).toBe(true)
    expect(await ok(call('eth_subscribe', ['newPendingTransactions']))).toBe(true)
  })

  test('behavior: every other method that names an address is checked', async () => {
    const to = (a: string) => [{ to: a, data: '0x' }, 'latest']
    for (const m of ['eth_createAccessList', 'debug_traceCall', 'trace_call']) {
      expect(await ok(call(m, to(ADDR_A))), m).toBe(true)
      expect(await ok(call(m, to(ADDR_B))), m).toBe(false)
      expect(await ok(call(m, [{ data: '0x60' }])), m).toBe(false)
    }
    for (const m of ['eth_getProof', 'eth_getAccount']) {
      expect(await ok(call(m, [ADDR_A, [], 'latest'])), m).toBe(true)
      expect(await ok(call(m, [ADDR_B, [], 'latest'])), m).toBe(false)
    }
    expect(await ok(call('eth_newFilter', [{ address: ADDR_A }]))).toBe(true)
    expect(await ok(call('eth_newFilter', [{ address: [ADDR_A, ADDR_B] }]))).toBe(false)
    expect(await ok(call('eth_newFilter', [{ fromBlock: '0x0' }]))).toBe(false)
    expect(await ok(call('eth_subscribe', ['logs', { address: ADDR_A }]))).toBe(true)
    expect(await ok(call('eth_subscribe', ['logs', { address: ADDR_B }]))).toBe(false)
    expect(await ok(call('eth_subscribe', ['logs', {}]))).toBe(false)
    expect(await ok(call('eth_subscribe', ['logs']))).toBe(false)
    // A kind outside the catalog's kind table (or an Object member) names nothing readable: refused.
    expect(await ok(call('eth_subscribe', ['syncing']))).toBe(false)
    expect(await ok(call('eth_subscribe', ['toString']))).toBe(false)
    expect(await ok(call('debug_storageRangeAt', [`0x${'00'.repeat(32)}`, 0, ADDR_A, '0x0', 1]))).toBe(true)
    expect(await ok(call('debug_storageRangeAt', [`0x${'00'.repeat(32)}`, 0, ADDR_B, '0x0', 1]))).toBe(false)
    expect(await ok(call('trace_filter', [{ toAddress: [ADDR_A] }]))).toBe(true)
    expect(await ok(call('trace_filter', [{ fromAddress: [ADDR_A], toAddress: [ADDR_B] }]))).toBe(false)
    expect(await ok(call('trace_filter', [{ fromBlock: '0x0' }]))).toBe(false)
    expect(await ok(call('trace_callMany', [[[{ to: ADDR_A }, ['trace']]]]))).toBe(true)
    expect(
      await ok(
        call('trace_callMany', [
          [
            [{ to: ADDR_A }, ['trace']],
            [{ to: ADDR_B }, ['trace']],
          ],
        ]),
      ),
    ).toBe(false)
  })

  test("behavior: eth_sendRawTransaction checks the signed transaction's recipient", async () => {
    const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
    const tx = { chainId: 31337, nonce: 0, gas: 21000n, maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 1n, value: 1n }
    expect(
      await ok(call('eth_sendRawTransaction', [await account.signTransaction({ ...tx, to: ADDR_A as `0x${string}` })])),
    ).toBe(true)
    expect(
      await ok(call('eth_sendRawTransaction', [await account.signTransaction({ ...tx, to: ADDR_B as `0x${string}` })])),
    ).toBe(false)
    expect(await ok(call('eth_sendRawTransaction', [await account.signTransaction({ ...tx, data: '0x60' })]))).toBe(
      false,
    )
    expect(await ok(call('eth_sendRawTransaction', ['0x1234']))).toBe(false)
  })

  test('security: a method this file does not know, or cannot read, is refused (closed list)', async () => {
    for (const m of ['eth_simulateV1', 'eth_callMany', 'eth_sendTransactionSync', 'some_newMethod'])
      expect(await ok(call(m, [{ to: ADDR_A }])), m).toBe(false)
    // A key without an address allowlist is not affected.
    expect(
      await evaluate(sec({ lists: { methods: ['eth_simulateV1'] } }), { calls: [call('eth_simulateV1', [{}])] }),
    ).toBeNull()
  })
})

describe('AND across types, OR within a type', () => {
  const s = sec({
    lists: {
      origins: ['https://a.com', 'https://b.com'],
      methods: ['eth_getBalance', 'eth_chainId'],
      addresses: [ADDR_A],
    },
  })
  const req = (origin: string, method: string, params: unknown[] = []) => ({ origin, calls: [call(method, params)] })

  test('behavior: passes only when every non-empty type passes', async () => {
    expect(await evaluate(s, req('https://b.com', 'eth_getBalance', [ADDR_A, 'latest']))).toBeNull()
    expect(await evaluate(s, req('https://a.com', 'eth_chainId'))).toBeNull()
  })

  test('error: failing any one type rejects', async () => {
    expect((await evaluate(s, req('https://c.com', 'eth_getBalance', [ADDR_A, 'latest'])))?.code).toBe(
      'KEY_SETTINGS_REJECTED',
    )
    expect((await evaluate(s, req('https://a.com', 'eth_blockNumber')))?.code).toBe('KEY_SETTINGS_REJECTED')
    expect((await evaluate(s, req('https://a.com', 'eth_getBalance', [ADDR_B, 'latest'])))?.code).toBe(
      'KEY_SETTINGS_REJECTED',
    )
  })

  test('behavior: checkAllowlists with no calls only checks origin and user agent (WebSocket upgrade)', () => {
    expect(checkAllowlists(s, { kind: 'none' }, { origin: 'https://a.com', calls: [] })).toBeNull()
    expect(checkAllowlists(s, { kind: 'none' }, { origin: 'https://x.com', calls: [] })?.code).toBe(
      'KEY_SETTINGS_REJECTED',
    )
  })
})
