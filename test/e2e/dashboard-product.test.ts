/**
 * What the dashboard shows, on the real gateway (real app, anvil devnets, real HTTP): the code examples of a key
 * run as shown (curl, viem and ethers as child processes; web3.js is not installed here, its text is checked), the
 * usage labels the gateway records are named in words, charts are scaled to the data, and overlapping series
 * stay apart (dash pattern, marker, legend).
 */
import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { request } from 'undici'
import { csrfOf, httpClient } from './helpers/dashboard.ts'
import { startTestServer, type TestServer } from './helpers/server.ts'
import { ROOT, waitFor } from './helpers/process.ts'

const PASSWORD = 'Tr0ub4dor&3-horse-staple'
let server: TestServer
let n = 0

beforeAll(async () => {
  server = await startTestServer({ gateway: { defaultPlan: 'team' } }, { parts: { dashboard: true } })
})
afterAll(async () => server?.stop())

async function userWithKey() {
  const c = httpClient(server.url)
  expect((await c.signup(`product-${++n}-${Date.now()}@example.com`, PASSWORD)).statusCode).toBe(303)
  const created = await c.submit('/keys', '/keys', { name: 'examples' })
  expect(created.statusCode).toBe(201)
  const key = /id="api-key" type="text" readonly value="([0-9a-f]{32})"/.exec(created.body)![1]!
  const id = /href="\/usage\?key=([0-9a-f]+)"/.exec(created.body)![1]!
  const secret = /id="new-secret" type="text" readonly value="([0-9a-f]{32})"/.exec(created.body)![1]!
  await server.parts.keySnapshot.reload()
  return { c, key, id, secret }
}

const unescapeHtml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
const snippet = (page: string, lib: string) => {
  const m = new RegExp(`<pre class="snippet" id="snippet-${lib}"><code>([\\s\\S]*?)</code></pre>`).exec(page)
  if (!m) throw new Error(`no ${lib} example on the page`)
  return unescapeHtml(m[1]!)
}

function run(
  cmd: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d))
    child.stderr.on('data', (d: Buffer) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}
const runJs = (code: string, env?: Record<string, string>) =>
  run(process.execPath, ['--input-type=module', '-e', code], env)

describe('code examples per library', () => {
  test('behavior: curl, viem and ethers examples run as shown against the key; with a required secret they read it from the environment', {
    timeout: 180_000,
  }, async () => {
    const { c, key, id, secret } = await userWithKey()
    const page = (await c.get(`/keys/${id}?network=devnet-b`)).body
    const url = `${server.url}/networks/devnet-b/v3/${key}`
    expect(page).toContain('aria-current="true">devnet-b</a>')
    // The page script keeps ?network= in the address bar (a reload shows the same examples).
    expect(page).toContain(`<meta name="chaingate-url" content="/keys/${id}?network=devnet-b">`)
    for (const lib of ['curl', 'viem', 'ethers', 'web3']) expect(snippet(page, lib)).toContain(url)
    // web3.js is not a dependency of this project: its example is checked as text.
    expect(snippet(page, 'web3')).toBe(
      `import { Web3 } from 'web3'\n\nconst web3 = new Web3('${url}')\nconsole.log(await web3.eth.getBlockNumber())`,
    )

    const curl = await run('sh', ['-c', snippet(page, 'curl')])
    expect(JSON.parse(curl.stdout)).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: expect.stringMatching(/^0x[0-9a-f]+$/),
    })
    const viem = await runJs(snippet(page, 'viem'))
    expect(viem.stdout.trim(), viem.stderr).toMatch(/^\d+n$/)
    const ethers = await runJs(snippet(page, 'ethers'))
    expect(ethers.stdout.trim(), ethers.stderr).toMatch(/^\d+$/)

    // Require the secret: the examples send it from CHAINGATE_KEY_SECRET; without it the gateway refuses.
    const token = csrfOf(page)
    expect((await c.post(`/keys/${id}/security`, { _csrf: token, flags: '1', requireSecret: 'on' })).statusCode).toBe(
      303,
    )
    await server.parts.keySnapshot.reload()
    const guarded = (await c.get(`/keys/${id}?network=devnet-b`)).body
    expect(guarded).toContain('set <code>CHAINGATE_KEY_SECRET</code> in the environment first')
    expect(guarded).not.toContain(secret)
    const env = { CHAINGATE_KEY_SECRET: secret }
    const curlOk = await run('sh', ['-c', snippet(guarded, 'curl')], env)
    expect(JSON.parse(curlOk.stdout).result).toMatch(/^0x/)
    const curlNo = await run('sh', ['-c', snippet(guarded, 'curl')], { CHAINGATE_KEY_SECRET: 'wrong' })
    expect(curlNo.stdout).toBe('invalid project id or project secret')
    const viemOk = await runJs(snippet(guarded, 'viem'), env)
    expect(viemOk.stdout.trim(), viemOk.stderr).toMatch(/^\d+n$/)
    const ethersOk = await runJs(snippet(guarded, 'ethers'), env)
    expect(ethersOk.stdout.trim(), ethersOk.stderr).toMatch(/^\d+$/)
    expect(snippet(guarded, 'web3')).toContain('new Web3.providers.HttpProvider(')
  })
})

