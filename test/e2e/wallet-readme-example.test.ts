/**
 * Issue 12 item 5: the README's wallet example runs as written — the `js` block of README.md "The wallet" section,
 * executed by plain `node` with `import … from 'chaingate/client'` (the package's own export, resolved from the
 * repository like an installed package) — and `npm run example:dapp` (examples/dapp.ts) completes; both against
 * a real wallet listener with auto-approval. Both print the invokeMethod envelope {scope, result: {method, result}}.
 */
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { promisify } from 'node:util'
import { beforeAll, expect, test } from 'vitest'
import { useWalletOnDevnets } from './helpers/wallet.ts'

const run = promisify(execFile)
const ROOT = resolve(import.meta.dirname, '../..')

/** The first ```js block after the README's "## The wallet" heading. */
function readmeWalletExample(): string {
  const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('## The wallet'))
  const m = /```js\n([\s\S]*?)```/.exec(section)
  if (!m) throw new Error('README.md: no js block in the wallet section')
  return m[1]!
}

beforeAll(async () => {
  // `chaingate/client` is the built export (dist/, made by `npm ci` through `prepare`); build it if this checkout has
  // none.
  if (!existsSync(resolve(ROOT, 'dist/wallet/client/websocket-transport.js')))
    await run('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, timeout: 240_000 })
}, 300_000)
const wallet = useWalletOnDevnets({ autoApprove: true })

test("the README's wallet example runs with plain node and prints the envelope", async () => {
  const code = readmeWalletExample()
  expect(code).toContain("from 'chaingate/client'")
  expect(code).toContain("'ws://127.0.0.1:8546/'")
  // Only the URL changes: the test wallet listens on a free port.
  const { stdout } = await run(
    process.execPath,
    ['--input-type=module', '-e', code.replace('ws://127.0.0.1:8546/', wallet.h.url)],
    { cwd: ROOT, timeout: 60_000 },
  )
  expect(stdout).toContain("granted: [ 'eip155:31337' ]")
  const envelope = JSON.parse(stdout.split('\n').find((l) => l.startsWith('{"scope"'))!)
  expect(envelope).toEqual({
    scope: 'eip155:31337',
    result: { method: 'eth_blockNumber', result: expect.stringMatching(/^0x[0-9a-f]+$/) },
  })
  expect(stdout).toMatch(/^block number: \d+$/m)
  // The documented error shape: the wallet's code is in e.cause.code.
  expect(stdout).toMatch(/^error code: 4100$/m)
}, 90_000)

test('npm run example:dapp completes: session, reads, newHeads, a transaction with its receipt, revoke', async () => {
  const { stdout } = await run('npm', ['run', '--silent', 'example:dapp'], {
    cwd: ROOT,
    timeout: 120_000,
    env: { ...process.env, CHAINGATE_WALLET_URL: wallet.h.url, DAPP_CHAINS: '31337,31338' },
  })
  expect(stdout).toContain('session granted on eip155:31337, eip155:31338')
  expect(stdout).toMatch(
    new RegExp(
      String.raw`invokeMethod answer \(the envelope\): \{"scope":"eip155:31337",` +
        String.raw`"result":\{"method":"eth_blockNumber","result":"0x[0-9a-f]+"\}\}`,
    ),
  )
  expect(stdout).toMatch(/receipt: block \d+, status success/)
  expect(stdout).toContain('session revoked')
}, 150_000)
