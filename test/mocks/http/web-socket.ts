// The server side of RFC 6455, as far as the mocks speak it: the handshake's accept key, frames out
// (unmasked; whole, or fragments; masked too, for tests that play a client) and frames in (masked, as a
// client must send them; fragments joined).
import { createHash } from 'node:crypto';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export const OPCODE = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;

/** The `Sec-WebSocket-Accept` of a client's `Sec-WebSocket-Key`. */
export function acceptKey(key: string): string {
  return createHash('sha1').update(key + GUID).digest('base64');
}

/**
 * A frame: a whole message, or with `fin` false the first fragments of one (continuations after it).
 * Unmasked, as a server sends it; with `mask` (4 bytes), masked as a client must send it.
 */
export function encodeFrame(opcode: number, payload: Buffer, fin = true, mask?: Buffer): Buffer {
  const length = payload.length;
  const lengthBytes = length < 126 ? 0 : length < 65_536 ? 2 : 8;
  const head = Buffer.alloc(2 + lengthBytes + (mask === undefined ? 0 : 4));
  head[0] = (fin ? 0x80 : 0) | opcode;
  head[1] = (mask === undefined ? 0 : 0x80) | (length < 126 ? length : length < 65_536 ? 126 : 127);
  if (lengthBytes === 2) head.writeUInt16BE(length, 2);
  else if (lengthBytes === 8) head.writeBigUInt64BE(BigInt(length), 2);
  if (mask === undefined) return Buffer.concat([head, payload]);
  mask.copy(head, 2 + lengthBytes);
  const masked = Buffer.from(payload);
  for (let i = 0; i < masked.length; i++) masked[i] ^= mask[i & 3];
  return Buffer.concat([head, masked]);
}

export interface Message {
  opcode: number;
  payload: Buffer;
}

/** Reads a client's frames as they come: whole messages out (control frames at once), or a protocol error. */
export class FrameReader {
  #buffered = Buffer.alloc(0);
  #fragments: Buffer[] = [];
  #fragmentOpcode = 0;

  /** The messages completed by `chunk`; throws on an unmasked frame (RFC 6455 §5.1: the server must close). */
  push(chunk: Buffer): Message[] {
    this.#buffered = Buffer.concat([this.#buffered, chunk]);
    const messages: Message[] = [];
    for (;;) {
      const frame = this.#frame();
      if (frame === null) return messages;
      if (frame.opcode >= 0x8) messages.push({ opcode: frame.opcode, payload: frame.payload });
      else {
        if (frame.opcode !== OPCODE.continuation) this.#fragmentOpcode = frame.opcode;
        this.#fragments.push(frame.payload);
        if (frame.fin) {
          messages.push({ opcode: this.#fragmentOpcode, payload: Buffer.concat(this.#fragments) });
          this.#fragments = [];
        }
      }
    }
  }

  #frame(): { fin: boolean; opcode: number; payload: Buffer } | null {
    const data = this.#buffered;
    if (data.length < 2) return null;
    const fin = (data[0] & 0x80) !== 0;
    const opcode = data[0] & 0x0f;
    if ((data[1] & 0x80) === 0) throw new Error('a client frame without a mask');
    let length = data[1] & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (data.length < 4) return null;
      length = data.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (data.length < 10) return null;
      length = Number(data.readBigUInt64BE(2));
      offset = 10;
    }
    if (data.length < offset + 4 + length) return null;
    const mask = data.subarray(offset, offset + 4);
    const payload = Buffer.from(data.subarray(offset + 4, offset + 4 + length));
    for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
    this.#buffered = data.subarray(offset + 4 + length);
    return { fin, opcode, payload };
  }
}
