/**
 * Copy-and-run examples for a key: curl, viem, ethers and web3.js, each reading the block number from the key's
 * endpoint; on a Solana network curl, @solana/kit and @solana/web3.js, reading the slot. The path form is used
 * (Node's resolver does not resolve `*.localhost`, docs/dashboard.md). A key that requires its secret gets HTTP
 * Basic auth with an empty user name, read from CHAINGATE_KEY_SECRET.
 */
import type { ChainFamily } from '../methods/catalog.ts'
import { html, type SafeHtml } from '../shared/html.ts'

export interface Snippet {
  id: 'curl' | 'viem' | 'ethers' | 'web3' | 'kit' | 'solana-web3'
  library: string
  code: string
}

export const SECRET_ENV = 'CHAINGATE_KEY_SECRET'

const BODY = '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}'
const SOLANA_BODY = '{"jsonrpc":"2.0","id":1,"method":"getSlot","params":[]}'

/** What the examples read, per chain family. */
export const SNIPPET_READS: Readonly<Record<ChainFamily, string>> = { evm: 'block number', solana: 'slot' }

export function snippetsFor(
  url: string,
  opts: { requireSecret: boolean; family?: ChainFamily | undefined },
): Snippet[] {
  const u = `'${url.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
  const auth = `\`Basic \${btoa(':' + process.env.${SECRET_ENV})}\``
  const curl = (body: string): Snippet => ({
    id: 'curl',
    library: 'curl',
    code: [
      `curl -s ${shellQuote(url)} \\`,
      ...(opts.requireSecret ? [`  --user ":$${SECRET_ENV}" \\`] : []),
      `  -H 'Content-Type: application/json' \\`,
      `  -d '${body}'`,
    ].join('\n'),
  })
  if (opts.family === 'solana')
    return [
      curl(SOLANA_BODY),
      {
        id: 'kit',
        library: '@solana/kit',
        code: [
          `import { createSolanaRpc } from '@solana/kit'`,
          ``,
          opts.requireSecret
            ? `const rpc = createSolanaRpc(${u}, { headers: { Authorization: ${auth} } })`
            : `const rpc = createSolanaRpc(${u})`,
          `console.log(await rpc.getSlot().send())`,
        ].join('\n'),
      },
      {
        id: 'solana-web3',
        library: '@solana/web3.js (1.x)',
        code: [
          `import { Connection } from '@solana/web3.js'`,
          ``,
          opts.requireSecret
            ? `const connection = new Connection(${u}, { httpHeaders: { Authorization: ${auth} } })`
            : `const connection = new Connection(${u})`,
          `console.log(await connection.getSlot())`,
        ].join('\n'),
      },
    ]
  return [
    curl(BODY),
    {
      id: 'viem',
      library: 'viem',
      code: [
        `import { createPublicClient, http } from 'viem'`,
        ``,
        opts.requireSecret
          ? `const client = createPublicClient({\n` +
            `  transport: http(${u}, { fetchOptions: { headers: { Authorization: ${auth} } } }),\n})`
          : `const client = createPublicClient({ transport: http(${u}) })`,
        `console.log(await client.getBlockNumber())`,
      ].join('\n'),
    },
    {
      id: 'ethers',
      library: 'ethers (v6)',
      code: opts.requireSecret
        ? [
            `import { FetchRequest, JsonRpcProvider } from 'ethers'`,
            ``,
            `const request = new FetchRequest(${u})`,
            `request.setHeader('Authorization', ${auth})`,
            `const provider = new JsonRpcProvider(request)`,
            `console.log(await provider.getBlockNumber())`,
          ].join('\n')
        : [
            `import { JsonRpcProvider } from 'ethers'`,
            ``,
            `const provider = new JsonRpcProvider(${u})`,
            `console.log(await provider.getBlockNumber())`,
          ].join('\n'),
    },
    {
      id: 'web3',
      library: 'web3.js (v4)',
      code: [
        `import { Web3 } from 'web3'`,
        ``,
        opts.requireSecret
          ? `const web3 = new Web3(\n` +
            `  new Web3.providers.HttpProvider(${u}, { providerOptions: { headers: { Authorization: ${auth} } } }),\n)`
          : `const web3 = new Web3(${u})`,
        `console.log(await web3.eth.getBlockNumber())`,
      ].join('\n'),
    },
  ]
}

/** Single quotes for a POSIX shell (the URL is ours, but a configured base URL may hold anything). */
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/** The key page's "Code examples" card: one network at a time (links switch it), one block per library. */
export function snippetsSection(data: {
  keyId: string
  network: string
  networks: string[]
  items: Snippet[]
  requireSecret: boolean
  requireJwt: boolean
  /** What the examples read: `block number` (EVM) or `slot` (Solana). */
  reads?: string | undefined
}): SafeHtml {
  const links = data.networks.map((n) =>
    n === data.network
      ? html`<a href="/keys/${data.keyId}?network=${n}#snippets" aria-current="true">${n}</a>`
      : html`<a href="/keys/${data.keyId}?network=${n}#snippets">${n}</a>`,
  )
  const tabs =
    data.networks.length > 1 ? html`<nav class="tabs" aria-label="Network of the examples">${links}</nav>` : ''
  const secret = data.requireSecret
    ? html` This key requires its secret: set <code>${SECRET_ENV}</code> in the environment first.`
    : ''
  const jwt = data.requireJwt ? ' This key requires a JWT: send it as Authorization: Bearer <token> instead.' : ''
  const reads = data.reads ?? 'block number'
  return html`<section class="card snippets" id="snippets" aria-labelledby="snippets-h">
    <h2 id="snippets-h">Code examples</h2>${tabs}<p class="muted">Each reads the latest ${reads} from ${
      data.network
    }.${secret}${jwt}</p>${data.items.map(
      (s, i) =>
        html`<details${i === 0 ? html` open` : ''}><summary>${s.library}</summary>
        <pre class="snippet" id="snippet-${s.id}"><code>${s.code}</code></pre>
        <button type="button" class="small secondary" data-copy="snippet-${s.id}" hidden>Copy</button></details>`,
    )}</section>`
}
