import { EventEmitter } from 'node:events'
import { describe, expect, it } from 'vitest'
import { emptyBatch, NUMBERS, type RequestBatch, STRINGS } from '../../usage/requests/batch.ts'
import type { RequestWriter } from '../../usage/requests/recorder.ts'
import { answerRelayedExplorerBatches, type Channel, createRelayedRequestWriter } from './request-explorer-relay.ts'

/** Two ends of an IPC channel; messages are structured-cloned, as node:cluster's `advanced` serialization does. */
function pipe() {
  const ends = [new EventEmitter(), new EventEmitter()] as const
  let open = true
  const end = (self: EventEmitter, other: EventEmitter): Channel =>
    Object.assign(self, {
      send(m: unknown, cb?: (err: Error | null) => void) {
        if (!open) throw Object.assign(new Error('Channel closed'), { code: 'ERR_IPC_CHANNEL_CLOSED' })
        const copy = structuredClone(m)
        setImmediate(() => {
          other.emit('message', copy)
          cb?.(null)
        })
        return true
      },
    }) as unknown as Channel
  return {
    worker: end(ends[0], ends[1]),
    primary: end(ends[1], ends[0]),
    close() {
      open = false
      ends[0].emit('disconnect')
    },
  }
}

const batch = (count: number): RequestBatch => ({
  count,
  strings: ['key-1', 'acct-1', 'mainnet', 'eth_call', 'ok'],
  refs: new Uint32Array(count * STRINGS).fill(0),
  nums: new Float64Array(count * NUMBERS).fill(7),
})

describe('request explorer relay (workers → primary)', () => {
  it('hands each batch to the primary writer whole, typed arrays included, and resolves once written', async () => {
    const p = pipe()
    const got: RequestBatch[] = []
    const writer: RequestWriter = { write: async (b) => void got.push(b) }
    answerRelayedExplorerBatches(p.primary, () => writer)
    const relayed = createRelayedRequestWriter(p.worker)
    await relayed.write(batch(3))
    await relayed.write(emptyBatch())
    expect(got).toHaveLength(2)
    expect(got[0]!.count).toBe(3)
    expect(got[0]!.refs).toBeInstanceOf(Uint32Array)
    expect(got[0]!.refs).toHaveLength(3 * STRINGS)
    expect([...got[0]!.nums]).toEqual(new Array(3 * NUMBERS).fill(7))
    expect(got[0]!.strings).toEqual(['key-1', 'acct-1', 'mainnet', 'eth_call', 'ok'])
  })

  it("fails the worker's write with the primary's reason when the primary cannot write", async () => {
    const p = pipe()
    answerRelayedExplorerBatches(p.primary, () => ({
      write: () => {
        throw new Error('SQLITE_FULL: database or disk is full')
      },
    }))
    await expect(createRelayedRequestWriter(p.worker).write(batch(1))).rejects.toThrow(/primary.*SQLITE_FULL/)
    const off = pipe()
    answerRelayedExplorerBatches(off.primary, () => undefined)
    await expect(createRelayedRequestWriter(off.worker).write(batch(1))).rejects.toThrow(/explorer is off/)
  })

  it('fails writes in flight when the primary goes away, and later ones at once; a silent primary times out', async () => {
    const p = pipe()
    // A primary that never answers.
    const relayed = createRelayedRequestWriter(p.worker)
    const pending = relayed.write(batch(2))
    p.close()
    await expect(pending).rejects.toThrow(/primary is gone/)
    await expect(relayed.write(batch(1))).rejects.toThrow(/Channel closed/)
    const silent = pipe()
    await expect(createRelayedRequestWriter(silent.worker, 50).write(batch(1))).rejects.toThrow(/within 0.05 s/)
  })

  it('answers each worker on its own channel, whatever else travels on it', async () => {
    const a = pipe()
    const b = pipe()
    const counts: number[] = []
    const writer: RequestWriter = { write: async (x) => void counts.push(x.count) }
    answerRelayedExplorerBatches(a.primary, () => writer)
    answerRelayedExplorerBatches(b.primary, () => writer)
    a.worker.send({ type: 'ready', url: 'http://127.0.0.1:1' }) // other protocol messages are left alone
    await Promise.all([
      createRelayedRequestWriter(a.worker).write(batch(4)),
      createRelayedRequestWriter(b.worker).write(batch(5)),
    ])
    expect(counts.sort()).toEqual([4, 5])
  })
})
