/**
 * The devnet's slots: each one's blockhash, parent blockhash and time, the commitment levels behind the newest
 * slot, and which blockhashes still land transactions (150 blocks, Agave's MAX_PROCESSING_AGE). LiteSVM itself
 * checks only the one latest blockhash and keeps no blocks, so these rules live here.
 */

/** Agave's MAX_PROCESSING_AGE: a blockhash lands transactions for 150 blocks after its own. */
export const MAX_PROCESSING_AGE = 150
/** Slots between a block and its root (finalized), as with Tower BFT's 32-vote lockout. */
export const FINALIZED_DEPTH = 32
export const SLOTS_PER_EPOCH = 432_000
/** Recent slots whose blockhash and time are kept (empty blocks are answered within this window). */
const RECENT_SLOTS = 512

export type Commitment = 'processed' | 'confirmed' | 'finalized'

export interface SlotInfo {
  blockhash: string
  previousBlockhash: string
  time: number
}

/** A slot as the state file keeps it: slot, blockhash, previous blockhash, time. */
export type SavedSlot = [number, string, string, number]

export class SlotClock {
  slot = 0
  private readonly slots = new Map<number, SlotInfo>()
  private readonly blockhashSlots = new Map<string, number>()

  /**
   * Makes `slot` the newest, with its blockhash and time. The slot RECENT_SLOTS back is forgotten unless
   * `hasBlock` says its block holds transactions; its blockhash is forgotten either way.
   */
  start(slot: number, blockhash: string, time: number, genesisHash: string, hasBlock: (slot: number) => boolean) {
    const previous = this.slots.get(slot - 1)?.blockhash ?? genesisHash
    this.slot = slot
    this.slots.set(slot, { blockhash, previousBlockhash: previous, time })
    this.blockhashSlots.set(blockhash, slot)
    const forget = this.slots.get(slot - RECENT_SLOTS)
    if (forget && !hasBlock(slot - RECENT_SLOTS)) this.slots.delete(slot - RECENT_SLOTS)
    if (forget) this.blockhashSlots.delete(forget.blockhash)
  }

  /** A slot whose block lost its last transaction from the history: forgotten once it is no longer recent. */
  forgetIfOld(slot: number): void {
    if (slot <= this.slot - RECENT_SLOTS) this.slots.delete(slot)
  }

  commitmentSlot(commitment: Commitment = 'finalized'): number {
    if (commitment === 'processed') return this.slot
    if (commitment === 'confirmed') return Math.max(0, this.slot - 1)
    return Math.max(0, this.slot - FINALIZED_DEPTH)
  }

  info(slot: number): SlotInfo | undefined {
    return this.slots.get(slot)
  }

  blockhashAt(slot: number): string | undefined {
    return this.slots.get(slot)?.blockhash
  }

  /** Whether a blockhash still lands transactions now (its block is at most 150 blocks old). */
  isBlockhashValid(blockhash: string): boolean {
    const slot = this.blockhashSlots.get(blockhash)
    return slot !== undefined && this.slot - slot <= MAX_PROCESSING_AGE
  }

  /** Slots that have a block, ascending, within [start, end]. */
  blockSlots(start: number, end: number): number[] {
    const out = [...this.slots.keys()].filter((s) => s >= start && s <= end)
    return out.sort((a, b) => a - b)
  }

  firstAvailableBlock(): number {
    let first = this.slot
    for (const slot of this.slots.keys()) first = Math.min(first, slot)
    return first
  }

  /** The slots worth saving: those whose block holds transactions, and those whose blockhash is still valid. */
  saved(hasBlock: (slot: number) => boolean): SavedSlot[] {
    return [...this.slots.entries()]
      .filter(([slot]) => hasBlock(slot) || this.slot - slot <= MAX_PROCESSING_AGE)
      .map(([slot, s]) => [slot, s.blockhash, s.previousBlockhash, s.time])
  }

  restore(saved: SavedSlot[]): void {
    for (const [slot, blockhash, previousBlockhash, time] of saved) {
      this.slots.set(slot, { blockhash, previousBlockhash, time })
      this.blockhashSlots.set(blockhash, slot)
    }
  }
}
