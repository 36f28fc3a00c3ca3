/**
 * `chaingate/client` as a user's project gets it: `npm pack` (which builds dist/ through `prepare`), the tarball
 * installed into a scratch project, and a plain `node` script (no tsx, no TypeScript) that imports
 * `getWebSocketTransport` from 'chaingate/client' and talks to a real wallet listener through
 * `@metamask/multichain-api-client`. Modules the server loads beside its own (browser files, the request explorer's
 * writer thread) are found in dist/.
 */
import { execFile, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { sqliteEngine } from '../../src/db/sqlite-driver.ts'
import {
  ACCOUNT_0,
  CHAIN_A,
  approve,
  startDevnets,
  startWallet,
  waitForPending,
  type WalletHarness,
} from './helpers/wallet.ts'

const run = promisify(execFile)
const ROOT = resolve(import.meta.dirname, '../..')
const NPM_ENV = {
  ...process.env,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
}

let scratch: string
let tarball: string
let devnets: Awaited<ReturnType<typeof startDevnets>>
let wallet: WalletHarness

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'chaingate-user-project-'))
  // dist/ is what `prepare` (tsc) builds from the current sources: the suite's global setup made it current
  // (test/global-setup.ts). --ignore-scripts: packing does not rebuild it under the other files' child processes,
  // which run it.
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], {
    cwd: ROOT,
    env: NPM_ENV,
    timeout: 240_000,
    maxBuffer: 64 << 20,
  })
  const packed = JSON.parse(stdout.slice(stdout.indexOf('[')))[0] as { filename: string; files: { path: string }[] }
  tarball = join(scratch, packed.filename)
  const paths = packed.files.map((f) => f.path)
  expect(paths).toContain('dist/wallet/client/websocket-transport.js')
  expect(paths).toContain('dist/wallet/client/websocket-transport.d.ts')
  expect(paths).toContain('dist/cli/main.js')
  expect(paths).toContain('dist/usage/requests/sqlite-writer-thread.js')
  expect(paths.filter((p) => p.startsWith('src/') || p.startsWith('test/'))).toEqual([])

  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }))
  // From the local npm cache (the registry only when something is missing). --ignore-scripts: the client needs
  // neither anvil's binary nor the optional SQLite addon, and skipping them keeps this test fast.
  await run('npm', ['install', tarball, '--prefer-offline', '--ignore-scripts', '--no-package-lock'], {
    cwd: scratch,
    env: NPM_ENV,
    timeout: 240_000,
    maxBuffer: 64 << 20,
  })
  devnets = await startDevnets()
  wallet = await startWallet(devnets.anvils)
}, 480_000)

// The scratch project holds a full node_modules: removing it takes a while on a busy machine.
afterAll(async () => {
  await wallet?.stop()
  await devnets?.stop()
  if (scratch) await rm(scratch, { recursive: true, force: true })
}, 180_000)

test('the installed package declares the client export as JavaScript with types, and no tsx at run time', () => {
  const pkg = JSON.parse(readFileSync(join(scratch, 'node_modules/chaingate/package.json'), 'utf8'))
  expect(pkg.exports['./client']).toEqual({
    types: './dist/wallet/client/websocket-transport.d.ts',
    default: './dist/wallet/client/websocket-transport.js',
  })
  expect(pkg.dependencies['@metamask/multichain-api-client']).toBeDefined()
  expect(pkg.dependencies.tsx).toBeUndefined()
  expect(existsSync(join(scratch, 'node_modules/tsx'))).toBe(false)
  expect(
    readFileSync(join(scratch, 'node_modules/chaingate/dist/wallet/client/websocket-transport.d.ts'), 'utf8'),
  ).toMatch(/export declare function getWebSocketTransport/)
})

/** Runs `expression` (with `m`, the module at `file` under the installed dist/) in plain node: no tsx. */
async function evalInDist(file: string, expression: string): Promise<unknown> {
  const script = `const m = await import(process.argv[1]); console.log(JSON.stringify(${expression}))`
  const module = join(scratch, 'node_modules/chaingate/dist', file)
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, module], {
    cwd: scratch,
    env: { PATH: process.env.PATH },
  })
  return JSON.parse(stdout)
}

