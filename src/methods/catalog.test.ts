/**
 * The views of the method catalog agree with each other (a method granted by the wallet is one the gateway serves,
 * a served method has a price, a retry class and an address rule, …), and no other src file keeps a method table.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { CACHE_RULES, SHARED_READS, UNSHARED_READS } from '../gateway/layers/cache-rules.ts'
import { ADDRESS_CHECKED_METHODS, ADDRESS_FREE_METHODS } from '../keys/security/addresses.ts'
import { callKind } from '../upstreams/pool/retry-policy.ts'
import { LOCAL_METHODS } from '../wallet/methods/index.ts'
import { EIP155_METHODS, EIP155_SIGNING_METHODS, WALLET_EIP155_METHODS } from '../wallet/supported-methods.ts'
import { CATALOG } from './catalog.ts'
import { DEFAULT_METHOD_COSTS, DEV_METHOD_COSTS } from './prices.ts'
import { DEV_METHODS, INFURA_ETHEREUM_METHODS, neverServed, servedMethods } from './served.ts'

const entry = (m: string) => CATALOG.get(m)!
const SERVED = [...INFURA_ETHEREUM_METHODS, ...DEV_METHODS]
/** Infura serves them, and they name addresses in nested call objects the gateway does not read: refused for a key
 * with an address allowlist (Infura checks seven methods only; refusing is the safe side). */
const UNCHECKED_BUT_SERVED = ['eth_callMany', 'eth_simulateV1']

describe('method catalog views', () => {
  it('every method the wallet grants is served by the gateway or answered by the wallet itself', () => {
    const granted = [...EIP155_METHODS, ...WALLET_EIP155_METHODS]
    expect(granted.length).toBeGreaterThan(30)
    for (const m of granted)
      if (entry(m).wallet === 'chain') expect(INFURA_ETHEREUM_METHODS, m).toContain(m)
      else expect(Object.keys(LOCAL_METHODS), m).toContain(m)
    // …and what the wallet answers itself is in a scope.
    for (const m of Object.keys(LOCAL_METHODS)) expect(granted, m).toContain(m)
    for (const m of EIP155_SIGNING_METHODS) expect(entry(m).wallet, m).toBe('approval')
    // Infura does not serve it, so the wallet does not grant it either.
    expect(granted).not.toContain('eth_newPendingTransactionFilter')
  })

  it('every served method has a price (its own, or credits.defaultCost by Infura’s rule)', () => {
    for (const m of SERVED) {
      const credits = entry(m).credits
      expect(credits, m).toBeDefined()
      if (credits !== 'default') expect({ ...DEFAULT_METHOD_COSTS, ...DEV_METHOD_COSTS }[m], m).toBe(credits)
    }
    expect(DEFAULT_METHOD_COSTS.eth_call).toBe(80)
    expect(DEFAULT_METHOD_COSTS.eth_callMany).toBeUndefined() // charged credits.defaultCost
    for (const m of DEV_METHODS) expect(DEFAULT_METHOD_COSTS[m], m).toBeUndefined()
  })

  it('every served method says which addresses it names; devnet methods are never address-checked', () => {
    for (const m of INFURA_ETHEREUM_METHODS)
      if (!UNCHECKED_BUT_SERVED.includes(m))
        expect(ADDRESS_FREE_METHODS.has(m) || ADDRESS_CHECKED_METHODS.has(m), m).toBe(true)
    for (const m of UNCHECKED_BUT_SERVED) expect(entry(m).addresses, m).toBeUndefined()
    for (const m of DEV_METHODS) expect(entry(m).addresses, m).toBeUndefined()
    for (const m of ADDRESS_FREE_METHODS) expect(ADDRESS_CHECKED_METHODS.has(m), m).toBe(false)
  })

  it('every cached or shared method is a served read; unshared ones are filter calls', () => {
    for (const m of [...CACHE_RULES.keys(), ...SHARED_READS]) {
      expect(INFURA_ETHEREUM_METHODS, m).toContain(m)
      expect(callKind(m), m).toBe('read')
    }
    for (const m of UNSHARED_READS) expect(entry(m).filter, m).toMatch(/^(create|use)$/)
    for (const [m, e] of CATALOG) if (e.blockBound) expect(CACHE_RULES.has(m), m).toBe(true)
  })

  it('retry classes are total over served methods', () => {
    for (const m of SERVED) expect(entry(m).retry, m).toBeDefined()
    expect(callKind('eth_sendRawTransaction')).toBe('send-raw')
    for (const [m, e] of CATALOG)
      if (e.filter !== undefined || e.served === 'devnet' || e.nodeSigning) expect(callKind(m), m).toBe('unsafe')
  })

  it('node-signing methods are never served, whatever the config; devnet methods only with devMethods', () => {
    for (const [m, e] of CATALOG)
      if (e.nodeSigning) {
        expect(neverServed(m), m).toBe(true)
        expect(SERVED, m).not.toContain(m)
      }
    for (const m of SERVED) expect(neverServed(m) && !DEV_METHODS.includes(m), m).toBe(false)
    expect(servedMethods().has('anvil_mine')).toBe(false)
    expect(servedMethods(undefined, true).has('anvil_mine')).toBe(true)
  })
})

const SRC = join(import.meta.dirname, '..')
/** A cheap first pass: files with fewer distinct words like method names cannot name ten methods. */
const WORD =
  /\b(eth|net|web3|debug|trace|anvil|evm|hardhat|personal|wallet|txpool|parity|erigon|ots|admin|miner|engine)_\w+/g
const METHOD =
  /^(eth|net|web3|debug|trace|anvil|evm|hardhat|personal|wallet|txpool|parity|erigon|ots|admin|miner|engine)_/

/** The chain method names a file spells out: string literals and object keys. */
export function methodNames(text: string): Set<string> {
  const names = new Set<string>()
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) || (ts.isIdentifier(node) && ts.isPropertyAssignment(node.parent)))
      if (METHOD.test(node.text)) names.add(node.text)
    ts.forEachChild(node, visit)
  }
  visit(ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true))
  return names
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) return sources(p)
    return p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : []
  })
}

describe('one method table', () => {
  it('counts method names in literals and object keys', () => {
    const names = methodNames("const a = { eth_call: 1, 'net_version': 2 }; f('web3_clientVersion', `debug_x`, 'x_y')")
    expect([...names].sort()).toEqual(['debug_x', 'eth_call', 'net_version', 'web3_clientVersion'])
  })

  it('exactly one src file, the catalog, names ten or more chain methods', () => {
    const many = sources(SRC)
      .map((f) => ({ file: relative(SRC, f), text: readFileSync(f, 'utf8') }))
      .filter((f) => new Set(f.text.match(WORD)).size >= 10)
      .map((f) => ({ file: f.file, count: methodNames(f.text).size }))
      .filter((f) => f.count >= 10)
    expect(many.map((f) => f.file)).toEqual([join('methods', 'catalog.ts')])
    expect(many[0]!.count).toBeGreaterThan(100)
  })
})
