// WAV (RIFF): the `fmt ` chunk's byte rate and the `data` chunk's length, both in the file's first
// bytes (`head`) of `length`.
import { startsWith } from './bytes.ts';

export function wavSeconds(head: Buffer, length: number): number | null {
  let byteRate = 0;
  let at = 12;
  while (at + 8 <= head.length) {
    const size = head.readUInt32LE(at + 4);
    if (startsWith(head, at, 'fmt ') && at + 16 <= head.length) byteRate = head.readUInt32LE(at + 16);
    if (startsWith(head, at, 'data')) {
      // A recording streamed as it was made may say 0 or 0xFFFFFFFF: the rest of the file is its data.
      const available = length - (at + 8);
      const data = size === 0 || size > available ? available : size;
      return byteRate > 0 ? data / byteRate : null;
    }
    // Chunks are padded to an even length.
    at += 8 + size + (size & 1);
  }
  return null;
}
