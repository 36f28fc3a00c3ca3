/** The wallet's Solana keys match the well-known derivation and the embedded devnet's funded accounts. */
import { pbkdf2Sync } from 'node:crypto'
import { address, getPublicKeyFromAddress, verifySignature } from '@solana/kit'
import { describe, expect, test } from 'vitest'
import { deriveSolanaAccounts } from '../upstreams/devnet/solana/keys.ts'
import { ANVIL_TEST_MNEMONIC } from './keystore.ts'
import { solanaKeysFromSeed } from './solana-keys.ts'

const seedOf = (m: string) => pbkdf2Sync(m, 'mnemonic', 2048, 64, 'sha512')

describe("Solana keys (SLIP-0010 m/44'/501'/i'/0')", () => {
  test("the standard test mnemonic's account 0 is the one Phantom and Solflare show", () => {
    const keys = solanaKeysFromSeed(seedOf(`${'abandon '.repeat(11)}about`))
    expect(keys.addressAt(0)).toBe('HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk')
  })

  test('the accounts the embedded devnet funds; signatures verify against the address', async () => {
    const keys = solanaKeysFromSeed(seedOf(ANVIL_TEST_MNEMONIC))
    const funded = await deriveSolanaAccounts(ANVIL_TEST_MNEMONIC, 3)
    expect([0, 1, 2].map((i) => keys.addressAt(i))).toEqual(funded.map((a) => a.address))
    const signer = keys.signer(1)
    const message = new TextEncoder().encode('hello')
    const signature = await signer.sign(message)
    const publicKey = await getPublicKeyFromAddress(address(signer.address))
    expect(await verifySignature(publicKey, signature as never, message)).toBe(true)
    expect(await verifySignature(publicKey, signature as never, new TextEncoder().encode('hellO'))).toBe(false)
  })
})
