import { describe, expect, it } from 'vitest'
import { SECRET_ENV, snippetsFor } from './snippets.ts'

const URL = 'http://127.0.0.1:8545/networks/solana-devnet/v3/0123456789abcdef0123456789abcdef'

describe('code examples per chain family', () => {
  it('an EVM network reads the block number with curl, viem, ethers and web3.js', () => {
    const items = snippetsFor(URL, { requireSecret: false })
    expect(items.map((s) => s.id)).toEqual(['curl', 'viem', 'ethers', 'web3'])
    expect(items[0]!.code).toContain('"method":"eth_blockNumber"')
  })

  it('a Solana network reads the slot with curl, @solana/kit and @solana/web3.js, the secret as Basic auth', () => {
    const items = snippetsFor(URL, { requireSecret: false, family: 'solana' })
    expect(items.map((s) => s.id)).toEqual(['curl', 'kit', 'solana-web3'])
    expect(items[0]!.code).toContain('"method":"getSlot"')
    expect(items[1]!.code).toContain(`createSolanaRpc('${URL}')`)
    expect(items[2]!.code).toContain(`new Connection('${URL}')`)
    const secret = snippetsFor(URL, { requireSecret: true, family: 'solana' })
    expect(secret[0]!.code).toContain(`--user ":$${SECRET_ENV}"`)
    expect(secret[1]!.code).toContain('headers: { Authorization:')
    expect(secret[2]!.code).toContain('httpHeaders: { Authorization:')
  })
})
