import { encodeFunctionData, erc20Abi, erc721Abi, maxUint256, maxUint160, stringToHex } from 'viem'
import { describe, expect, test } from 'vitest'
import { describeApproval } from './index.ts'
import { decodeCalldata } from './calldata.ts'
import { describeMessage } from './message.ts'
import { describeTypedData } from './typed-data.ts'
import { eth, gwei } from './format.ts'

const SPENDER = '0x1111111111111111111111111111111111111111'
const ME = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const env = { chains: [{ chainId: 31337, network: 'devnet-a' }], accounts: [{ address: ME, index: 0, label: 'main' }] }

describe('amounts', () => {
  test('wei as ETH and gwei, tiny amounts not rounded to zero', () => {
    expect(eth(10n ** 15n)).toBe('0.001 ETH')
    expect(eth(1_234_567_890_123_456_789n)).toBe('1.234567 ETH')
    expect(eth(1n)).toBe('0.000000000000000001 ETH')
    expect(gwei(1_500_000_000n)).toBe('1.5 gwei')
  })
})

describe('calldata', () => {
  test('ERC-20 transfer', () => {
    const c = decodeCalldata(encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [SPENDER, 1000n] }))!
    expect(c.name).toBe('transfer')
    expect(c.summary).toBe(`Token transfer of 1,000 units to ${SPENDER}`)
    expect(c.warnings).toEqual([])
  })
  test('approve of 2^256-1 is flagged unlimited; a bounded approve is not', () => {
    const c = decodeCalldata(
      encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [SPENDER, maxUint256] }),
    )!
    expect(c.summary).toContain('UNLIMITED')
    expect(c.warnings[0]).toMatch(/^Unlimited approval/)
    const small = decodeCalldata(encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [SPENDER, 5n] }))!
    expect(small.warnings).toEqual([])
  })
  test('setApprovalForAll(true) warns, (false) does not; unknown calls show their selector', () => {
    const on = decodeCalldata(
      encodeFunctionData({ abi: erc721Abi, functionName: 'setApprovalForAll', args: [SPENDER, true] }),
    )!
    expect(on.warnings).toHaveLength(1)
    const off = decodeCalldata(
      encodeFunctionData({ abi: erc721Abi, functionName: 'setApprovalForAll', args: [SPENDER, false] }),
    )!
    expect(off.warnings).toEqual([])
    expect(decodeCalldata('0xdeadbeef00')!.summary).toBe('Contract call 0xdeadbeef with 5 bytes of data (not decoded)')
    expect(decodeCalldata('0x')).toBeUndefined()
  })
})

describe('transaction view', () => {
  test('network name, labelled from, amount in ETH, estimated and max fee, nonce, simulation revert', () => {
    const v = describeApproval(
      'eth_sendTransaction',
      {
        scope: 'eip155:31337',
        transaction: {
          from: ME,
          to: SPENDER,
          value: '0x38d7ea4c68000',
          gas: '0x5208',
          maxFeePerGas: '0x77359400',
          maxPriorityFeePerGas: '0x3b9aca00',
        },
        context: {
          baseFeePerGas: '0x3b9aca00',
          nextNonce: '0x7',
          simulation: { ok: false, reason: 'not enough tokens' },
        },
      },
      env,
    )
    const row = (l: string) => v.rows.find((r) => r.label === l)
    expect(v.network).toBe('devnet-a (chain 31337)')
    expect(row('From')).toEqual({ label: 'From', value: ME, detail: 'your account #0 "main"' })
    expect(row('Amount')!.value).toBe('0.001 ETH')
    expect(row('Estimated fee')!.value).toBe('0.000042 ETH') // 21000 × 2 gwei
    expect(row('Max fee')!.value).toBe('0.000042 ETH')
    expect(row('Max fee')!.detail).toBe('21000 gas × at most 2 gwei')
    expect(row('Nonce')!.value).toBe('7')
    expect(v.warnings.join(' ')).toContain('reverted: not enough tokens')
  })
})

describe('personal_sign', () => {
  test('UTF-8 hex is text; invalid UTF-8 or control bytes stay hex', () => {
    expect(describeMessage(stringToHex('Sign in to example.com\nNonce: 1')).text).toBe(
      'Sign in to example.com\nNonce: 1',
    )
    expect(describeMessage('0xff00fe')).toEqual({ hex: '0xff00fe', bytes: 3 })
    expect(describeMessage('0x0001')).toEqual({ hex: '0x0001', bytes: 2 })
    expect(describeMessage('plain text').text).toBe('plain text')
    expect(
      describeApproval('personal_sign', { scope: 'eip155:31337', address: ME, messageHex: '0xff00' }, env).warnings[0],
    ).toMatch(/binary/)
  })
})

