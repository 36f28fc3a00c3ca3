/**
 * The gateway and the embedded chain as a web page on another origin sees them (Debian's chromium via
 * playwright-core): viem in the page calls the gateway with a header of its own and reads `x-credits-charged`;
 * the embedded anvil answers no cross-origin page, neither a read nor a "simple" POST that would change the chain.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeWithPrograms, programPath } from '../support/programs.ts'
import { startTestServer, type TestServer } from './helpers/server.ts'

let s: TestServer
let context: BrowserContext
let page: Page
let site: Server
let profileDir: string

/** viem for the page: one script that puts `createPublicClient` and `http` on window. */
async function viemBundle(): Promise<string> {
  const out = await build({
    stdin: { contents: "export { createPublicClient, http } from 'viem'", resolveDir: process.cwd() },
    bundle: true,
    format: 'iife',
    globalName: 'viem',
    write: false,
    platform: 'browser',
    logLevel: 'silent',
  })
  return out.outputFiles[0]!.text
}

async function setUp() {
  s = await startTestServer({ networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }] })
  const script = await viemBundle()
  // The page's own origin: another port than the gateway's and anvil's.
  site = createServer((req, res) => {
    if (req.url === '/viem.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script)
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><script src="/viem.js"></script>')
  })
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()))
  profileDir = mkdtempSync(join(tmpdir(), 'chaingate-chromium-'))
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: programPath('chromium'),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  })
  page = await context.newPage()
  // localhost, not 127.0.0.1: a different site from the servers, as a page on the web would be.
  await page.goto(`http://localhost:${(site.address() as { port: number }).port}/`)
  await page.waitForFunction(() => 'viem' in window)
}

async function tearDown() {
  await context?.close()
  site?.close()
  await s?.stop()
  if (profileDir) rmSync(profileDir, { recursive: true, force: true })
}

describeWithPrograms(['chromium'], 'from a page on another origin', () => {
  beforeAll(setUp, 120_000)
  afterAll(tearDown)

  it('viem calls the gateway with its own header and reads x-credits-charged', async () => {
    const got = await page.evaluate(async (url) => {
      const { createPublicClient, http } = (window as any).viem
      let charged: string | null = null
      const client = createPublicClient({
        transport: http(url, {
          fetchOptions: { headers: { 'x-request-id': 'page-1' } },
          onFetchResponse: (r: Response) => {
            charged = r.headers.get('x-credits-charged')
          },
        }),
      })
      const chainId = await client.getChainId()
      return { chainId, charged }
    }, s.endpoint('devnet-a'))
    expect(got).toEqual({ chainId: 31337, charged: expect.stringMatching(/^\d+$/) })
  }, 60_000)

  it('the embedded anvil refuses the page: no answer to read, and a simple POST changes nothing', async () => {
    const anvil = s.app.upstreamUrls.get('devnet-a')!.url
    const blockNumber = async () => {
      const r = await fetch(anvil, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
      })
      return ((await r.json()) as { result: string }).result
    }
    const before = await blockNumber()
    const got = await page.evaluate(async (url) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] })
      let read: string
      try {
        const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        read = `answered ${r.status}: ${await r.text()}`
      } catch (e) {
        read = `failed: ${(e as Error).name}`
      }
      // A "simple" request: no preflight, the page cannot read the answer, but the node would still act on it.
      await fetch(url, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body })
      return read
    }, anvil)
    expect(got).toBe('failed: TypeError')
    expect(await blockNumber()).toBe(before)
  }, 60_000)
})
