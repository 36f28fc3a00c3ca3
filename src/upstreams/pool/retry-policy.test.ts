import { describe, expect, it } from 'vitest'
import { keccak256 } from 'viem'
import { Breaker } from './breaker.ts'
import { createHeadTracker } from './heads.ts'
import { callKind, isAlreadySent, rawTransactionOf, RelayedTransactions, weakAnswer } from './retry-policy.ts'

const b = (s: string) => Buffer.from(s)

describe('retry policy: which calls may be retried and hedged', () => {
  it('reads are reads; eth_sendRawTransaction is retry-safe; node-local and state-changing methods are not', () => {
    expect(['eth_call', 'eth_getBalance', 'eth_blockNumber', 'eth_getLogs'].map(callKind)).toEqual([
      'read',
      'read',
      'read',
      'read',
    ])
    expect(callKind('eth_sendRawTransaction')).toBe('send-raw')
    expect(
      [
        'evm_mine',
        'anvil_setBalance',
        'eth_newFilter',
        'eth_getFilterChanges',
        'eth_uninstallFilter',
        'eth_sendTransaction',
        'eth_subscribe',
      ].map(callKind),
    ).toEqual(Array(7).fill('unsafe'))
    expect(callKind(undefined)).toBe('batch')
  })

  it('weak answers: null for a block-bound read is missing data, other nulls and empties are empty, data and client errors are answers', () => {
    expect(weakAnswer('eth_getBlockByNumber', b('{"jsonrpc":"2.0","id":1,"result":null}'))).toBe('missing')
    expect(weakAnswer('eth_getTransactionReceipt', b('{"jsonrpc":"2.0","id":1,"result":null}'))).toBe('missing')
    expect(weakAnswer('eth_call', b('{"jsonrpc":"2.0","id":1,"result":null}'))).toBe('empty')
    expect(weakAnswer('eth_getLogs', b('{"jsonrpc":"2.0","id":1,"result":[]}'))).toBe('empty')
    expect(weakAnswer('eth_getCode', b('{"jsonrpc":"2.0","id":1,"result":"0x"}'))).toBe('empty')
    expect(weakAnswer('eth_getBalance', b('{"jsonrpc":"2.0","id":1,"result":"0x0"}'))).toBeUndefined()
    expect(
      weakAnswer('eth_call', b('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"header not found"}}')),
    ).toBe('missing')
    expect(
      weakAnswer('eth_call', b('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"missing trie node abc"}}')),
    ).toBe('missing')
    expect(
      weakAnswer('eth_call', b('{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted"}}')),
    ).toBeUndefined()
    expect(
      weakAnswer('eth_getLogs', b(`{"jsonrpc":"2.0","id":1,"result":[${'{"x":1},'.repeat(100)}{}]}`)),
    ).toBeUndefined()
  })

  it('solana: "not there yet" answers of a node behind are missing; the same codes from an EVM node are not', () => {
    const error = (code: number, message = 'x') =>
      b(`{"jsonrpc":"2.0","id":1,"error":{"code":${code},"message":"${message}"}}`)
    const slot = 'Block not available for slot 341197053'
    for (const code of [-32004, -32007, -32009, -32014]) {
      expect(weakAnswer('getBlock', error(code, slot)), String(code)).toBe('missing')
      expect(weakAnswer('getBalance', error(code, slot)), String(code)).toBeUndefined() // not slot-bound
    }
    expect(weakAnswer('getBalance', error(-32016, 'Minimum context slot has not been reached'))).toBe('missing')
    expect(weakAnswer('getSlot', error(-32005, 'Node is behind by 42 slots'))).toBe('missing')
    expect(weakAnswer('eth_call', error(-32005, 'Node is behind by 42 slots'))).toBeUndefined()
    expect(weakAnswer('eth_getBlockByNumber', error(-32004, slot))).toBeUndefined()
    expect(weakAnswer('getBalance', error(-32602, 'Invalid param: WrongSize'))).toBeUndefined()
    // An account this node has not seen yet (null value), a transaction it has not got.
    const at = '{"jsonrpc":"2.0","id":1,"result":{"context":{"apiVersion":"2.2.0","slot":341197053},"value":null}}'
    expect(weakAnswer('getAccountInfo', b(at))).toBe('missing')
    expect(weakAnswer('getBalance', b(at))).toBeUndefined()
    expect(weakAnswer('getTransaction', b('{"jsonrpc":"2.0","id":1,"result":null}'))).toBe('missing')
    expect(weakAnswer('getAccountInfo', b(at.replace('null', '{"lamports":1}')))).toBeUndefined()
  })

  it('a transaction already sent: "already known" always; "nonce too low" only for a hash the gateway relayed', () => {
    const raw =
      '0x02f86c827a6980843b9aca00850df8475800825208944444444444444444444444444444444444444444872386f26fc1000080c0'
    expect(
      rawTransactionOf(`{"jsonrpc":"2.0","id":"a","method":"eth_sendRawTransaction","params":["${raw}"]}`),
    ).toEqual({ hash: keccak256(raw), id: 'a' })
    expect(rawTransactionOf('{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":[42]}')).toBeUndefined()
    const known = b('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"already known"}}')
    const low = b('{"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"nonce too low"}}')
    expect([isAlreadySent(known, false), isAlreadySent(low, false), isAlreadySent(low, true)]).toEqual([
      true,
      false,
      true,
    ])
    const relayed = new RelayedTransactions(2)
    relayed.add('0x1')
    relayed.add('0x2')
    relayed.add('0x3')
    expect([relayed.has('0x1'), relayed.has('0x2'), relayed.has('0x3')]).toEqual([false, true, true])
  })
})

describe('breaker', () => {
  it('opens after the threshold, lets one probe through after openMs, closes on its success and doubles on its failure', () => {
    const br = new Breaker({ failureThreshold: 3, openMs: 100, maxOpenMs: 150 })
    br.failure(0)
    br.failure(0)
    expect(br.allow(0)).toBe(true)
    br.failure(0)
    expect([br.isOpen, br.allow(50)]).toEqual([true, false])
    expect([br.allow(100), br.allow(100)]).toEqual([true, false]) // one probe at a time
    br.failure(100) // the probe failed: open again, for longer (capped)
    expect([br.allow(200), br.allow(250)]).toEqual([false, true])
    br.success()
    expect([br.isOpen, br.allow(251)]).toEqual([false, true])
  })
})

describe('head tracker', () => {
  it('the served tip only moves forward; a new hash at a served height is a reorg', () => {
    const t = createHeadTracker()
    const seen: unknown[] = []
    t.onHead((h) => seen.push(h))
    t.report({ number: 10, hash: '0xa10' })
    t.report({ number: 11, hash: '0xa11', parentHash: '0xa10' })
    t.report({ number: 9, hash: '0xa09' }) // a node behind: no change
    expect(t.latest()).toBe(11)
    t.report({ number: 11, hash: '0xb11', parentHash: '0xa10' }) // same height, another block
    t.report({ number: 12, hash: '0xc12', parentHash: '0xc11' }) // parent is not the served 11
    expect(seen).toEqual([
      { number: 10, hash: '0xa10', reorg: false },
      { number: 11, hash: '0xa11', reorg: false },
      { number: 11, hash: '0xb11', reorg: true },
      { number: 12, hash: '0xc12', reorg: true },
    ])
    t.reportFinalized(5)
    t.reportFinalized(3)
    expect(t.finalized()).toBe(5)
  })
})
