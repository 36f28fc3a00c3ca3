/**
 * Starts solana-test-validator (Agave) where it is installed, under anvil's guard, with the funded accounts in
 * the genesis of a new ledger.
 */
import { spawn } from 'node:child_process'
import { accessSync, constants as fsConstants, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { delimiter, isAbsolute, join } from 'node:path'
import type { Readable } from 'node:stream'
import { GUARD_SCRIPT } from '../anvil.ts'
import { collectOutput, killQuietly, pickFreePort, readPid } from '../process.ts'
import { SolanaDevnetError } from './errors.ts'
import { SOLANA_FUNDED_LAMPORTS, type SolanaAccount } from './keys.ts'
import { type Launched, type SolanaDevnetOptions, watchExit } from './launched.ts'

/** The validator binary: an explicit path, or the first `solana-test-validator` on PATH. */
export function resolveValidatorBinary(binary = 'solana-test-validator'): string {
  const executable = (path: string) => {
    try {
      accessSync(path, fsConstants.X_OK)
      return true
    } catch {
      return false
    }
  }
  const candidates =
    isAbsolute(binary) || binary.includes('/')
      ? [binary]
      : (process.env.PATH ?? '')
          .split(delimiter)
          .filter(Boolean)
          .map((dir) => join(dir, binary))
  const found = candidates.find(executable)
  if (!found)
    throw new SolanaDevnetError(
      'SOLANA_VALIDATOR_MISSING',
      `${binary} not found${candidates.length > 1 ? ' on PATH' : ''}: install the Agave tools ` +
        '(https://docs.anza.xyz/cli/install) or use the built-in devnet (engine "litesvm")',
    )
  return found
}

export async function launchValidator(
  options: SolanaDevnetOptions,
  accounts: SolanaAccount[],
  host: string,
): Promise<Launched> {
  const binary = resolveValidatorBinary(options.validatorBinary)
  const port = options.port === 0 ? await pickFreePort(host) : options.port
  const ledger = options.stateFile
    ? `${options.stateFile.replace(/\.json$/, '')}-ledger`
    : join(process.env.TMPDIR ?? '/tmp', `chaingate-solana-${process.pid}-${port}`)
  // The validator's RPC port is given; PubSub is on port + 1 and its faucet on port + 2.
  const args = [
    '--ledger',
    ledger,
    '--rpc-port',
    String(port),
    '--bind-address',
    host,
    '--faucet-port',
    String(port + 2),
  ]
  args.push('--quiet')
  if (!existsSync(ledger)) {
    // A new ledger: fund the accounts in its genesis (--account ADDRESS FILE, `solana account --output json`).
    const dir = `${ledger}-accounts`
    mkdirSync(dir, { recursive: true })
    for (const account of accounts) {
      const file = join(dir, `${account.address}.json`)
      writeFileSync(
        file,
        JSON.stringify({
          pubkey: account.address,
          account: {
            lamports: Number(SOLANA_FUNDED_LAMPORTS),
            data: ['', 'base64'],
            owner: '11111111111111111111111111111111',
            executable: false,
            rentEpoch: 0,
            space: 0,
          },
        }),
      )
      args.push('--account', account.address, file)
    }
  }
  // Under anvil's guard (anvil.ts): the validator gets SIGTERM when our pipe closes, even if chaingate is killed.
  const guard = spawn('/bin/sh', ['-c', GUARD_SCRIPT, binary, ...args], {
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    detached: true,
  })
  guard.stdin?.on('error', () => {})
  const output = collectOutput(guard)
  const { exited, hasExited } = watchExit(guard)
  const pid = await readPid(guard.stdio[3] as Readable).catch((error: unknown) => {
    guard.kill('SIGKILL')
    throw new SolanaDevnetError('SOLANA_DEVNET_EXITED', (error as Error).message, output())
  })
  void exited.then(({ signal }) => {
    if (signal) killQuietly(pid, 'SIGTERM')
  })
  return {
    child: guard,
    pid,
    port,
    pubsubPort: port + 1,
    output,
    exited,
    hasExited,
    requestStop: () => guard.stdin?.end(),
    kill: () => {
      killQuietly(pid, 'SIGKILL')
      guard.kill('SIGKILL')
    },
  }
}
