/**
 * A reference writer of Solana wire transactions for tests (the layout in https://solana.com/docs/core/transactions
 * and https://docs.anza.xyz/proposals/versioned-transactions), so the reader can be checked against bytes built the
 * other way round.
 */

export interface TestTransaction {
  signatures: Uint8Array[]
  version: 'legacy' | 0
  header: [number, number, number]
  accountKeys: Uint8Array[]
  blockhash: Uint8Array
  instructions: { program: number; accounts: number[]; data: Uint8Array }[]
  lookups: { table: Uint8Array; writable: number[]; readonly: number[] }[]
}

/** Solana's compact-u16. */
export function compactU16(n: number): number[] {
  const out: number[] = []
  let v = n
  for (;;) {
    const low = v & 0x7f
    v >>= 7
    if (v === 0) {
      out.push(low)
      return out
    }
    out.push(low | 0x80)
  }
}

const bytesOf = (list: number[]) => [...compactU16(list.length), ...list]

export function writeTransaction(tx: TestTransaction): Uint8Array {
  const out: number[] = [...compactU16(tx.signatures.length)]
  for (const s of tx.signatures) out.push(...s)
  if (tx.version === 0) out.push(0x80)
  out.push(...tx.header, ...compactU16(tx.accountKeys.length))
  for (const k of tx.accountKeys) out.push(...k)
  out.push(...tx.blockhash, ...compactU16(tx.instructions.length))
  for (const i of tx.instructions) out.push(i.program, ...bytesOf(i.accounts), ...bytesOf([...i.data]))
  if (tx.version === 0) {
    out.push(...compactU16(tx.lookups.length))
    for (const l of tx.lookups) out.push(...l.table, ...bytesOf(l.writable), ...bytesOf(l.readonly))
  }
  return Uint8Array.from(out)
}

export const filled = (n: number, byte: number) => new Uint8Array(n).fill(byte)

/** A transfer-like legacy transaction: one signer, two accounts and the system program. */
export const SAMPLE: TestTransaction = {
  signatures: [filled(64, 7)],
  version: 'legacy',
  header: [1, 0, 1],
  accountKeys: [filled(32, 1), filled(32, 2), filled(32, 0)],
  blockhash: filled(32, 9),
  instructions: [{ program: 2, accounts: [0, 1], data: Uint8Array.from([2, 0, 0, 0, 100, 0, 0, 0, 0, 0, 0, 0]) }],
  lookups: [],
}
