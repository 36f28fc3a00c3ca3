/**
 * The devnet's PubSub (https://solana.com/docs/rpc/websocket): account, program, signature, logs, slot and root
 * subscriptions over WebSocket, integer ids, `<kind>Notification` messages. A notification waits until what it
 * reports reaches the subscription's commitment (processed: at once; confirmed: the next slot; finalized: 32
 * slots later), and a signature subscription ends with its one notification, as Agave does.
 */
import type WebSocket from 'ws'
import type { SolanaChain } from './chain.ts'
import { invalidParams, parsePubkey, parseSignature, RpcError, stringifyJson, typeName } from './codec.ts'
import { parseFilters } from './rpc-accounts.ts'
import { asObject, parseCommitment, parseU64 } from './rpc-params.ts'
import type { Commitment } from './slot-clock.ts'
import type { TransactionRecord } from './transaction-history.ts'
import type { AccountState } from './account-state.ts'
import { type AccountEncoding, parseAccountEncoding, uiAccount } from './ui-account.ts'

type Kind = 'account' | 'program' | 'signature' | 'logs' | 'slot' | 'root'

interface Subscription {
  id: number
  kind: Kind
  socket: WebSocket
  commitment: Commitment
  key?: string
  encoding?: AccountEncoding
  filters?: Array<(account: AccountState) => boolean>
  /** logs: undefined = every transaction */
  mentions?: string
  receivedNotification?: boolean
}

interface Landed {
  record: TransactionRecord
  writable: string[]
}

const KEEP_SLOTS = 40

export class PubSub {
  private nextId = 0
  private readonly subscriptions = new Map<number, Subscription>()
  private readonly landed = new Map<number, Landed[]>()
  /** Highest slot whose transactions were announced at each commitment. */
  private readonly announced: Record<Commitment, number>
  private lastRoot: number

  private readonly chain: SolanaChain

  constructor(chain: SolanaChain) {
    this.chain = chain
    this.announced = {
      processed: chain.slot,
      confirmed: chain.clock.commitmentSlot('confirmed'),
      finalized: chain.clock.commitmentSlot('finalized'),
    }
    this.lastRoot = chain.clock.commitmentSlot('finalized')
  }

  get size(): number {
    return this.subscriptions.size
  }

