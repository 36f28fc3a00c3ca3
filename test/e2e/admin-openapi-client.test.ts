/**
 * The admin API's OpenAPI document makes a working typed client (docs/admin-api.md): openapi-typescript generates
 * the types from the live /admin/v1/openapi.json, a client module written against them with openapi-fetch is
 * type-checked by tsc (and a call to a path the API does not have is refused by it), then run against the server.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import openapiTS, { astToString } from 'openapi-typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, adminClient } from './helpers/admin.ts'
import { startTestServer, type TestServer } from './helpers/server.ts'

let server: TestServer
/** Inside the checkout, so the generated files resolve openapi-fetch from its node_modules. */
let dir: string
beforeAll(async () => {
  server = await startTestServer({ admin: { token: ADMIN_TOKEN } }, { parts: { admin: true } })
  dir = mkdtempSync(join(resolve('.'), '.openapi-client-'))
}, 120_000)
afterAll(async () => {
  await server?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const CLIENT = `import createClient from 'openapi-fetch'
import type { paths } from './admin-api.ts'

export async function run(baseUrl: string, token: string) {
  const api = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${token}\` } })
  const plans = await api.GET('/admin/v1/plans')
  const created = await api.POST('/admin/v1/accounts', { body: { email: 'typed@example.com' } })
  const id: string = created.data?.id ?? ''
  const one = await api.GET('/admin/v1/accounts/{id}', { params: { path: { id } } })
  const missing = await api.GET('/admin/v1/accounts/{id}', { params: { path: { id: 'no-such-id' } } })
  return {
    plans: plans.data?.plans.map((p) => p.name),
    created: created.response.status,
    email: one.data?.email,
    missing: [missing.response.status, missing.error?.error.code],
  }
}
`
const WRONG = `import createClient from 'openapi-fetch'
import type { paths } from './admin-api.ts'

const api = createClient<paths>({ baseUrl: 'http://127.0.0.1' })
export const wrong = api.POST('/admin/v1/accounts', { body: { mail: 'not a field' } })
`
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    types: [],
  },
}
const tsc = (project: string) =>
  promisify(execFile)(process.execPath, [resolve('node_modules/typescript/bin/tsc'), '-p', project]).then(
    () => ({ code: 0, out: '' }),
    (err: { code: number; stdout: string }) => ({ code: err.code, out: err.stdout }),
  )

describe('a typed client generated from /admin/v1/openapi.json', () => {
  it('the document names its servers, license and an operationId for every operation', async () => {
    const doc = (await adminClient(server.url).get('/openapi.json')).body
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })])
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' })
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((ops) =>
      Object.values(ops).map((op) => op.operationId),
    )
    expect(ids.length).toBeGreaterThan(20)
    expect(
      ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id)),
      ids.join(' '),
    ).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toContain('reloadConfig')
    expect(ids).toContain('getAccountsId')
  })

  it('generates, type-checks (a wrong body is refused) and calls routes on the real server', async () => {
    const doc = (await adminClient(server.url).get('/openapi.json')).body
    writeFileSync(join(dir, 'admin-api.ts'), astToString(await openapiTS(doc)))
    writeFileSync(join(dir, 'client.ts'), CLIENT)
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, files: ['client.ts'] }))
    const checked = await tsc(dir)
    expect(checked, checked.out).toEqual({ code: 0, out: '' })
    writeFileSync(join(dir, 'wrong.ts'), WRONG)
    writeFileSync(join(dir, 'tsconfig.wrong.json'), JSON.stringify({ ...TSCONFIG, files: ['wrong.ts'] }))
    const refused = await tsc(join(dir, 'tsconfig.wrong.json'))
    expect(refused.code).not.toBe(0)
    expect(refused.out).toContain('mail')

    const { run } = (await import(join(dir, 'client.ts'))) as { run: (u: string, t: string) => Promise<unknown> }
    expect(await run(server.url, ADMIN_TOKEN)).toEqual({
      plans: Object.keys(server.app.config.plans),
      created: 201,
      email: 'typed@example.com',
      missing: [404, 'NOT_FOUND'],
    })
  }, 120_000)
})
