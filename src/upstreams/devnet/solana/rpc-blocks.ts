/**
 * The devnet's slot and block methods: slots at each commitment, epochs, the latest blockhash and its validity,
 * blocks (getBlock, getBlocks, getBlockTime) and the ledger's bounds.
 */
import { invalidParams, RpcError, tryDecodeBase58 } from './codec.ts'
import {
  asObject,
  atLeastConfirmed,
  contextSlot,
  type Handler,
  optionalBool,
  parseU64,
  required,
  transactionReadConfig,
  unknownVariant,
  withContext,
} from './rpc-params.ts'
import { MAX_PROCESSING_AGE, SLOTS_PER_EPOCH } from './slot-clock.ts'
import { uiTransactionWithMeta } from './ui-transaction.ts'

const MAX_BLOCK_RANGE = 500_000

function blockNotAvailable(slot: number): RpcError {
  return new RpcError(-32004, `Block not available for slot ${slot}`)
}

function slotSkipped(slot: number): RpcError {
  return new RpcError(-32009, `Slot ${slot} was skipped, or missing in long-term storage`)
}

export const blockMethods: Record<string, Handler> = {
  getSlotLeader: (p, ctx) => (contextSlot(ctx.chain, asObject(p[0], 'RpcContextConfig')), ctx.chain.identity),
  getSlot: (p, ctx) => contextSlot(ctx.chain, asObject(p[0], 'RpcContextConfig')),
  // Block height equals the slot: the devnet skips no slot.
  getBlockHeight: (p, ctx) => contextSlot(ctx.chain, asObject(p[0], 'RpcContextConfig')),
  getEpochInfo: (p, ctx) => {
    const slot = contextSlot(ctx.chain, asObject(p[0], 'RpcContextConfig'))
    return {
      absoluteSlot: slot,
      blockHeight: slot,
      epoch: Math.floor(slot / SLOTS_PER_EPOCH),
      slotIndex: slot % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
      transactionCount: ctx.chain.transactionCount,
    }
  },
  getEpochSchedule: () => ({
    firstNormalEpoch: 0,
    firstNormalSlot: 0,
    leaderScheduleSlotOffset: SLOTS_PER_EPOCH,
    slotsPerEpoch: SLOTS_PER_EPOCH,
    warmup: false,
  }),
  getLatestBlockhash: (p, ctx) => {
    const slot = contextSlot(ctx.chain, asObject(p[0], 'RpcContextConfig'))
    const blockhash = ctx.chain.clock.blockhashAt(slot) as string
    return withContext(slot, { blockhash, lastValidBlockHeight: slot + MAX_PROCESSING_AGE })
  },
  isBlockhashValid: (p, ctx) => {
    const blockhash = required(p, 0, 'at least 1 parameter')
    const bytes = typeof blockhash === 'string' ? tryDecodeBase58(blockhash) : ''
    if (typeof bytes === 'string' || bytes.length !== 32) throw invalidParams('Invalid param: Invalid')
    const slot = contextSlot(ctx.chain, asObject(p[1], 'RpcContextConfig'))
    return withContext(slot, ctx.chain.clock.isBlockhashValid(blockhash as string))
  },
  getBlock: (p, ctx) => {
    const slot = parseU64(required(p, 0, 'at least 1 parameter'))
    const { config, encoding, commitment, maxVersion } = transactionReadConfig(p[1], 'RpcBlockConfig')
    const details = config.transactionDetails ?? 'full'
    if (!['full', 'signatures', 'none', 'accounts'].includes(details as string))
      throw unknownVariant(details, ['full', 'signatures', 'none', 'accounts'])
    const rewards = optionalBool(config.rewards, true)
    if (slot > ctx.chain.clock.commitmentSlot(commitment)) throw blockNotAvailable(slot)
    const block = ctx.chain.block(slot)
    if (!block) throw slotSkipped(slot)
    const out: Record<string, unknown> = {
      blockHeight: slot,
      blockTime: block.time,
      blockhash: block.blockhash,
      parentSlot: Math.max(0, slot - 1),
      previousBlockhash: block.previousBlockhash,
    }
    const records = block.signatures.map((s) => ctx.chain.getTransaction(s)).filter((r) => r !== undefined)
    if (details === 'full') out.transactions = records.map((r) => uiTransactionWithMeta(r, encoding, maxVersion))
    else if (details === 'accounts')
      out.transactions = records.map((r) => {
        const full = uiTransactionWithMeta(r, 'jsonParsed', maxVersion)
        const tx = full.transaction as { message: { accountKeys: unknown }; signatures: string[] }
        const meta = full.meta as Record<string, unknown>
        return {
          ...(maxVersion !== undefined ? { version: r.version } : {}),
          meta: {
            err: meta.err,
            fee: meta.fee,
            postBalances: meta.postBalances,
            postTokenBalances: meta.postTokenBalances,
            preBalances: meta.preBalances,
            preTokenBalances: meta.preTokenBalances,
            status: meta.status,
          },
          transaction: { accountKeys: tx.message.accountKeys, signatures: tx.signatures },
        }
      })
    else if (details === 'signatures') out.signatures = records.map((r) => r.signature)
    if (rewards) out.rewards = []
    return out
  },
  getBlocks: (p, ctx) => {
    const start = parseU64(required(p, 0, 'at least 1 parameter'))
    const second = p[1]
    const config = asObject(typeof second === 'object' ? second : p[2], 'RpcContextConfig')
    const maxSlot = ctx.chain.clock.commitmentSlot(atLeastConfirmed(config))
    const end = typeof second === 'number' ? parseU64(second) : maxSlot
    if (end >= start && end - start > MAX_BLOCK_RANGE)
      throw invalidParams(`Slot range too large; max ${MAX_BLOCK_RANGE}`)
    return ctx.chain.clock.blockSlots(start, Math.min(end, maxSlot))
  },
  getBlocksWithLimit: (p, ctx) => {
    const start = parseU64(required(p, 0, 'at least 2 parameters'))
    const limit = parseU64(required(p, 1, 'at least 2 parameters'))
    if (limit > MAX_BLOCK_RANGE) throw invalidParams(`Limit too large; max ${MAX_BLOCK_RANGE}`)
    const maxSlot = ctx.chain.clock.commitmentSlot(atLeastConfirmed(asObject(p[2], 'RpcContextConfig')))
    return ctx.chain.clock.blockSlots(start, maxSlot).slice(0, limit)
  },
  getBlockTime: (p, ctx) => {
    const slot = parseU64(required(p, 0, 'at least 1 parameter'))
    if (slot > ctx.chain.clock.commitmentSlot('confirmed')) throw blockNotAvailable(slot)
    const block = ctx.chain.block(slot)
    if (!block) throw slotSkipped(slot)
    return block.time
  },
  getFirstAvailableBlock: (_p, ctx) => ctx.chain.clock.firstAvailableBlock(),
  minimumLedgerSlot: (_p, ctx) => ctx.chain.clock.firstAvailableBlock(),
  getMaxRetransmitSlot: (_p, ctx) => ctx.chain.slot,
  getMaxShredInsertSlot: (_p, ctx) => ctx.chain.slot,
  getHighestSnapshotSlot: () => {
    throw new RpcError(-32008, 'No snapshot')
  },
}