// The compiled modules find their browser files beside them (`npm run build` copies them there).
test("the wallet console's and dashboard's static files are packed and read from dist/ as they are in src/", async () => {
  const assets = (await evalInDist('wallet/listener/console-assets.js', 'm.consoleAssets()')) as {
    name: string
    body: string
  }[]
  expect(assets.map((a) => a.name)).toContain('console.browser.js')
  for (const a of assets) expect(a.body).toBe(readFileSync(join(ROOT, 'src/wallet/console', a.name), 'utf8'))
  const dashboard = await evalInDist('dashboard/assets.js', '[m.CSS, m.JS, m.FAVICON_SVG]')
  const src = (name: string) => readFileSync(join(ROOT, 'src/dashboard/static', name), 'utf8')
  expect(dashboard).toEqual([src('app.css'), src('app.browser.js'), src('favicon.svg')])
})

// The request explorer's SQLite writer thread is a module beside its starter in dist/, loaded by plain node. The
// scratch install skips the SQLite addon's build (--ignore-scripts), so this needs Node's own node:sqlite (22.13+).
test.skipIf(sqliteEngine() !== 'node:sqlite')("the request explorer's writer thread writes from dist/", async () => {
  const file = join(scratch, 'explorer.sqlite')
  const rows = await evalInDist(
    'usage/requests/writers.js',
    `await (async () => {
      const at = (await import('node:url')).pathToFileURL(process.argv[1])
      const { openDatabase } = await import(new URL('../../db/database.js', at))
      const { createRequestRecorder } = await import(new URL('recorder.js', at))
      const { queryRequests } = await import(new URL('queries.js', at))
      const database = await openDatabase(${JSON.stringify(file)})
      const onError = (err) => { throw err }
      const opts = { flushMs: 60000, bufferRows: 10, clock: () => 7, onError }
      const recorder = createRequestRecorder(m.requestWriterFor(database), opts)
      const call = { entry: { id: 'k1', accountId: 'a1' }, network: { name: 'n1' } }
      recorder.push(call, 'eth_call', undefined, 5, undefined, 2)
      await recorder.stop()
      const { rows } = await queryRequests(database.db, { keyId: 'k1' })
      await database.close()
      return rows
    })()`,
  )
  expect(rows).toEqual([
    {
      time: 7,
      keyId: 'k1',
      accountId: 'a1',
      network: 'n1',
      method: 'eth_call',
      status: 'ok',
      latencyMs: 5,
      credits: 5,
      served: null,
      client: null,
    },
  ])
})

test("plain node imports 'chaingate/client' and opens a session on a real wallet through it", async () => {
  const origin = 'https://packaged-dapp.example'
  writeFileSync(
    join(scratch, 'dapp.mjs'),
    `import { getMultichainClient } from '@metamask/multichain-api-client'
import { getWebSocketTransport } from 'chaingate/client'
const transport = getWebSocketTransport({ url: process.argv[2], origin: ${JSON.stringify(origin)} })
const client = getMultichainClient({ transport })
const scope = 'eip155:${CHAIN_A}'
const wanted = { methods: ['eth_chainId'], notifications: [] }
const session = await client.createSession({ optionalScopes: { [scope]: wanted } })
const chainId = await client.invokeMethod({ scope, request: { method: 'eth_chainId', params: [] } })
console.log(JSON.stringify({ scopes: Object.keys(session.sessionScopes), chainId }))
process.exit(0)
`,
  )
  // process.execPath without any loader: the export must work in a plain Node.
  const child = spawn(process.execPath, ['dapp.mjs', wallet.url], {
    cwd: scratch,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c) => (stdout += c))
  child.stderr.on('data', (c) => (stderr += c))
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)))
  try {
    const pending = await waitForPending(wallet, (p) => p.origin === origin && p.kind === 'session', 20_000)
    await approve(wallet, pending.id, { accounts: [ACCOUNT_0] })
    const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 20_000))])
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
  } finally {
    child.kill()
  }
  const out = JSON.parse(stdout.trim().split('\n').at(-1)!)
  expect(out.scopes).toEqual([`eip155:${CHAIN_A}`])
  expect(JSON.stringify(out.chainId)).toContain(`0x${CHAIN_A.toString(16)}`)
}, 60_000)
