/**
 * The gateway's per-call objects keep V8's fast, in-object layout even when garbage collections run between the
 * first few calls, as they do in a process that starts and then only sees a health probe now and then
 * (src/shared/object-shapes.ts). A child process runs the real gateway against a real anvil with
 * `--allow-natives-syntax`, collects twice between each of its first six calls, serves more, and prints V8's own
 * description (%DebugPrint) of the objects the last call used. A class of the test's own, made the same way without
 * sizeClass, shows what V8 does otherwise: it loses its in-object room. A process.nextTick entry queued at the end
 * still has the shapes of the entry the gateway holds (keepTickShape).
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type RunningAnvil, startAnvil } from '../../src/upstreams/devnet/anvil.ts'

const root = join(import.meta.dirname, '..', '..')
let anvil: RunningAnvil
let dataDir: string

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 31337, port: 0, blockTimeSeconds: 0 })
  dataDir = mkdtempSync(join(tmpdir(), 'chaingate-shapes-'))
})
afterAll(async () => {
  await anvil?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

const child = (anvilUrl: string, dir: string) => `
import { createHook } from 'node:async_hooks'
import dc from 'node:diagnostics_channel'
import { writeSync } from 'node:fs'
import { request } from 'node:http'
import pino from 'pino'
import { startApp } from ${JSON.stringify(join(root, 'src/app/build.ts'))}
import { appInternals } from ${JSON.stringify(join(root, 'src/app/app.test-support.ts'))}
import { parseConfig } from ${JSON.stringify(join(root, 'src/config/load.ts'))}
import { MemberWalk } from ${JSON.stringify(join(root, 'src/jsonrpc/scan.ts'))}
import { heldTickEntry } from ${JSON.stringify(join(root, 'src/shared/object-shapes.ts'))}

// Only the objects of the last calls are kept: holding one of the first would keep its shape alive through the
// collections, which is what the gateway has to do without.
const seen = {}
let capture = false
dc.subscribe('undici:request:create', ({ request }) => {
  if (!capture) return
  const handler = request[Object.getOwnPropertySymbols(request).find((s) => s.description === 'handler')]
  if (handler?.constructor.name === 'ForwardHandler') Object.assign(seen, { Request: request, ForwardHandler: handler })
})
dc.subscribe('http.server.response.finish', ({ request, response }) => {
  if (capture) Object.assign(seen, { IncomingMessage: request, ServerResponse: response })
})
const collect = async () => { gc(); await new Promise((r) => setTimeout(r, 20)); gc() }

// The control: more than 12 properties and a symbol-keyed one, its first objects made across collections.
const mark = Symbol('mark')
class Control {
  constructor(i) {
    this.a = i; this.b = i; this.c = i; this.d = i; this.e = i; this.f = i; this.g = i
    this.h = i; this.i = i; this.j = i; this.k = i; this.l = i; this.m = i; this.n = i
    this[mark] = i
  }
}

const config = parseConfig({
  dataDir: ${JSON.stringify(dir)},
  gateway: { host: '127.0.0.1', port: 0, devAccount: null },
  networks: [{ name: 'shapes', chainId: 31337, upstreams: [{ url: ${JSON.stringify(anvilUrl)} }] }],
  log: { level: 'error', requests: false },
})
const app = await startApp({ config, logger: pino({ level: 'silent' }) })
const parts = appInternals(app)
const account = await parts.accounts.create({ email: 'shapes@localhost', plan: 'dev' }, Date.now())
const key = await parts.keys.create({ accountId: account.id, name: 'shapes' }, Date.now())
await parts.keySnapshot.reload()
const url = new URL(app.url + '/networks/shapes/v3/' + key.key)
let n = 0
const call = () => new Promise((resolve, reject) => {
  const address = '0x' + (0xabc000 + n++).toString(16).padStart(40, '0')
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [address, 'latest'] })
  const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
    let text = ''
    res.on('data', (c) => (text += c))
    res.on('end', () => (text.includes('"result"') ? resolve() : reject(new Error(text))))
  })
  req.on('error', reject)
  req.end(body)
})
for (let i = 0; i < 6; i++) {
  await call()
  new Control(i)
  await collect()
}
capture = true
for (let i = 0; i < 40; i++) {
  await call()
  new Control(i)
}
seen.MemberWalk = new MemberWalk(Buffer.from('{"a":1}'), 0, 7)
// A tick queued now follows the shapes of the one startApp holds: they outlived the collections above.
let tick
const hook = createHook({ init(_id, type, _t, resource) { if (type === 'TickObject') tick = resource } }).enable()
process.nextTick(() => {})
hook.disable()
const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)')
writeSync(1, '\\n@@ tick-same-map ' + sameMap(heldTickEntry(), tick) + '\\n')
seen.Control = new Control(0)
const describe = new Function('o', '%DebugPrint(o)')
for (const [name, o] of Object.entries(seen)) {
  writeSync(1, '\\n@@ ' + name + ' ' + Reflect.ownKeys(o).length + '\\n')
  describe(o)
}
writeSync(1, '\\n@@ end\\n')
await app.stop()
process.exit(0)
`

interface Shape {
  properties: number
  fast: boolean
  inObject: number
}

/**
 * Each object's own property count, whether V8 keeps it in fast mode, and its map's in-object property count; and
 * whether the last tick entry had the held one's shape.
 */
function shapes(out: string): { objects: Map<string, Shape>; tickSameMap: boolean } {
  const found = new Map<string, Shape>()
  let tickSameMap = false
  const blocks = out.split('\n@@ ').slice(1)
  for (const block of blocks) {
    const [head, ...rest] = block.split('\n')
    const [name, properties] = head!.split(' ')
    if (name === 'end') continue
    if (name === 'tick-same-map') {
      tickSameMap = properties === 'true'
      continue
    }
    const text = rest.join('\n')
    const inObject = /- inobject properties: (\d+)/.exec(text)?.[1]
    found.set(name!, {
      properties: Number(properties),
      fast: /- map: .*\[FastProperties\]/.test(text),
      inObject: Number(inObject ?? Number.NaN),
    })
  }
  return { objects: found, tickSameMap }
}

it('keeps per-call objects fast and in-object after collections between the first calls', async () => {
  // V8 prints to the process's stdout: a file, which takes blocking writes (a pipe would refuse them: EAGAIN).
  const file = join(dataDir, 'shapes.out')
  const out = openSync(file, 'w')
  try {
    const argv = ['--allow-natives-syntax', '--expose-gc', '--import', 'tsx', '--input-type=module', '-e']
    const p = spawn(process.execPath, [...argv, child(anvil.url, join(dataDir, 'data'))], {
      cwd: root,
      stdio: ['ignore', out, 'inherit'],
      timeout: 60_000,
    })
    const [code] = (await once(p, 'exit')) as [number | null]
    expect(code).toBe(0)
  } finally {
    closeSync(out)
  }
  const { objects: found, tickSameMap } = shapes(readFileSync(file, 'utf8'))
  // What V8 does to a class whose first objects were made across collections: no in-object room left.
  expect(found.get('Control')).toMatchObject({ properties: 15, inObject: 0 })
  expect(tickSameMap).toBe(true)
  for (const name of ['IncomingMessage', 'ServerResponse', 'Request', 'ForwardHandler', 'MemberWalk']) {
    const s = found.get(name)
    expect(s, name).toBeDefined()
    expect({ name, fast: s!.fast }).toEqual({ name, fast: true })
    // Room in the object for the properties its constructor gives it (some are added later, out of line).
    expect(s!.inObject, name).toBeGreaterThanOrEqual(Math.min(s!.properties, 8))
  }
}, 90_000)