  attach(socket: WebSocket): void {
    socket.on('message', (data) => {
      let request: unknown
      try {
        request = JSON.parse(String(data))
      } catch {
        this.send(socket, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null })
        return
      }
      const requests = Array.isArray(request) ? request : [request]
      for (const r of requests) this.handle(socket, r)
    })
    socket.on('close', () => {
      for (const [id, sub] of this.subscriptions) if (sub.socket === socket) this.subscriptions.delete(id)
    })
  }

  private send(socket: WebSocket, message: unknown): void {
    if (socket.readyState === socket.OPEN) socket.send(stringifyJson(message))
  }

  private handle(socket: WebSocket, request: unknown): void {
    const r = (typeof request === 'object' && request !== null ? request : {}) as Record<string, unknown>
    const id = r.id ?? null
    try {
      if (r.jsonrpc !== '2.0' || typeof r.method !== 'string') throw new RpcError(-32600, 'Invalid request')
      if (r.params !== undefined && r.params !== null && !Array.isArray(r.params))
        throw invalidParams(`Invalid params: invalid type: ${typeName(r.params)}, expected a sequence.`)
      const params = (r.params as unknown[] | undefined) ?? []
      const method = r.method
      if (method.endsWith('Unsubscribe')) {
        const kind = method.slice(0, -'Unsubscribe'.length)
        const subId = parseU64(params[0])
        const sub = this.subscriptions.get(subId)
        if (!sub || sub.socket !== socket || sub.kind !== kind) throw invalidParams('Invalid subscription id.')
        this.subscriptions.delete(subId)
        this.send(socket, { jsonrpc: '2.0', result: true, id })
        return
      }
      const sub = this.parseSubscribe(socket, method, params)
      this.subscriptions.set(sub.id, sub)
      this.send(socket, { jsonrpc: '2.0', result: sub.id, id })
      if (sub.kind === 'signature') this.checkSignatureNow(sub)
    } catch (error) {
      const e = error instanceof RpcError ? error : new RpcError(-32603, 'Internal error')
      const body =
        e.data === undefined ? { code: e.code, message: e.message } : { code: e.code, data: e.data, message: e.message }
      this.send(socket, { jsonrpc: '2.0', error: body, id })
    }
  }

  private parseSubscribe(socket: WebSocket, method: string, params: unknown[]): Subscription {
    const base = { id: ++this.nextId, socket }
    const config = (i: number) => asObject(params[i], 'RpcAccountInfoConfig')
    switch (method) {
      case 'accountSubscribe':
        return {
          ...base,
          kind: 'account',
          key: parsePubkey(params[0]),
          commitment: parseCommitment(config(1).commitment),
          encoding: parseAccountEncoding(config(1).encoding) ?? 'binary',
        }
      case 'programSubscribe': {
        const c = config(1)
        return {
          ...base,
          kind: 'program',
          key: parsePubkey(params[0]),
          commitment: parseCommitment(c.commitment),
          encoding: parseAccountEncoding(c.encoding) ?? 'binary',
          filters: parseFilters(c.filters).map((f) => f.match),
        }
      }
      case 'signatureSubscribe': {
        const c = asObject(params[1], 'RpcSignatureSubscribeConfig')
        const received = c.enableReceivedNotification
        if (received !== undefined && received !== null && typeof received !== 'boolean')
          throw invalidParams(`Invalid params: invalid type: ${typeName(received)}, expected a boolean.`)
        return {
          ...base,
          kind: 'signature',
          key: parseSignature(params[0]),
          commitment: parseCommitment(c.commitment),
          receivedNotification: received === true,
        }
      }
      case 'logsSubscribe': {
        const filter = params[0]
        let mentions: string | undefined
        if (filter !== 'all' && filter !== 'allWithVotes') {
          const object = asObject(filter, 'RpcTransactionLogsFilter')
          if (!Array.isArray(object.mentions))
            throw invalidParams('Invalid params: unknown variant, expected `all`, `allWithVotes` or `mentions`.')
          if (object.mentions.length !== 1) throw invalidParams('Invalid Request: Only 1 address supported')
          mentions = parsePubkey(object.mentions[0])
        }
        return { ...base, kind: 'logs', commitment: parseCommitment(config(1).commitment), mentions }
      }
      case 'slotSubscribe':
        return { ...base, kind: 'slot', commitment: 'processed' }
      case 'rootSubscribe':
        return { ...base, kind: 'root', commitment: 'finalized' }
      default:
        throw new RpcError(-32601, 'Method not found')
    }
  }

  private notify(sub: Subscription, result: unknown): void {
    this.send(sub.socket, {
      jsonrpc: '2.0',
      method: `${sub.kind}Notification`,
      params: { result, subscription: sub.id },
    })
  }

  /** A signature already at the subscription's commitment is answered at once. */
  private checkSignatureNow(sub: Subscription): void {
    const record = this.chain.getTransaction(sub.key as string)
    if (record && record.slot <= this.announced[sub.commitment]) {
      this.notify(sub, {
        context: { slot: this.chain.clock.commitmentSlot(sub.commitment) },
        value: { err: record.err },
      })
      this.subscriptions.delete(sub.id)
    }
  }

  /** sendTransaction and requestAirdrop report each transaction they accept. */
  received(signature: string): void {
    for (const sub of this.subscriptions.values())
      if (sub.kind === 'signature' && sub.receivedNotification && sub.key === signature)
        this.notify(sub, { context: { slot: this.chain.slot }, value: 'receivedSignature' })
  }

  transaction(record: TransactionRecord, writable: string[]): void {
    const list = this.landed.get(record.slot) ?? []
    list.push({ record, writable })
    this.landed.set(record.slot, list)
    this.announce('processed', [{ record, writable }])
    this.announced.processed = this.chain.slot
  }

  slot(slot: number): void {
    for (const sub of this.subscriptions.values())
      if (sub.kind === 'slot')
        this.notify(sub, { parent: Math.max(0, slot - 1), root: this.chain.clock.commitmentSlot('finalized'), slot })
    this.announced.processed = slot
    for (const commitment of ['confirmed', 'finalized'] as const) {
      const upTo = this.chain.clock.commitmentSlot(commitment)
      const batch: Landed[] = []
      for (let s = this.announced[commitment] + 1; s <= upTo; s++) batch.push(...(this.landed.get(s) ?? []))
      this.announced[commitment] = upTo
      if (batch.length) this.announce(commitment, batch)
    }
    const root = this.chain.clock.commitmentSlot('finalized')
    if (root !== this.lastRoot) {
      this.lastRoot = root
      for (const sub of this.subscriptions.values()) if (sub.kind === 'root') this.notify(sub, root)
    }
    this.landed.delete(slot - KEEP_SLOTS)
  }

  private announce(commitment: Commitment, batch: Landed[]): void {
    const contextSlot = this.chain.clock.commitmentSlot(commitment)
    const context = { slot: contextSlot }
    const written = new Set(batch.flatMap((l) => l.writable))
    for (const sub of [...this.subscriptions.values()]) {
      if (sub.commitment !== commitment) continue
      switch (sub.kind) {
        case 'signature': {
          const landed = batch.find((l) => l.record.signature === sub.key)
          if (landed) {
            this.notify(sub, { context, value: { err: landed.record.err } })
            this.subscriptions.delete(sub.id)
          }
          break
        }
        case 'logs':
          for (const { record } of batch)
            if (!sub.mentions || record.accountKeys.includes(sub.mentions))
              this.notify(sub, { context, value: { err: record.err, logs: record.logs, signature: record.signature } })
          break
        case 'account':
          if (written.has(sub.key as string)) {
            const account = this.chain.getAccount(sub.key as string) ?? {
              lamports: 0n,
              owner: '11111111111111111111111111111111',
              executable: false,
              data: new Uint8Array(),
            }
            this.notify(sub, { context, value: this.encode(account, sub.encoding as AccountEncoding) })
          }
          break
        case 'program':
          for (const pubkey of written) {
            const account = this.chain.getAccount(pubkey)
            if (!account || account.owner !== sub.key || !sub.filters?.every((f) => f(account))) continue
            this.notify(sub, {
              context,
              value: { account: this.encode(account, sub.encoding as AccountEncoding), pubkey },
            })
          }
          break
      }
    }
  }

  private encode(account: AccountState, encoding: AccountEncoding): unknown {
    // A notification cannot be refused: base58 of more than 128 bytes is sent as base64.
    const fits = account.data.length <= 128 || (encoding !== 'binary' && encoding !== 'base58')
    return uiAccount(account, fits ? encoding : 'base64', undefined, this.chain.mintDecimals)
  }
}
