/**
 * Generators for the fuzz suite: JSON-RPC calls written as raw text (so ids like `1.0` and escapes like
 * `"\ud800"` reach the gateway as sent), each with the answer and charge docs/errors.md promises for it.
 */
import fc from 'fast-check'
import { DEFAULT_METHOD_COSTS } from '../../src/methods/prices.ts'
import { INFURA_ETHEREUM_METHODS } from '../../src/methods/served.ts'

/** Seed and size: fixed by default (the suite is repeatable), overridable to explore: FUZZ_SEED=… FUZZ_RUNS=…. */
export const FUZZ = {
  seed: Number(process.env.FUZZ_SEED ?? 20261126),
  runs: (n: number) => Number(process.env.FUZZ_RUNS ?? n),
}

export const INPUT_ERROR = 5
const cost = (m: string) => DEFAULT_METHOD_COSTS[m] ?? 80
const SERVED = new Set(INFURA_ETHEREUM_METHODS)
const ADDR = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
/** String.prototype.isWellFormed (ES2024; Node 20+): no lone surrogate. */
const wellFormed = (s: string) => (s as unknown as { isWellFormed(): boolean }).isWellFormed()

/** What the gateway must answer for one call. */
export interface Expect {
  /** The id the answer carries; `undefined` for a notification (no answer). */
  id: unknown
  /** 'result', or the JSON-RPC error code; 'node-error' when the node decides the error (any code). */
  outcome: 'result' | number | 'node-error'
  credits: number
  /** For a single call: refused before running (HTTP 400). */
  invalid: boolean
}

export interface Entry {
  text: string
  expect: Expect
}

// ---- ids ---------------------------------------------------------------------------------------------------

/** Ids a client may use: integers a double holds, well-formed strings (any Unicode), null. */
const goodId = fc.oneof(
  fc.integer({ min: -(2 ** 53 - 1), max: 2 ** 53 - 1 }),
  fc.integer({ min: -1000, max: 1000 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }).filter(wellFormed),
  fc.constant(null),
)

/** Ids as raw text that a node would answer with `id: null`. */
const badIdText = fc.constantFrom(
  '1.5',
  '1e30',
  '1.0',
  '1e3',
  '-2.5E-3',
  '18446744073709551616',
  '9007199254740993',
  '"\\ud800"',
  '"a\\udfff"',
  'true',
  '{}',
  '[1]',
)

// ---- calls -------------------------------------------------------------------------------------------------

/** Calls the node answers with a result. */
const okCall = fc.constantFrom<[string, unknown[]]>(
  ['eth_chainId', []],
  ['eth_blockNumber', []],
  ['net_version', []],
  ['eth_gasPrice', []],
  ['eth_getBalance', [ADDR, 'latest']],
  ['eth_getTransactionCount', [ADDR, 'latest']],
  ['eth_getBlockByNumber', ['latest', false]],
  ['eth_accounts', []],
)

/** Served calls the node refuses for their params: the node's error, the method's full price. */
const nodeErrorCall = fc.constantFrom<[string, unknown[]]>(
  ['eth_getBalance', []],
  ['eth_getBalance', ['nope', 'latest']],
  ['eth_getCode', [1, 2, 3]],
  ['eth_getTransactionByHash', ['0x12']],
)

/** Method names no network serves: node signing and control, random text, very long names. */
const unservedMethod = fc
  .oneof(
    fc.constantFrom(
      'eth_sendTransaction',
      'eth_sendTransactionSync',
      'eth_sendUnsignedTransaction',
      'debug_setHead',
      'anvil_setBalance',
      'evm_mine',
      'admin_peers',
      'personal_sign',
      'txpool_content',
      'eth_sign',
    ),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).filter(wellFormed),
    fc.integer({ min: 1000, max: 100_000 }).map((n) => `eth_${'x'.repeat(n)}`),
  )
  .filter((m) => m.length > 0 && !SERVED.has(m))

const json = (v: unknown) => JSON.stringify(v)
const call = (method: string, params: string | undefined, id: string | undefined, jsonrpc = '"2.0"') =>
  `{"jsonrpc":${jsonrpc}${id === undefined ? '' : `,"id":${id}`},"method":${method}${
    params === undefined ? '' : `,"params":${params}`
  }}`
