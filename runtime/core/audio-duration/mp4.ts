// MP4 and M4A (ISO base media): the movie header box (`moov` › `mvhd`) holds the timescale and the
// duration in its units.
import { startsWith } from './bytes.ts';

export function mp4Seconds(file: Buffer): number | null {
  const moov = findBox(file, 0, file.length, 'moov');
  if (moov === null) return null;
  const mvhd = findBox(file, moov.start, moov.end, 'mvhd');
  if (mvhd === null) return null;
  const at = mvhd.start;
  const version = file[at];
  // Version 1 has 64-bit creation and modification times and duration; version 0 32-bit ones.
  if (version === 1) {
    const timescale = file.readUInt32BE(at + 20);
    const duration = Number(file.readBigUInt64BE(at + 24));
    return timescale > 0 ? duration / timescale : null;
  }
  const timescale = file.readUInt32BE(at + 12);
  const duration = file.readUInt32BE(at + 16);
  return timescale > 0 ? duration / timescale : null;
}

/** The payload of the first box of `type` among the boxes in [from, to), or null. */
function findBox(file: Buffer, from: number, to: number, type: string): { start: number; end: number } | null {
  let at = from;
  while (at + 8 <= to) {
    let size = file.readUInt32BE(at);
    let header = 8;
    if (size === 1) {
      if (at + 16 > to) return null;
      size = Number(file.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) size = to - at;
    if (size < header || at + size > to) return null;
    if (startsWith(file, at + 4, type)) return { start: at + header, end: at + size };
    at += size;
  }
  return null;
}
