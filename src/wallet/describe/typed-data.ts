/**
 * eth_signTypedData_v4 (EIP-712) as a tree of its fields, with the domain, and the warnings a person needs: a domain
 * without chainId (the signature is valid on every chain), a chainId other than the request's, and an unlimited
 * permit (EIP-2612 `Permit`, Uniswap Permit2 `PermitSingle`/`PermitBatch`/`PermitTransferFrom`).
 */
import { isPlainObject } from '../scopes.ts'
import { toBigIntOrUndefined, UNLIMITED_THRESHOLD } from './format.ts'

export interface TreeNode {
  name: string
  type: string
  /** Leaf value as text; absent for structs and arrays (see children). */
  value?: string
  children?: TreeNode[]
}

export interface TypedDataView {
  primaryType: string
  domain: TreeNode[]
  message: TreeNode[]
  warnings: string[]
  /** True for a permit whose amount is unlimited. */
  unlimitedPermit: boolean
}

type Types = Record<string, { name: string; type: string }[]>
const MAX_DEPTH = 16
const MAX_NODES = 2000

const DOMAIN_FIELDS: Record<string, string> = {
  name: 'string',
  version: 'string',
  chainId: 'uint256',
  verifyingContract: 'address',
  salt: 'bytes32',
}

const isField = (f: unknown): f is { name: string; type: string } =>
  !!f &&
  typeof f === 'object' &&
  typeof (f as { name?: unknown }).name === 'string' &&
  typeof (f as { type?: unknown }).type === 'string'

function leaf(v: unknown): string {
  if (v === null || v === undefined) return '(missing)'
  if (typeof v === 'object') {
    try {
      return JSON.stringify(v) ?? String(v)
    } catch {
      return '(unprintable)'
    }
  }
  return String(v)
}

/** What one walk over a typed-data message shares: its types and how many nodes it may still show. */
interface Walk {
  types: Types
  budget: { n: number }
}

/** One node to show: a field's (or the root's) name, its EIP-712 type and its value from the untrusted message. */
interface Field {
  name: string
  type: string
  value: unknown
}

function walk(w: Walk, { name, type, value }: Field, depth: number): TreeNode {
  const { types, budget } = w
  budget.n += 1
  if (budget.n > MAX_NODES || depth > MAX_DEPTH) return { name, type, value: '(too deep or too large to show)' }
  const arr = /^(.*)\[(\d*)\]$/.exec(type)
  if (arr) {
    const items = Array.isArray(value) ? value : []
    return {
      name,
      type,
      children: items.map((item, i) => walk(w, { name: `[${i}]`, type: arr[1]!, value: item }, depth + 1)),
    }
  }
  const struct = Object.hasOwn(types, type) && Array.isArray(types[type]) ? types[type]!.filter(isField) : undefined
  if (struct && isPlainObject(value)) {
    const v = value
    return {
      name,
      type,
      children: struct.map((f) =>
        walk(w, { name: f.name, type: f.type, value: Object.hasOwn(v, f.name) ? v[f.name] : undefined }, depth + 1),
      ),
    }
  }
  return { name, type, value: leaf(value) }
}

/** `x[key]` when `x` is an object, not an array: the message is untrusted JSON, any part may be missing or mistyped. */
const fieldOf = (x: unknown, key: string): unknown => (isPlainObject(x) ? x[key] : undefined)
const amountsOf = (list: unknown): unknown[] => (Array.isArray(list) ? list.map((e) => fieldOf(e, 'amount')) : [])

/** Amounts of the permit kinds MetaMask flags, read from the message (undefined when not a permit). */
function permitAmounts(primaryType: string, m: unknown): unknown[] | undefined {
  switch (primaryType) {
    case 'Permit':
      return [fieldOf(m, 'value')]
    case 'PermitSingle':
      return [fieldOf(fieldOf(m, 'details'), 'amount')]
    case 'PermitBatch':
      return amountsOf(fieldOf(m, 'details'))
    case 'PermitTransferFrom':
    case 'PermitWitnessTransferFrom':
      return [fieldOf(fieldOf(m, 'permitted'), 'amount')]
    case 'PermitBatchTransferFrom':
      return amountsOf(fieldOf(m, 'permitted'))
  }
  return undefined
}

export function describeTypedData(typedData: unknown, chainId: number | undefined): TypedDataView {
  const d = (isPlainObject(typedData) ? typedData : {}) as {
    types?: Types
    primaryType?: string
    domain?: Record<string, unknown>
    message?: Record<string, unknown>
  }
  const types = (isPlainObject(d.types) ? d.types : {}) as Types
  const primaryType = typeof d.primaryType === 'string' ? d.primaryType : '(none)'
  const domainValue = isPlainObject(d.domain) ? d.domain : {}
  const w: Walk = { types, budget: { n: 0 } }
  const domainFields = Array.isArray(types.EIP712Domain)
    ? types.EIP712Domain.filter(isField)
    : Object.keys(domainValue).map((k) => ({ name: k, type: DOMAIN_FIELDS[k] ?? 'string' }))
  const domain = domainFields.map((f) =>
    walk(
      w,
      { name: f.name, type: f.type, value: Object.hasOwn(domainValue, f.name) ? domainValue[f.name] : undefined },
      1,
    ),
  )
  const root = walk(w, { name: primaryType, type: primaryType, value: d.message ?? {} }, 0)
  const warnings: string[] = []
  const domainChain = toBigIntOrUndefined(domainValue.chainId)
  if (domainValue.chainId === undefined)
    warnings.push('The domain has no chainId: this signature is not tied to one chain and could be replayed on others.')
  else if (chainId === undefined || domainChain !== BigInt(chainId))
    warnings.push(
      `The domain's chainId (${leaf(domainValue.chainId)}) is not the chain of this request (${chainId ?? 'none'}).`,
    )
  const amounts = permitAmounts(primaryType, d.message)
  const unlimitedPermit = !!amounts?.some((a) => (toBigIntOrUndefined(a) ?? 0n) >= UNLIMITED_THRESHOLD)
  if (unlimitedPermit)
    warnings.push(
      `Unlimited permit (${primaryType}): the spender can take ALL of this token from the account without another ` +
        `signature, until the permit expires.`,
    )
  else if (amounts)
    warnings.push(
      `This is a token permit (${primaryType}): signing it lets the spender move tokens without a transaction from ` +
        `you.`,
    )
  return { primaryType, domain, message: root.children ?? [root], warnings, unlimitedPermit }
}
