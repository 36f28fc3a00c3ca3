/**
 * The console's Solana balances: SOL (getBalance) and SPL tokens (getTokenAccountsByOwner, SPL Token and Token-2022,
 * jsonParsed) of one address on one Solana network, read through the wallet's ChainAccess (the gateway).
 */
import type { ChainAccess } from '../ports.ts'

const TOKEN_PROGRAMS = ['TokenkegQfeZyiNwAJbNbGCPFB4xTSPCEYHDVFBvH3F6Q', 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PnBZ3uHzdoyN3dD']
const LAMPORTS_PER_SOL = 1_000_000_000n

/** `1.5 SOL` from lamports, exact (no float rounding). */
export function solText(lamports: bigint): string {
  const whole = lamports / LAMPORTS_PER_SOL
  const frac = (lamports % LAMPORTS_PER_SOL).toString().padStart(9, '0').replace(/0+$/, '')
  return `${whole}${frac ? `.${frac}` : ''} SOL`
}

export interface SolanaBalance {
  chain: string
  network: string
  lamports?: string
  text?: string
  tokens?: { mint: string; amount: string }[]
  error?: string
}

export async function solanaBalance(
  access: Required<Pick<ChainAccess, 'solanaRequest'>>,
  c: { chain: string; network: string },
  owner: string,
): Promise<SolanaBalance> {
  try {
    const balance = (await access.solanaRequest(c.chain, 'getBalance', [owner])) as { value: number }
    const lamports = BigInt(balance.value)
    const tokens: { mint: string; amount: string }[] = []
    for (const programId of TOKEN_PROGRAMS) {
      const r = (await access
        .solanaRequest(c.chain, 'getTokenAccountsByOwner', [owner, { programId }, { encoding: 'jsonParsed' }])
        .catch(() => ({ value: [] }))) as {
        value: {
          account: { data: { parsed?: { info?: { mint: string; tokenAmount?: { uiAmountString: string } } } } }
        }[]
      }
      for (const a of r.value) {
        const info = a.account.data.parsed?.info
        if (info?.tokenAmount) tokens.push({ mint: info.mint, amount: info.tokenAmount.uiAmountString })
      }
    }
    const spl = tokens.map((t) => `${t.amount} ${t.mint.slice(0, 4)}…${t.mint.slice(-4)}`)
    return { ...c, lamports: lamports.toString(), text: [solText(lamports), ...spl].join(' · '), tokens }
  } catch (err) {
    return { ...c, error: (err as Error).message.split('\n')[0] }
  }
}
