// The binary event-stream framing (application/vnd.amazon.eventstream) that converse-stream
// answers in. A message: prelude (total length u32, headers length u32, CRC32 of those 8 bytes),
// headers (name length u8, name, type u8, value), payload, CRC32 of everything before it. Big-endian.
import { crc32 } from 'node:zlib';

export type HeaderValue = boolean | number | bigint | string | Buffer | Date;

export interface EventMessage {
  headers: Record<string, HeaderValue>;
  payload: Buffer;
  /** The headers as they came, to frame the message again with another payload (eventMessageBytes). */
  headerBytes: Buffer;
}

const PRELUDE = 12;
const MIN_MESSAGE = 16;
/** Far above any real event; a larger declared length means the framing is corrupt. */
export const MAX_MESSAGE = 16 * 1024 * 1024;

export class EventStreamError extends Error {
  override readonly name = 'EventStreamError';
}

/** Splits bytes into messages as they arrive; throws EventStreamError on corrupt framing. */
export class EventStreamDecoder {
  #buffer: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): EventMessage[] {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const messages: EventMessage[] = [];
    while (this.#buffer.length >= PRELUDE) {
      const buffer = this.#buffer;
      const total = buffer.readUInt32BE(0);
      const headersLength = buffer.readUInt32BE(4);
      if (crc32(buffer.subarray(0, 8)) !== buffer.readUInt32BE(8)) throw new EventStreamError('prelude checksum mismatch');
      if (total < MIN_MESSAGE || total > MAX_MESSAGE) throw new EventStreamError(`message length ${total} out of range`);
      if (headersLength > total - MIN_MESSAGE) throw new EventStreamError(`headers length ${headersLength} exceeds the message`);
      if (buffer.length < total) break;
      if (crc32(buffer.subarray(0, total - 4)) !== buffer.readUInt32BE(total - 4)) throw new EventStreamError('message checksum mismatch');
      const headerBytes = Buffer.from(buffer.subarray(PRELUDE, PRELUDE + headersLength));
      messages.push({
        headers: decodeHeaders(headerBytes),
        payload: Buffer.from(buffer.subarray(PRELUDE + headersLength, total - 4)),
        headerBytes,
      });
      this.#buffer = buffer.subarray(total);
    }
    return messages;
  }

  /** Bytes of an incomplete message still held (non-zero at the end means a truncated stream). */
  get pending(): number {
    return this.#buffer.length;
  }
}

/** A message's bytes: its headers as they came and `payload` (a judged stream's rewritten event). */
export function eventMessageBytes(headerBytes: Buffer, payload: Buffer): Buffer {
  const total = PRELUDE + headerBytes.length + payload.length + 4;
  const message = Buffer.alloc(total);
  message.writeUInt32BE(total, 0);
  message.writeUInt32BE(headerBytes.length, 4);
  message.writeUInt32BE(crc32(message.subarray(0, 8)), 8);
  headerBytes.copy(message, PRELUDE);
  payload.copy(message, PRELUDE + headerBytes.length);
  message.writeUInt32BE(crc32(message.subarray(0, total - 4)), total - 4);
  return message;
}

function decodeHeaders(bytes: Buffer): Record<string, HeaderValue> {
  const headers = Object.create(null) as Record<string, HeaderValue>;
  let at = 0;
  const need = (n: number): void => {
    if (at + n > bytes.length) throw new EventStreamError('header runs past its section');
  };
  while (at < bytes.length) {
    need(1);
    const nameLength = bytes.readUInt8(at);
    at += 1;
    need(nameLength + 1);
    const name = bytes.toString('utf8', at, at + nameLength);
    at += nameLength;
    const type = bytes.readUInt8(at);
    at += 1;
    let value: HeaderValue;
    switch (type) {
      case 0: value = true; break;
      case 1: value = false; break;
      case 2: need(1); value = bytes.readInt8(at); at += 1; break;
      case 3: need(2); value = bytes.readInt16BE(at); at += 2; break;
      case 4: need(4); value = bytes.readInt32BE(at); at += 4; break;
      case 5: need(8); value = bytes.readBigInt64BE(at); at += 8; break;
      case 6:
      case 7: {
        need(2);
        const length = bytes.readUInt16BE(at);
        at += 2;
        need(length);
        value = type === 6 ? Buffer.from(bytes.subarray(at, at + length)) : bytes.toString('utf8', at, at + length);
        at += length;
        break;
      }
      case 8: need(8); value = new Date(Number(bytes.readBigInt64BE(at))); at += 8; break;
      case 9: need(16); value = Buffer.from(bytes.subarray(at, at + 16)); at += 16; break;
      default: throw new EventStreamError(`unknown header type ${type}`);
    }
    headers[name] = value;
  }
  return headers;
}
