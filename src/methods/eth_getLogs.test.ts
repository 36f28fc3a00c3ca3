import { describe, expect, it } from 'vitest'
import { ChaingateError } from '../errors/index.ts'
import { countLogs, fitsTo, planGetLogs, splitRange, type GetLogsLimits } from './eth_getLogs.ts'

const limits: GetLogsLimits = {
  maxBlockRange: 100,
  maxResults: 3,
  upstreamMaxBlockRange: null,
  splitConcurrency: 2,
  maxSplits: 5,
}
const heads = { tip: 1000, finalized: 950 }

describe('eth_getLogs plan', () => {
  it('a numeric range within the cap is sent as written', () => {
    expect(planGetLogs([{ fromBlock: '0x1', toBlock: '0x64' }], heads, limits, true)).toMatchObject({
      kind: 'range',
      from: 1,
      to: 100,
      rewritten: false,
    })
  })

  it("a range one block over the cap is refused with Infura's text", () => {
    const e = planGetLogs([{ fromBlock: '0x1', toBlock: '0x65' }], heads, limits, true) as ChaingateError
    expect([e.code, e.rpcCode, e.message]).toEqual(['LOGS_RANGE_TOO_LARGE', -32602, 'range 101 exceeds limit of 100'])
  })

  it('tags count against the served tip and finalized block; rewritten only when asked to', () => {
    expect(planGetLogs([{ fromBlock: 'finalized' }], heads, limits, true)).toMatchObject({
      kind: 'range',
      from: 950,
      to: 1000,
      filter: { fromBlock: '0x3b6', toBlock: '0x3e8' },
      rewritten: true,
    })
    expect(planGetLogs([{ fromBlock: 'finalized' }], heads, limits, false)).toEqual({ kind: 'pass', from: 950 })
    expect(planGetLogs([{ fromBlock: 'earliest' }], heads, limits, true)).toBeInstanceOf(ChaingateError)
  })

  it('blockHash filters, unknown heads, inverted ranges and malformed filters go to the node as they are', () => {
    expect(planGetLogs([{ blockHash: '0xab' }], heads, limits, true)).toEqual({ kind: 'pass', from: undefined })
    expect(planGetLogs([{ fromBlock: '0x0' }], { tip: undefined, finalized: undefined }, limits, true)).toEqual({
      kind: 'pass',
      from: 0,
    })
    expect(planGetLogs([{ fromBlock: '0x9', toBlock: '0x1' }], heads, limits, true)).toEqual({ kind: 'pass', from: 9 })
    expect(planGetLogs(['x'], heads, limits, true)).toEqual({ kind: 'pass', from: undefined })
  })

  it('splits a range into consecutive sub-ranges covering it exactly', () => {
    expect(splitRange(10, 20, 4)).toEqual([
      [10, 13],
      [14, 17],
      [18, 20],
    ])
    expect(splitRange(5, 5, 4)).toEqual([[5, 5]])
  })
})

describe('counting logs', () => {
  const logs = (blocks: number[]) =>
    Buffer.from(
      JSON.stringify(blocks.map((b, i) => ({ blockNumber: `0x${b.toString(16)}`, logIndex: `0x${i}`, data: '0x]"[' }))),
    )

  it('counts without parsing and stops one past the limit, pointing at the first log beyond it', () => {
    const b = logs([5, 5, 6, 7, 7])
    const { count, overAt } = countLogs(b, 0, 3)
    expect(count).toBe(4)
    expect(fitsTo(b, overAt!, 5)).toBe(6) // the 4th log is in block 7: blocks 5..6 fit
    expect(countLogs(logs([1, 2]), 0, 3)).toEqual({ count: 2, overAt: undefined })
    expect(countLogs(Buffer.from('[ ]'), 0, 3)).toEqual({ count: 0, overAt: undefined })
  })

  it('the range that fits is at least the first block, even when that block alone holds too many', () => {
    const b = logs([5, 5, 5, 5])
    expect(fitsTo(b, countLogs(b, 0, 3).overAt!, 5)).toBe(5)
  })
})
