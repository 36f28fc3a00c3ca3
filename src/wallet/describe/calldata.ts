/**
 * Calldata of common token calls, decoded for the approval screen: ERC-20 transfer/approve/transferFrom, ERC-721
 * transferFrom/safeTransferFrom/setApprovalForAll. ERC-20 and ERC-721 share the selectors of `approve` and
 * `transferFrom`, so the amount is shown as "amount or token id". Anything else is shown as its selector and size.
 */
import { decodeFunctionData, erc20Abi, erc721Abi, isHex, maxUint256, slice, size, type Abi, type Hex } from 'viem'
import { UNLIMITED_THRESHOLD, grouped } from './format.ts'

const ABI: Abi = [
  ...erc20Abi.filter((f) => f.type === 'function' && ['transfer', 'approve', 'transferFrom'].includes(f.name)),
  ...erc721Abi.filter((f) => f.type === 'function' && ['safeTransferFrom', 'setApprovalForAll'].includes(f.name)),
]

export interface DecodedCall {
  /** Function name, e.g. `approve`; undefined when the selector is unknown. */
  name?: string
  /** One-line summary a person reads, e.g. "Approve 0x… to spend an UNLIMITED amount". */
  summary: string
  args: { name: string; value: string }[]
  warnings: string[]
}

export function decodeCalldata(data: Hex | undefined): DecodedCall | undefined {
  if (!data || data === '0x') return undefined
  if (!isHex(data)) return { summary: 'Data that is not hex (not decoded)', args: [], warnings: [] }
  let decoded: { functionName: string; args?: readonly unknown[] }
  try {
    decoded = decodeFunctionData({ abi: ABI, data }) as typeof decoded
  } catch {
    const selector = size(data) >= 4 ? slice(data, 0, 4) : data
    return {
      summary: `Contract call ${selector} with ${size(data)} bytes of data (not decoded)`,
      args: [],
      warnings: [],
    }
  }
  const a = (decoded.args ?? []) as unknown[]
  const s = (v: unknown) => String(v).toLowerCase()
  const n = (v: unknown) => grouped(v as bigint)
  switch (decoded.functionName) {
    case 'transfer':
      return {
        name: 'transfer',
        summary: `Token transfer of ${n(a[1])} units to ${s(a[0])}`,
        args: [
          { name: 'to', value: s(a[0]) },
          { name: 'amount', value: n(a[1]) },
        ],
        warnings: [],
      }
    case 'approve': {
      const amount = a[1] as bigint
      const unlimited = amount >= UNLIMITED_THRESHOLD
      return {
        name: 'approve',
        summary: unlimited
          ? `Approve ${s(a[0])} to spend an UNLIMITED amount of this token`
          : `Approve ${s(a[0])} to spend ${n(amount)} units (or token id ${n(amount)})`,
        args: [
          { name: 'spender', value: s(a[0]) },
          {
            name: 'amount or token id',
            value: amount === maxUint256 ? `${n(amount)} (2^256-1, unlimited)` : n(amount),
          },
        ],
        warnings: unlimited
          ? [
              'Unlimited approval: the spender can move ALL of this token from the account, now and later, until ' +
                'the approval is revoked.',
            ]
          : [],
      }
    }
    case 'transferFrom':
    case 'safeTransferFrom':
      return {
        name: decoded.functionName,
        summary: `Transfer ${n(a[2])} (amount or token id) from ${s(a[0])} to ${s(a[1])}`,
        args: [
          { name: 'from', value: s(a[0]) },
          { name: 'to', value: s(a[1]) },
          { name: 'amount or token id', value: n(a[2]) },
        ],
        warnings: [],
      }
    case 'setApprovalForAll': {
      const on = a[1] === true
      return {
        name: 'setApprovalForAll',
        summary: on
          ? `Allow ${s(a[0])} to move ALL your NFTs of this collection`
          : `Revoke ${s(a[0])}'s access to all your NFTs of this collection`,
        args: [
          { name: 'operator', value: s(a[0]) },
          { name: 'approved', value: String(on) },
        ],
        warnings: on
          ? [
              'setApprovalForAll: the operator can transfer every NFT of this collection the account holds, now ' +
                'and later.',
            ]
          : [],
      }
    }
  }
  return { name: decoded.functionName, summary: decoded.functionName, args: [], warnings: [] }
}
