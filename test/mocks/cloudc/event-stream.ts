// Encodes messages in the binary event-stream framing: prelude (total length, headers length,
// prelude CRC), headers, payload, message CRC; all integers big-endian. String headers only, which
// is all the converse stream uses.
import { crc32 } from './crc32.ts';

export function encodeHeaders(headers: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const nameBytes = Buffer.from(name, 'utf8');
    const valueBytes = Buffer.from(value, 'utf8');
    const header = Buffer.alloc(1 + nameBytes.length + 1 + 2 + valueBytes.length);
    let at = header.writeUInt8(nameBytes.length, 0);
    at += nameBytes.copy(header, at);
    at = header.writeUInt8(7, at);
    at = header.writeUInt16BE(valueBytes.length, at);
    valueBytes.copy(header, at);
    parts.push(header);
  }
  return Buffer.concat(parts);
}

export function encodeMessage(headers: Record<string, string>, payload: Buffer): Buffer {
  const headerBytes = encodeHeaders(headers);
  const total = 12 + headerBytes.length + payload.length + 4;
  const message = Buffer.alloc(total);
  message.writeUInt32BE(total, 0);
  message.writeUInt32BE(headerBytes.length, 4);
  message.writeUInt32BE(crc32(message.subarray(0, 8)), 8);
  headerBytes.copy(message, 12);
  payload.copy(message, 12 + headerBytes.length);
  message.writeUInt32BE(crc32(message.subarray(0, total - 4)), total - 4);
  return message;
}

/** One converse-stream event. */
export function eventMessage(eventType: string, payload: object): Buffer {
  return encodeMessage({ ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' }, Buffer.from(JSON.stringify(payload)));
}

/** An exception inside the stream (throttling, validation, …). */
export function exceptionMessage(exceptionType: string, message: string): Buffer {
  return encodeMessage({ ':exception-type': exceptionType, ':content-type': 'application/json', ':message-type': 'exception' }, Buffer.from(JSON.stringify({ message })));
}