describe('usage labels and charts', () => {
  test('behavior: what the gateway records for rejected input and unsupported methods is named in words', {
    timeout: 30_000,
  }, async () => {
    const { c, key, id } = await userWithKey()
    const post = async (body: string) => {
      const res = await request(`${server.url}/networks/devnet-a/v3/${key}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      await res.body.text()
      return res.statusCode
    }
    expect(await post('{not json')).toBe(400)
    await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'made_upMethod', params: [] }))
    await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] }))
    const db = server.parts.database.db
    await waitFor(
      async () => (await db.selectFrom('usage_hourly').select('method').where('key_id', '=', id).execute()).length >= 3,
      5_000,
      'usage rows',
    )
    const methods = (await db.selectFrom('usage_hourly').select('method').where('key_id', '=', id).execute())
      .map((r) => r.method)
      .sort()
    expect(methods).toEqual(['(invalid)', 'eth_chainId', 'other'])

    const page = (await c.get('/usage')).body
    const table = /<caption class="sr-only">Method<\/caption>[\s\S]*?<\/table>/.exec(page)![0]
    expect(table).toContain('<span title="(invalid)">rejected input</span>')
    expect(table).toContain('<span title="other">unsupported method</span>')
    expect(table).toContain('<td>eth_chainId</td>')
    expect(page).toContain('<dt>rejected input</dt>')
    expect(page).toContain('<dt>unsupported method</dt>')
    // Charts and legends use the words too; "other" is never shown as a label.
    expect(/<figure class="chart" id="method-chart">[\s\S]*?<\/figure>/.exec(page)![0]).toContain(
      '>rejected input</text>',
    )
    expect(page).not.toMatch(/>\(invalid\)</)
    expect(page).not.toMatch(/>other</)
  })

  test('behavior: a batch refused by a limit is named; small numbers get an axis of their own; overlapping series differ', async () => {
    const { c, id } = await userWithKey()
    const db = server.parts.database.db
    const accountId = (
      await db.selectFrom('api_keys').select('account_id').where('id', '=', id).executeTakeFirstOrThrow()
    ).account_id
    const hour = Math.floor(Date.now() / 3_600_000) * 3600
    // Two methods with the same calls every hour: their lines lie on top of each other.
    await db
      .insertInto('usage_hourly')
      .values([
        {
          hour,
          account_id: accountId,
          key_id: id,
          network: 'devnet-a',
          method: 'eth_call',
          calls: 6,
          credits: 480,
          errors: 0,
        },
        {
          hour,
          account_id: accountId,
          key_id: id,
          network: 'devnet-a',
          method: 'eth_getBalance',
          calls: 6,
          credits: 330,
          errors: 0,
        },
        {
          hour,
          account_id: accountId,
          key_id: id,
          network: 'devnet-a',
          method: 'batch',
          calls: 3,
          credits: 0,
          errors: 3,
        },
      ])
      .execute()
    const usage = (await c.get('/usage')).body
    expect(usage).toContain('<span title="batch">batch refused by a limit</span>')
    expect(usage).toContain('<dt>batch refused by a limit</dt>')
    const calls = /<figure class="chart" id="calls-chart">[\s\S]*?<\/figure>/.exec(usage)![0]
    const dashes = [...calls.matchAll(/<polyline class="line s(\d)"[^>]*?(?: stroke-dasharray="([^"]+)")?\/>/g)].map(
      (m) => m[2] ?? 'solid',
    )
    expect(dashes.length).toBe(3)
    expect(new Set(dashes).size).toBe(3)
    expect(calls).toMatch(/<circle class="dot s0"/)
    expect(calls).toMatch(/<rect class="dot s1"/)
    expect((calls.match(/<li><svg class="key"/g) ?? []).length).toBe(3)

    // The overview: 810 credits today on an axis of 0–1000 (not 0–75M, the team plan's quota).
    const overview = (await c.get('/')).body
    const daily = /<figure class="chart" id="daily-chart">[\s\S]*?<\/figure>/.exec(overview)![0]
    const axis = /<g class="axis">[\s\S]*?<\/g>/.exec(daily)![0]
    const ticks = [...axis.matchAll(/text-anchor="end">([^<]+)<\/text>/g)].map((m) => m[1])
    expect(ticks).toEqual(['0', '250', '500', '750', '1000'])
    expect(daily).toContain('daily quota 75M (above this scale)')
    const last = /points="([^"]+)"/.exec(daily)![1]!.split(' ').at(-1)!.split(',').map(Number)
    // Plot from y=12 (1000) to y=192 (0): 810 sits at 192 - 0.81 × 180.
    expect(last[1]).toBeCloseTo(192 - 0.81 * 180, 0)
  })
})
