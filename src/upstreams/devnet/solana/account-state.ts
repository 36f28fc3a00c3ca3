/** An account as the devnet holds it (litesvm's, without rent epoch): what the RPC and PubSub encoders read. */
export interface AccountState {
  lamports: bigint
  owner: string
  executable: boolean
  data: Uint8Array
}
