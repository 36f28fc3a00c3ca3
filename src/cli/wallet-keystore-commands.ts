/** `chaingate wallet keystore create|import` and `wallet accounts list|add|remove`. */
import { existsSync, readFileSync } from 'node:fs'
import {
  encryptMnemonic,
  isValidMnemonic,
  newMnemonic,
  readKeystore,
  unlockKeyring,
  writeKeystore,
  type Keyring,
} from '../wallet/keystore.ts'
import { UsageError, type WalletCommandEnv } from './wallet-command-env.ts'

/** `keystore create` (a new mnemonic, shown once) or `keystore import` (from a file or stdin). */
export async function keystoreCommand(e: WalletCommandEnv): Promise<number> {
  const { action, values, repository, config, path, now, print } = e
  const passphrase = e.passphrase
  if (existsSync(path) && !values.force)
    throw new UsageError(`a keystore already exists at ${path} (--force replaces it; back it up first)`)
  const pass = passphrase()
  if (pass.length < 8) throw new UsageError('the passphrase must have at least 8 characters')
  let mnemonic: string
  if (action === 'create') {
    const words = values.words === undefined ? 12 : Number(values.words)
    if (words !== 12 && words !== 24) throw new UsageError('--words must be 12 or 24')
    mnemonic = newMnemonic(words)
  } else {
    const source = values['mnemonic-file']
    mnemonic = source && source !== '-' ? readFileSync(source, 'utf8') : await e.readStdin()
    mnemonic = mnemonic.trim().split(/\s+/).join(' ').toLowerCase()
    if (!isValidMnemonic(mnemonic))
      throw new UsageError('not a valid BIP-39 mnemonic (english wordlist, 12-24 words, checksum)')
  }
  const file = encryptMnemonic(mnemonic, pass, {
    scryptLogN: config.keystore.scryptLogN,
    publicTestMnemonic: false,
  })
  writeKeystore(path, file, { overwrite: true })
  const keyring = unlockKeyring(file, pass)
  await repository.clearAccounts()
  for (let i = 0; i < config.keystore.initialAccounts; i++)
    await repository.addAccount(keyring.addressAt(i), i, '', now)
  const accounts = await repository.listAccounts()
  const listed = accounts.map((a) => `  #${a.index} ${a.address}`).join('\n')
  const restart = 'Restart a running server to use the new keystore.'
  if (action === 'create') {
    // The only time the mnemonic is shown: it is the user's backup. Never logged.
    const backup = `Write down this recovery phrase and keep it offline; it is shown only now:\n\n  ${mnemonic}`
    print(`created ${path}\n\n${backup}\n\naccounts:\n${listed}\n\n${restart}`, {
      keystore: path,
      mnemonic,
      accounts,
    })
  } else print(`imported into ${path}\naccounts:\n${listed}\n\n${restart}`, { keystore: path, accounts })
  return 0
}

/** The unlocked keys when the passphrase is at hand (or the keystore is the public test one), else undefined. */
export function tryUnlock(e: WalletCommandEnv): Keyring | undefined {
  const file = readKeystore(e.path)
  if (!file) return undefined
  try {
    return unlockKeyring(file, e.passphrase())
  } catch {
    return undefined
  }
}

/** `accounts list|add|remove`. */
export async function accountsCommand(e: WalletCommandEnv): Promise<number> {
  const { action, arg, values, repository, path, now, print } = e
  const passphrase = e.passphrase
  switch (action) {
    case 'list': {
      // The Solana address of each account (same index, m/44'/501'/i'/0') needs the keys: shown when unlocked.
      const keyring = tryUnlock(e)
      const accounts = (await repository.listAccounts()).map((a) => ({
        ...a,
        ...(keyring ? { solanaAddress: keyring.solana.addressAt(a.index) } : {}),
      }))
      const note = keyring ? '' : `\n(Solana addresses: set ${e.config.keystore.passphraseEnv} to show them)`
      print(
        (accounts
          .map((a) => [`#${a.index}`, a.address, a.solanaAddress, a.label].filter(Boolean).join('  '))
          .join('\n') || '(no accounts)') + (accounts.length ? note : ''),
        accounts,
      )
      return 0
    }
    case 'add': {
      const file = readKeystore(path)
      if (!file)
        throw new UsageError(
          `no keystore at ${path}: run \`chaingate wallet keystore create\` (or start the server once)`,
        )
      const keyring = unlockKeyring(file, passphrase())
      const index = await repository.nextAccountIndex()
      const address = keyring.addressAt(index)
      await repository.addAccount(address, index, values.label ?? '', now)
      print(`added #${index} ${address}`, { index, address, label: values.label ?? '' })
      return 0
    }
    case 'remove': {
      if (!arg) throw new UsageError('usage: wallet accounts remove <address>')
      if (!(await repository.removeAccount(arg, now))) throw new UsageError(`the wallet holds no account ${arg}`)
      print(`removed ${arg.toLowerCase()} (it leaves every session)`, { removed: arg.toLowerCase() })
      return 0
    }
    default:
      throw new UsageError(`unknown command: wallet accounts ${action ?? ''}`)
  }
}
