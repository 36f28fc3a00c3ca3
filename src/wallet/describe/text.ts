/**
 * A waiting request as plain text lines, for `chaingate wallet approvals list`: the same description the console
 * shows (network, amounts and fees in ETH, the decoded call, the message text, typed data), built by describeApproval.
 */
import { describeApproval, type DescribeEnv } from './index.ts'
import { eip155ChainIdOf } from '../scopes.ts'
import { networkOf, type Row } from './types.ts'
import type { TreeNode } from './typed-data.ts'

const rowText = (r: Row) => `${r.label}: ${r.value}${r.detail ? ` (${r.detail})` : ''}`

function treeLines(nodes: TreeNode[], indent: string): string[] {
  return nodes.flatMap((n) =>
    n.children
      ? [`${indent}${n.name} (${n.type}):`, ...treeLines(n.children, `${indent}  `)]
      : [`${indent}${n.name}: ${n.value ?? ''}`],
  )
}

/** The lines below a request's heading: what the user decides on, warnings marked with `!`. */
export function approvalLines(kind: string, request: unknown, env: DescribeEnv): string[] {
  if (kind === 'session') {
    const r = (request ?? {}) as { scopes?: Record<string, { methods?: string[] }>; preselectedAccounts?: string[] }
    const lines = Object.entries(r.scopes ?? {}).map(([scope, s]) => {
      const chainId = eip155ChainIdOf(scope)
      const where = chainId === undefined ? scope : `${scope}, ${networkOf(chainId, env)}`
      return `Chain: ${where}: ${s.methods?.length ?? 0} methods (${(s.methods ?? []).join(', ')})`
    })
    if (r.preselectedAccounts?.length) lines.push(`Accounts asked for: ${r.preselectedAccounts.join(', ')}`)
    return lines
  }
  const view = describeApproval(kind, request, env)
  const lines = view.rows.map(rowText)
  const call = view.transaction?.call
  if (call) {
    lines.push(`Call: ${call.summary}`)
    for (const a of call.args) lines.push(`  ${a.name}: ${a.value}`)
  }
  if (view.transaction?.simulation?.ok) lines.push('Simulation: succeeds')
  if (view.message)
    lines.push(
      view.message.text !== undefined
        ? `Message: ${JSON.stringify(view.message.text)}`
        : `Message: binary data, ${view.message.bytes} bytes: ${view.message.hex}`,
    )
  if (view.typedData) {
    lines.push('Domain:', ...treeLines(view.typedData.domain, '  '))
    lines.push(`${view.typedData.primaryType}:`, ...treeLines(view.typedData.message, '  '))
  }
  for (const w of view.warnings) lines.push(`! ${w}`)
  return lines
}

/** The heading: `Send a transaction  https://dapp.example`. */
export function approvalTitle(kind: string, request: unknown, env: DescribeEnv): string {
  return kind === 'session' ? 'Connect' : describeApproval(kind, request, env).title
}
