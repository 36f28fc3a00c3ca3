import { describe, expect, it } from 'vitest'
import { createStopList } from './stop-list.ts'

const recordingLog = () => {
  const lines: { obj: object; message: string }[] = []
  return { lines, error: (obj: object, message: string) => lines.push({ obj, message }) }
}

describe('stop list', () => {
  it('runs the stops in reverse order of registration', async () => {
    const order: string[] = []
    const stops = createStopList(recordingLog())
    for (const name of ['database', 'pools', 'ledger', 'listener']) stops.add(name, () => order.push(name))
    await stops.stop()
    expect(order).toEqual(['listener', 'ledger', 'pools', 'database'])
  })

  it('waits for each asynchronous stop before the next', async () => {
    const order: string[] = []
    const stops = createStopList(recordingLog())
    stops.add('database', () => order.push('database'))
    stops.add('ledger', async () => {
      await new Promise((r) => setImmediate(r))
      order.push('ledger flushed')
    })
    await stops.stop()
    expect(order).toEqual(['ledger flushed', 'database'])
  })

  it('a failing stop (thrown or rejected) is logged with its part and does not skip the rest', async () => {
    const order: string[] = []
    const log = recordingLog()
    const stops = createStopList(log)
    stops.add('database', () => order.push('database'))
    stops.add('ledger', async () => {
      throw new Error('flush failed')
    })
    stops.add('pools', () => {
      throw new Error('close failed')
    })
    stops.add('listener', () => order.push('listener'))
    await expect(stops.stop()).resolves.toBeUndefined()
    expect(order).toEqual(['listener', 'database'])
    expect(log.lines.map((l) => [(l.obj as { part: string }).part, l.message])).toEqual([
      ['pools', 'error while stopping'],
      ['ledger', 'error while stopping'],
    ])
  })

  it('stops each part once when stop is called twice at the same time; isStopping turns true', async () => {
    let runs = 0
    const stops = createStopList(recordingLog())
    stops.add('ledger', async () => {
      runs++
      await new Promise((r) => setImmediate(r))
    })
    expect(stops.isStopping()).toBe(false)
    const first = stops.stop()
    expect(stops.isStopping()).toBe(true)
    await Promise.all([first, stops.stop()])
    await stops.stop()
    expect(runs).toBe(1)
  })

  it('a part registered while the list is stopping is stopped too', async () => {
    const order: string[] = []
    const stops = createStopList(recordingLog())
    stops.add('database', () => order.push('database'))
    stops.add('starting part', () => {
      order.push('starting part')
      stops.add('late part', () => order.push('late part'))
    })
    await stops.stop()
    expect(order).toEqual(['starting part', 'late part', 'database'])
  })
})
