import { describe, expect, it } from 'vitest'
import { type EventGroup, type FanoutListener, fanOut } from './fanout.ts'
import { hubHarness, until } from './hub.test-support.ts'

const { fakeNode, hub } = hubHarness()

describe('fan-out of one event', () => {
  it('yields to the event loop between chunks: a callback queued before the fan-out runs before the last', async () => {
    const got: number[] = []
    let ranAt: number | undefined
    const listeners: FanoutListener[] = Array.from({ length: 1200 }, (_, i) => ({ onEvent: () => got.push(i) }))
    setImmediate(() => (ranAt = got.length))
    await fanOut(listeners, { number: '0x1' }, 500)
    expect(got).toHaveLength(1200)
    // Ran after the first chunk (500 at most: a chunk also ends after a few ms) and well before the last one: an
    // HTTP call arriving meanwhile is served, not held until every client has the event.
    expect(ranAt).toBeGreaterThan(0)
    expect(ranAt).toBeLessThanOrEqual(500)
  })

  it('a group begins once with its count before its listeners, and ends after them, also when one throws', async () => {
    const log: string[] = []
    const group = (name: string, wait: boolean): EventGroup<string> => ({
      begin(n, _result, json) {
        log.push(`begin ${name} ${n} ${json}`)
        return wait ? new Promise((r) => setTimeout(() => r(`${name}-round`), 20)) : `${name}-round`
      },
      end: (round) => log.push(`end ${round}`),
    })
    const a = group('a', false)
    const b = group('b', true) // e.g. a charge that waits for Redis: the fan-out waits for it
    const on = (name: string) => (_r: unknown, _j: string, round: unknown) => log.push(`${name} ${round}`)
    await fanOut(
      [
        { onEvent: on('1'), group: a },
        { onEvent: on('2'), group: b },
        { onEvent: on('3'), group: a },
        { onEvent: on('4') },
      ],
      { x: 1 },
      2,
    )
    expect(log).toEqual([
      'begin a 2 {"x":1}',
      'begin b 1 {"x":1}',
      '1 a-round',
      '2 b-round',
      '3 a-round',
      '4 undefined',
      'end a-round',
      'end b-round',
    ])
    log.length = 0
    const thrower = () => {
      throw new Error('boom')
    }
    await expect(fanOut([{ onEvent: thrower, group: a }], {}, 2)).rejects.toThrow('boom')
    expect(log).toEqual(['begin a 1 {}', 'end a-round'])
  })

  it('through the hub in chunks of 3: every client gets every head once and in order', async () => {
    const node = await fakeNode()
    const h = hub([node.wsUrl], { fanoutChunk: 3 })
    const seen: number[][] = []
    for (let i = 0; i < 10; i++) {
      const mine: number[] = []
      seen.push(mine)
      await h.subscribe(
        ['newHeads'],
        (r) => mine.push(Number((r as { number: string }).number)),
        () => undefined,
      )
    }
    for (let n = 1; n <= 20; n++) node.notify('newHeads', { number: `0x${n.toString(16)}` })
    await until(() => seen.every((s) => s.length === 20))
    const all = Array.from({ length: 20 }, (_, i) => i + 1)
    for (const s of seen) expect(s).toEqual(all)
  })
})
