// Ogg (Vorbis, Opus): the last page's granule position is the stream's end in samples; the first
// page's identification header gives the rate (Opus counts at 48 kHz, less its pre-skip).
import { startsWith } from './bytes.ts';

/** A page header: capture pattern, version, type, granule (8), serial, sequence, CRC, segment count. */
const PAGE_HEADER_BYTES = 27;
/** The largest Ogg page: its header, 255 lacing values and 255 segments of 255 bytes. */
export const MAX_PAGE_BYTES = PAGE_HEADER_BYTES + 255 + 255 * 255;

/** The rate from the first page (in `head`), the end from the last (in `tail`, at least a page long). */
export function oggSeconds(head: Buffer, tail: Buffer): number | null {
  if (head.length < PAGE_HEADER_BYTES + 1) return null;
  const serial = head.readUInt32LE(14);
  const packet = PAGE_HEADER_BYTES + head[26]!;
  let rate: number;
  let skip = 0;
  if (head[packet] === 0x01 && startsWith(head, packet + 1, 'vorbis')) rate = head.readUInt32LE(packet + 12);
  else if (startsWith(head, packet, 'OpusHead')) {
    rate = 48_000;
    skip = head.readUInt16LE(packet + 10);
  } else return null;
  if (rate <= 0) return null;
  const granule = lastGranule(tail, serial);
  return granule === null || granule < skip ? null : (granule - skip) / rate;
}

/** The granule of the last page of the stream `serial` that has one (-1 marks a page where no packet ends). */
function lastGranule(file: Buffer, serial: number): number | null {
  const from = Math.max(0, file.length - MAX_PAGE_BYTES - PAGE_HEADER_BYTES);
  for (let at = file.lastIndexOf('OggS', file.length - PAGE_HEADER_BYTES); at >= from; at = at === 0 ? -1 : file.lastIndexOf('OggS', at - 1)) {
    if (at + PAGE_HEADER_BYTES > file.length || file[at + 4] !== 0 || file.readUInt32LE(at + 14) !== serial) continue;
    const granule = file.readBigInt64LE(at + 6);
    if (granule >= 0n) return Number(granule);
  }
  return null;
}