const nest = (depth: number, inner = '') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`

/** One call of the batch or single body, with its expected answer. */
export const entry: fc.Arbitrary<Entry> = fc.oneof(
  // Served and valid: the node's result, the method's cost.
  fc.tuple(okCall, goodId).map(([[m, p], id]) => ({
    text: call(json(m), json(p), json(id)),
    expect: { id, outcome: 'result' as const, credits: cost(m), invalid: false },
  })),
  // Notifications: run and charged, never answered.
  okCall.map(([m, p]) => ({
    text: call(json(m), json(p), undefined),
    expect: { id: undefined, outcome: 'result' as const, credits: cost(m), invalid: false },
  })),
  fc.tuple(nodeErrorCall, goodId).map(([[m, p], id]) => ({
    text: call(json(m), json(p), json(id)),
    expect: { id, outcome: 'node-error' as const, credits: cost(m), invalid: false },
  })),
  // Not served: Infura's -32601, an input error.
  fc.tuple(unservedMethod, goodId).map(([m, id]) => ({
    text: call(json(m), '[]', json(id)),
    expect: { id, outcome: -32601, credits: INPUT_ERROR, invalid: false },
  })),
  // Ids the node would answer with id null.
  badIdText.map((id) => ({
    text: call('"eth_chainId"', '[]', id),
    expect: { id: null, outcome: -32600, credits: INPUT_ERROR, invalid: true },
  })),
  fc.tuple(goodId).map(([id]) => ({
    text: `{"jsonrpc":"2.0","id":${json(id)},"id":${json(id)},"method":"eth_chainId"}`,
    expect: { id: null, outcome: -32600, credits: INPUT_ERROR, invalid: true },
  })),
  // Nesting beyond 64 levels, and unpaired surrogates anywhere: the call's own id.
  fc.tuple(fc.integer({ min: 64, max: 3000 }), goodId).map(([d, id]) => ({
    text: call('"eth_getBalance"', nest(d), json(id)),
    expect: { id, outcome: -32600, credits: INPUT_ERROR, invalid: true },
  })),
  fc.tuple(fc.integer({ min: 2, max: 62 }), goodId).map(([d, id]) => ({
    text: call('"eth_chainId"', nest(d), json(id)),
    expect: { id, outcome: 'node-error' as const, credits: cost('eth_chainId'), invalid: false },
  })),
  fc
    .tuple(fc.constantFrom('"\\ud800"', '"x\\udc00y"', '"\\ud83d"', '"\\ude00\\ud83d"'), goodId, fc.boolean())
    .map(([bad, id, inMethod]) => ({
      text: inMethod ? call(bad, '[]', json(id)) : call('"eth_getBalance"', `[${bad},"latest"]`, json(id)),
      expect: { id, outcome: -32600, credits: INPUT_ERROR, invalid: true },
    })),
  // Broken envelopes: -32600 with the id when there is one.
  fc
    .tuple(
      fc.constantFrom<[string | undefined, string | undefined, string]>(
        [undefined, '[]', '"eth_chainId"'],
        ['"1.0"', '[]', '"eth_chainId"'],
        ['2', '[]', '"eth_chainId"'],
        ['"2.0"', '[]', '7'],
        ['"2.0"', '[]', '""'],
        ['"2.0"', '[]', 'null'],
        ['"2.0"', '5', '"eth_chainId"'],
        ['"2.0"', 'null', '"eth_chainId"'],
        ['"2.0"', '"x"', '"eth_chainId"'],
      ),
      goodId,
    )
    .map(([[jsonrpc, params, method], id]) => ({
      text:
        jsonrpc === undefined
          ? `{"id":${json(id)},"method":${method},"params":${params}}`
          : call(method, params, json(id), jsonrpc),
      expect: { id, outcome: -32600, credits: INPUT_ERROR, invalid: true },
    })),
  // eth_getBlockByNumber's own parameter check.
  fc
    .tuple(fc.constantFrom('[]', '["latest"]', '[1,false]', '["0x01",true]', '["latest","no"]'), goodId)
    .map(([p, id]) => ({
      text: call('"eth_getBlockByNumber"', p, json(id)),
      expect: { id, outcome: -32602, credits: INPUT_ERROR, invalid: false },
    })),
)

/** Entries that are not calls at all (only inside a batch): -32600 with id null. */
export const nonCall: fc.Arbitrary<Entry> = fc
  .constantFrom('1', '"x"', 'null', '[]', '[1]', 'true', '{}')
  .map((text) => ({ text, expect: { id: null, outcome: -32600, credits: INPUT_ERROR, invalid: true } }))

/** A request: one call, or a batch of up to 12 entries. */
export const request = fc.oneof(
  entry.map((e) => ({ batch: false, entries: [e] })),
  fc
    .array(fc.oneof({ weight: 9, arbitrary: entry }, { weight: 1, arbitrary: nonCall }), {
      minLength: 1,
      maxLength: 12,
    })
    .map((entries) => ({ batch: true, entries })),
)

export const bodyOf = (r: { batch: boolean; entries: Entry[] }) =>
  r.batch ? `[${r.entries.map((e) => e.text).join(',')}]` : r.entries[0]!.text

/** Bodies with no promise beyond "a documented error": random JSON, random text, random bytes, cut-off calls. */
export const chaos = fc.oneof(
  fc.json({ maxDepth: 6 }),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [v] })),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
  fc.tuple(entry, fc.nat()).map(([e, n]) => e.text.slice(0, n % (e.text.length + 1))),
  fc.tuple(fc.integer({ min: 1, max: 200 }), fc.constantFrom('[', '{"a":')).map(([n, open]) => open.repeat(n)),
)

export function answersOf(text: string): unknown {
  return JSON.parse(text)
}
