/**
 * Writing to one client WebSocket. Answers go through `ws`; subscription notifications are written to the socket as
 * whole WebSocket frames (RFC 6455 §5.2: FIN, text opcode, unmasked as a server's frames are). The frame of an event
 * is built once for all its subscribers (`Notification.wire`); each subscriber's id is written into it and it is
 * sent in one socket write, the same buffer serving the next subscriber whenever the kernel took the write whole.
 * `ws.send` would frame every message again (a header buffer, options, a corked two-buffer writev) and encode the
 * text each time: writing the frame whole costs less CPU per subscriber (docs/benchmarks.md, "Fan-out benchmark").
 * This relies on permessage-deflate being off (ws-upgrade.ts: a compressed connection's frames go through ws's queue)
 * and on ws never sending fragmented messages here; ws writes whole frames synchronously, so the two never interleave.
 */
import type { Duplex } from 'node:stream'
import type { WebSocket } from 'ws'
import { FRAME_HEAD, type Notification } from '../pipeline/event-charges.ts'
import { WS_CLOSE } from './ws-close-codes.ts'

const TOO_SLOW = 'too much unread data: the client is not reading its messages'
/** The subscription ids chaingate gives out (`0x` and 32 hex digits: src/gateway/pipeline/client-subscriptions.ts). */
const ID_LENGTH = 34
const HEAD_BYTES = Buffer.byteLength(FRAME_HEAD)

/** One unfragmented, unmasked text frame's header for `length` bytes of payload. */
function frameHeader(length: number): Buffer {
  if (length < 126) return Buffer.from([0x81, length])
  if (length < 65536) return Buffer.from([0x81, 126, length >> 8, length & 0xff])
  const h = Buffer.alloc(10)
  h[0] = 0x81
  h[1] = 127
  h.writeBigUInt64BE(BigInt(length), 2)
  return h
}

const frame = (text: string) => {
  const payload = Buffer.from(text)
  return Buffer.concat([frameHeader(payload.length), payload])
}

/**
 * The frame of `n` with a placeholder id of `length` characters, and where the id goes (after the 2-, 4- or 10-byte
 * header and the head).
 */
function wireOf(n: Notification, length = ID_LENGTH): { frame: Buffer; at: number } {
  const head = n.head ?? FRAME_HEAD
  const f = frame(head + '0'.repeat(length) + n.tail)
  return {
    frame: f,
    at: (f[1] === 126 ? 4 : f[1] === 127 ? 10 : 2) + (n.head === undefined ? HEAD_BYTES : Buffer.byteLength(head)),
  }
}

/** Writes `wire` with `subscription` in place; a copy is kept for the next subscriber if the socket holds this one. */
function writeWire(socket: Duplex, wire: { frame: Buffer; at: number }, subscription: string): Buffer {
  wire.frame.write(subscription, wire.at, subscription.length, 'latin1')
  socket.write(wire.frame)
  // Nothing left unwritten: the kernel has the bytes, and the same buffer serves the next subscriber. Otherwise the
  // socket holds it until it is written: the next subscriber gets a copy.
  return socket.writableLength !== 0 ? Buffer.from(wire.frame) : wire.frame
}

/** Writes the notification of `n` to `subscription` on `socket` as one WebSocket frame. */
export function writeNotification(socket: Duplex, n: Notification, subscription: string): void {
  if (n.head !== undefined) {
    // Solana: integer ids (ASCII digits) of any length, last in the notification (n.head is what comes before):
    // one frame per id length, the digits written in place as for EVM ids.
    const wires = (n.wires ??= [])
    const wire = (wires[subscription.length] ??= wireOf(n, subscription.length))
    wire.frame = writeWire(socket, wire, subscription)
    return
  }
  if (subscription.length !== ID_LENGTH) {
    socket.write(frame(FRAME_HEAD + subscription + n.tail))
    return
  }
  const wire = (n.wire ??= wireOf(n))
  wire.frame = writeWire(socket, wire, subscription)
}

export interface WsWriter {
  /** Writes an answer; false when it was not written (socket closed, or the client stopped reading). */
  text(text: string): boolean
  /** Writes an event's notification to `subscription`; false as for `text`. */
  notification(subscription: string, n: Notification): boolean
}

/** `socket`: the upgraded socket `ws` runs on. Past `maxBuffered` unsent bytes the client is closed (1008). */
export function wsWriter(ws: WebSocket, socket: Duplex, maxBuffered: number): WsWriter {
  const writable = () => {
    if (ws.readyState !== ws.OPEN || !socket.writable) return false
    if (ws.bufferedAmount <= maxBuffered) return true
    ws.close(WS_CLOSE.policy, TOO_SLOW)
    return false
  }
  return {
    text(text) {
      if (!writable()) return false
      ws.send(text)
      return true
    },
    notification(subscription, n) {
      if (!writable()) return false
      writeNotification(socket, n, subscription)
      return true
    },
  }
}
