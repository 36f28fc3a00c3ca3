import { describe, expect, it } from 'vitest'
import { decodeFilterId, encodeFilterId, MAX_FILTER_ID_LENGTH, nodeFingerprint } from './filter-ids.ts'

const QUANTITY = /^0x[1-9a-f][0-9a-f]*$/
const fp = nodeFingerprint('mainnet', 'https://node.example.org/…')

describe('filter ids naming their node', () => {
  it('round-trips the ids nodes hand out, exactly, as valid QUANTITY strings', () => {
    const nodeIds = [
      '0x31666d446946726b346f776d457a4331', // anvil
      '0xb7f6a2e4c0ffee', // geth (leading zeros trimmed)
      '0x1', // Nethermind (a counter)
      '0x0', // zero
      '0x000abc', // leading zeros kept
      '0xABCDEF', // upper case: kept as the node wrote it
      'a1b2', // no 0x
      'filter-7', // not hex at all
      `0x${'f'.repeat(64)}`,
      'ünïcödé',
    ]
    for (const [position, nodeId] of nodeIds.entries()) {
      const id = encodeFilterId(position, fp, nodeId)
      expect(id).toMatch(QUANTITY)
      expect(decodeFilterId(id)).toEqual({ position, fingerprint: fp, nodeId })
    }
  })

  it('a hex id costs 11 digits more: tag, position, fingerprint, owner tag; the node digits are masked', () => {
    const id = encodeFilterId(3, 'abcd', '0x1234', 'key-a')
    expect(id).toMatch(/^0xc03abcd[0-9a-f]{4}[0-9a-f]{4}$/)
    expect(id.endsWith('1234')).toBe(false)
    expect(encodeFilterId(255, 'abcd', '0x1')).toMatch(/^0xcffabcd[0-9a-f]{5}$/)
  })

  it("binds the id to its owner: another owner decodes nothing, and cannot read the node's id", () => {
    const nodeId = '0x67726b7459546539536136456f77756d'
    for (const raw of [nodeId, 'geth-id-Ab']) {
      const id = encodeFilterId(2, fp, raw, 'key-a')
      expect(decodeFilterId(id, 'key-a')).toEqual({ position: 2, fingerprint: fp, nodeId: raw })
      expect(decodeFilterId(id, 'key-b')).toBeUndefined()
      expect(decodeFilterId(id)).toBeUndefined()
      expect(id.includes(raw.slice(2))).toBe(false)
    }
    // Over many owners, a foreign id decodes almost never (16-bit tag), and never to the node's own id.
    let passed = 0
    const id = encodeFilterId(0, fp, nodeId, 'owner')
    for (let i = 0; i < 2000; i++) {
      const d = decodeFilterId(id, `other-${i}`)
      if (d === undefined) continue
      passed++
      expect(d.nodeId).not.toBe(nodeId)
    }
    expect(passed).toBeLessThan(3)
  })

  it('accepts an id a client upper-cased', () => {
    const id = encodeFilterId(1, fp, '0xdeadbeef')
    expect(decodeFilterId(id.toUpperCase().replace('0X', '0x'))).toEqual({
      position: 1,
      fingerprint: fp,
      nodeId: '0xdeadbeef',
    })
    expect(decodeFilterId(`0X${id.slice(2)}`)).toEqual({ position: 1, fingerprint: fp, nodeId: '0xdeadbeef' })
  })

  it('the fingerprint depends on the network and the node, and is the same in every process', () => {
    expect(nodeFingerprint('mainnet', 'https://a.example')).toMatch(/^[0-9a-f]{4}$/)
    expect(nodeFingerprint('mainnet', 'https://a.example')).toBe(nodeFingerprint('mainnet', 'https://a.example'))
    expect(nodeFingerprint('mainnet', 'https://a.example')).not.toBe(nodeFingerprint('mainnet', 'https://b.example'))
    expect(nodeFingerprint('mainnet', 'https://a.example')).not.toBe(nodeFingerprint('sepolia', 'https://a.example'))
    // Pinned: a change here breaks every filter id clients hold across an upgrade.
    expect(nodeFingerprint('remote', 'http://127.0.0.1:8545')).toBe('910a')
  })

  it('what cannot be encoded stays the node id (then it names no node)', () => {
    expect(encodeFilterId(256, fp, '0x1')).toBe('0x1')
    expect(encodeFilterId(-1, fp, '0x1')).toBe('0x1')
    expect(encodeFilterId(0, 'xyz', '0x1')).toBe('0x1')
    expect(encodeFilterId(0, fp, '')).toBe('')
    const long = `0x${'a'.repeat(MAX_FILTER_ID_LENGTH)}`
    expect(encodeFilterId(0, fp, long)).toBe(long)
  })

  it('refuses what this gateway did not hand out', () => {
    for (const id of [
      undefined,
      null,
      12,
      {},
      ['0xc00abcd1'],
      '',
      '0x',
      '0x1',
      '0xc00abcd', // header only
      '0xa00abcd12', // unknown tag
      '0xd00abcd123', // bytes: odd digit count
      '0xd00abcdff', // bytes: not UTF-8
      '0xc00abcdzz',
      'c00abcd12',
      ' 0xc00abcd12',
      '0xc00abcd12 ',
      `0xc00abcd${'1'.repeat(MAX_FILTER_ID_LENGTH)}`,
    ])
      expect(decodeFilterId(id)).toBeUndefined()
  })

  it('seeded fuzz: malformed ids never throw, and anything decoded re-encodes to the same id', () => {
    let seed = 0x2545f491
    const rand = (n: number) => {
      seed ^= seed << 13
      seed ^= seed >>> 17
      seed ^= seed << 5
      return (seed >>> 0) % n
    }
    const alphabet = '0123456789abcdefABCDEFxX gz-\u00e9\ud800"\\'
    const valid = encodeFilterId(7, fp, '0x31666d446946726b346f776d457a4331')
    let decoded = 0
    for (let i = 0; i < 5000; i++) {
      let id: string
      const mode = rand(3)
      if (mode === 0) {
        // A valid id with a few characters replaced, dropped or added.
        const chars = [...valid]
        for (let k = rand(3) + 1; k > 0; k--) {
          const at = rand(chars.length + 1)
          const op = rand(3)
          if (op === 0) chars[at] = alphabet[rand(alphabet.length)]!
          else if (op === 1) chars.splice(at, 1)
          else chars.splice(at, 0, alphabet[rand(alphabet.length)]!)
        }
        id = chars.join('')
      } else if (mode === 1) id = `0x${Array.from({ length: rand(40) }, () => '0123456789abcdef'[rand(16)]).join('')}`
      else id = Array.from({ length: rand(30) }, () => alphabet[rand(alphabet.length)]).join('')
      let d: ReturnType<typeof decodeFilterId>
      expect(() => (d = decodeFilterId(id))).not.toThrow()
      if (d !== undefined) {
        decoded++
        expect(d.position).toBeGreaterThanOrEqual(0)
        expect(d.position).toBeLessThan(256)
        expect(d.fingerprint).toMatch(/^[0-9a-f]{4}$/)
        // The gateway sends the node exactly what it would have encoded into this id.
        const again = encodeFilterId(d.position, d.fingerprint, d.nodeId)
        expect(decodeFilterId(again)).toEqual(d)
      }
    }
    // The fuzz reached both outcomes (a changed digit almost never passes the owner tag: case changes do).
    expect(decoded).toBeGreaterThan(5)
    expect(decoded).toBeLessThan(5000)
  })
})
