/**
 * A graceful stop is not an accident: when Ctrl-C or a SIGTERM to the process group reaches the embedded chain
 * just before chaingate starts stopping, its exit is logged at info, not as "exited unexpectedly" at error.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { processesMatching, waitFor } from './helpers/process.ts'
import { startTestServer, type TestServer } from './helpers/server.ts'

let s: TestServer | undefined
afterEach(async () => {
  await s?.stop()
  s = undefined
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Kills the network's anvil (not its guard) and waits until it is gone. */
async function killAnvil(t: TestServer) {
  const port = new URL(t.app.upstreamUrls.get('devnet-a')!.url).port
  const [anvil] = processesMatching(`--port ${port}`).filter((p) => !p.cmdline.startsWith('sh '))
  expect(anvil).toBeDefined()
  process.kill(anvil!.pid, 'SIGTERM')
  while (processesMatching(`--port ${port}`).some((p) => p.pid === anvil!.pid)) await sleep(20)
}

const lines = (t: TestServer, msg: string) => t.logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith(msg))

describe('embedded chain exit', () => {
  it('while chaingate is stopping: info, not an unexpected error', async () => {
    s = await startTestServer({ networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }] })
    const t = s
    await killAnvil(t)
    await sleep(50) // the exit has been seen; chaingate's own stop follows, as on Ctrl-C
    await t.stop()
    s = undefined
    await sleep(700)
    expect(lines(t, 'embedded chain exited unexpectedly')).toEqual([])
  })

  it('on its own: logged at error level', async () => {
    s = await startTestServer({ networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }] })
    const t = s
    await killAnvil(t)
    // Waits for the line rather than a fixed 900 ms: it comes as soon as the exit is seen.
    await waitFor(() => lines(t, 'embedded chain exited unexpectedly').length > 0, 10_000, 'the error line')
    expect(lines(t, 'embedded chain exited unexpectedly')).toEqual([
      expect.objectContaining({ level: 50, network: 'devnet-a' }),
    ])
  })
})
