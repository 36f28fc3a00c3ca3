/** `chaingate wallet` help text, apart from the command so `chaingate --help` does not load the wallet. */
export const WALLET_HELP = `Wallet (works while the server runs)
  wallet keystore create [--words 12|24] [--force]      new HD wallet; shows its mnemonic ONCE (write it down)
  wallet keystore import [--mnemonic-file F] [--force]  import a BIP-39 mnemonic (file, or stdin when omitted)
  wallet accounts list                                  accounts the wallet holds
  wallet accounts add [--label L]                       derive the next BIP-44 account
  wallet accounts remove <address>                      remove an account (it leaves every session)
  wallet approvals list [--json]                        requests waiting for the user, as the console shows them
  wallet approvals approve <id> [--accounts 0x…,0x…] [--scopes eip155:1,…]
                                                        approve (session: accounts to share, chains to keep)
  wallet approvals reject <id>
  wallet sessions list                                  sessions per dapp origin
  wallet sessions revoke <origin>                       end a dapp's session
  wallet console-token show                             the console URL with its token (kept across restarts)
  wallet console-token rotate                           replace the console token (old bookmarks stop working)
  Passphrase: $CHAINGATE_WALLET_PASSPHRASE (wallet.keystore.passphraseEnv) or --passphrase-file F
`
