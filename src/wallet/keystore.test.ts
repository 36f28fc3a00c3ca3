import { describe, expect, test } from 'vitest'
import {
  ANVIL_TEST_MNEMONIC,
  decryptMnemonic,
  encryptMnemonic,
  isValidMnemonic,
  newMnemonic,
  unlockKeyring,
} from './keystore.ts'

const opts = { scryptLogN: 10, publicTestMnemonic: false }

describe('keystore (scrypt + AES-256-GCM)', () => {
  test('round trip; BIP-44 addresses match the anvil accounts', () => {
    const file = encryptMnemonic(ANVIL_TEST_MNEMONIC, 'pass phrase', opts)
    expect(JSON.stringify(file)).not.toContain('test test')
    expect(decryptMnemonic(file, 'pass phrase')).toBe(ANVIL_TEST_MNEMONIC)
    const k = unlockKeyring(file, 'pass phrase')
    expect(k.addressAt(0)).toBe('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266')
    expect(k.addressAt(1)).toBe('0x70997970c51812dc3a010c7d01b50e0d17dc79c8')
  })
  test('a wrong passphrase or a tampered header fails without revealing anything', () => {
    const file = encryptMnemonic(ANVIL_TEST_MNEMONIC, 'right', opts)
    expect(() => decryptMnemonic(file, 'wrong')).toThrow('wrong passphrase, or the keystore file is damaged')
    const tampered = { ...file, crypto: { ...file.crypto, kdfparams: { ...file.crypto.kdfparams, r: 9 } } }
    expect(() => decryptMnemonic(tampered, 'right')).toThrow(/wrong passphrase/)
    const flipped = { ...file, crypto: { ...file.crypto, ciphertext: `00${file.crypto.ciphertext.slice(2)}` } }
    expect(() => decryptMnemonic(flipped, 'right')).toThrow(/wrong passphrase/)
  })
  test('each header field is authenticated (issue 8 item 7): publicTestMnemonic, createdAt, dklen', () => {
    const file = encryptMnemonic(ANVIL_TEST_MNEMONIC, 'right', opts)
    expect(file.version).toBe(2)
    for (const edited of [
      { ...file, publicTestMnemonic: true },
      { ...file, createdAt: '2000-01-01T00:00:00.000Z' },
      { ...file, crypto: { ...file.crypto, kdfparams: { ...file.crypto.kdfparams, dklen: 16 as 32 } } },
    ])
      expect(() => decryptMnemonic(edited, 'right')).toThrow('wrong passphrase, or the keystore file is damaged')
  })
  test('BIP-39 validation checks words and checksum', () => {
    expect(isValidMnemonic(newMnemonic())).toBe(true)
    expect(isValidMnemonic(newMnemonic(24))).toBe(true)
    expect(isValidMnemonic(ANVIL_TEST_MNEMONIC)).toBe(true)
    expect(isValidMnemonic('test test test test test test test test test test test test')).toBe(false)
    expect(isValidMnemonic('not words at all')).toBe(false)
    expect(() => encryptMnemonic('nope', 'x', opts)).toThrow(/not a valid BIP-39 mnemonic/)
  })
})