describe('typed data', () => {
  const permit = (
    value: bigint,
    domain: Record<string, unknown> = { name: 'Token', version: '1', chainId: 31337, verifyingContract: SPENDER },
  ) => ({
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ].filter((f) => f.name in domain),
      Permit: [
        { name: 'owner', type: 'address' },
        { name: 'spender', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
    },
    primaryType: 'Permit',
    domain,
    message: { owner: ME, spender: SPENDER, value: value.toString(), nonce: 0, deadline: 9999999999 },
  })
  test('a tree of domain and message fields; unlimited EIP-2612 permit flagged', () => {
    const v = describeTypedData(permit(maxUint256), 31337)
    expect(v.domain.map((n) => [n.name, n.value])).toEqual([
      ['name', 'Token'],
      ['version', '1'],
      ['chainId', '31337'],
      ['verifyingContract', SPENDER],
    ])
    expect(v.message.find((n) => n.name === 'value')!.value).toBe(maxUint256.toString())
    expect(v.unlimitedPermit).toBe(true)
    expect(v.warnings).toHaveLength(1)
    expect(describeTypedData(permit(10n), 31337).unlimitedPermit).toBe(false)
  })
  test('missing or different domain.chainId warns', () => {
    expect(describeTypedData(permit(1n, { name: 'T' }), 31337).warnings[0]).toMatch(/no chainId/)
    expect(describeTypedData(permit(1n, { name: 'T', chainId: 1 }), 31337).warnings[0]).toMatch(
      /chainId \(1\) is not the chain of this request \(31337\)/,
    )
  })
  test('Permit2 PermitSingle with max uint160 is unlimited; nested structs become children', () => {
    const v = describeTypedData(
      {
        types: {
          PermitDetails: [
            { name: 'token', type: 'address' },
            { name: 'amount', type: 'uint160' },
            { name: 'expiration', type: 'uint48' },
            { name: 'nonce', type: 'uint48' },
          ],
          PermitSingle: [
            { name: 'details', type: 'PermitDetails' },
            { name: 'spender', type: 'address' },
            { name: 'sigDeadline', type: 'uint256' },
          ],
        },
        primaryType: 'PermitSingle',
        domain: { name: 'Permit2', chainId: 31337 },
        message: {
          details: { token: SPENDER, amount: maxUint160.toString(), expiration: 1, nonce: 0 },
          spender: SPENDER,
          sigDeadline: 1,
        },
      },
      31337,
    )
    expect(v.unlimitedPermit).toBe(true)
    expect(v.message[0]!.children!.map((c) => c.name)).toEqual(['token', 'amount', 'expiration', 'nonce'])
  })
  test('Permit2 batches: one unlimited amount among several flags it; malformed messages are read as no amount', () => {
    const batch = (primaryType: string, message: unknown) =>
      describeTypedData({ types: {}, primaryType, domain: { chainId: 31337 }, message }, 31337).unlimitedPermit
    const amounts = (...a: bigint[]) => a.map((amount) => ({ token: SPENDER, amount: amount.toString() }))
    expect(batch('PermitBatch', { details: amounts(5n, maxUint160) })).toBe(true)
    expect(batch('PermitBatch', { details: amounts(5n, 6n) })).toBe(false)
    expect(batch('PermitBatchTransferFrom', { permitted: amounts(maxUint256) })).toBe(true)
    expect(batch('PermitTransferFrom', { permitted: { amount: maxUint256.toString() } })).toBe(true)
    for (const message of [{ details: 'x' }, { details: [null, 7, 'y'] }, { permitted: null }, 'text', null, []]) {
      expect(batch('PermitBatch', message)).toBe(false)
      expect(batch('PermitSingle', message)).toBe(false)
      expect(batch('PermitBatchTransferFrom', message)).toBe(false)
    }
  })
  test('arrays where objects belong are read as empty, not as fields named 0, 1, …', () => {
    const v = describeTypedData({ types: [], primaryType: 'Permit', domain: ['T', '1'], message: [1, 2] }, 31337)
    expect(v.domain).toEqual([])
    expect(v.warnings[0]).toMatch(/no chainId/)
    const p = permit(1n)
    const asArray = describeTypedData({ ...p, message: { ...p.message, owner: [ME] } }, 31337).message
    expect(asArray.find((n) => n.name === 'owner')!.value).toBe(JSON.stringify([ME]))
  })
  test('self-referencing types stay bounded', () => {
    const v = describeTypedData(
      {
        types: { A: [{ name: 'a', type: 'A[]' }] },
        primaryType: 'A',
        domain: { chainId: 1 },
        message: { a: [{ a: [{ a: [] }] }] },
      },
      1,
    )
    expect(v.message[0]!.children![0]!.name).toBe('[0]')
  })
})

import { encodeErrorResult, parseAbi } from 'viem'
import { revertReason } from './revert.ts'
describe('revert reasons', () => {
  test('Error(string) data, panic, custom error, or the node message', () => {
    const data = encodeErrorResult({
      abi: parseAbi(['error Error(string)']),
      errorName: 'Error',
      args: ['insufficient balance'],
    })
    expect(revertReason({ code: 3, message: 'execution reverted: insufficient balance', data })).toBe(
      'insufficient balance',
    )
    expect(
      revertReason({
        code: 3,
        message: 'x',
        data: '0x4e487b710000000000000000000000000000000000000000000000000000000000000011',
      }),
    ).toBe('panic 0x11')
    expect(revertReason({ message: 'execution reverted: nope' })).toBe('nope')
    expect(revertReason({ message: 'execution reverted' })).toBe('execution reverted (no reason given)')
    expect(revertReason({ data: '0x12345678' })).toBe('custom error 0x12345678')
  })
})

import fc from 'fast-check'
describe('robustness', () => {
  test('any stored request, however malformed, is described without throwing (the console must always render)', () => {
    const kinds = ['session', 'personal_sign', 'eth_signTypedData_v4', 'eth_sendTransaction', 'unknown']
    fc.assert(
      fc.property(fc.constantFrom(...kinds), fc.anything(), fc.anything(), (kind, a, b) => {
        describeApproval(kind, a, env)
        describeApproval(
          kind,
          { scope: 'eip155:31337', transaction: a, context: b, typedData: a, messageHex: b, address: a },
          env,
        )
      }),
      { seed: 20261126, numRuns: 500 },
    )
  })
})
