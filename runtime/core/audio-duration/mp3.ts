// MP3 (MPEG audio): after an ID3v2 tag, the first frame's header gives the sample rate and bitrate;
// a Xing/Info or VBRI header in that frame gives the frame count of a variable-bitrate file, else
// the file is taken as constant-bitrate (its bytes over its bitrate). A trailing ID3v1 tag is not audio.
import { startsWith } from './bytes.ts';

/** kbit/s by bitrate index: MPEG-1 layers I, II, III; MPEG-2/2.5 layer I; MPEG-2/2.5 layers II and III. */
const BITRATES = [
  [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
];
/** Hz by sample-rate index, for MPEG-1; MPEG-2 halves them, MPEG-2.5 quarters them. */
const SAMPLE_RATES = [44100, 48000, 32000];
/** How far into a file the first frame is looked for (past junk some encoders leave). */
const SYNC_SCAN_BYTES = 64 * 1024;

/** From the file's first bytes (`head`: tags, the first frames), its last (`tail`: an ID3v1 tag) and its `length`. */
export function mp3Seconds(head: Buffer, tail: Buffer, length: number): number | null {
  let start = 0;
  if (startsWith(head, 0, 'ID3') && head.length >= 10) {
    // A syncsafe size (7 bits a byte), after a 10-byte header, plus a 10-byte footer when flagged.
    const size = ((head[6]! & 0x7f) << 21) | ((head[7]! & 0x7f) << 14) | ((head[8]! & 0x7f) << 7) | (head[9]! & 0x7f);
    start = 10 + size + ((head[5]! & 0x10) !== 0 ? 10 : 0);
  }
  const end = tail.length >= 128 && startsWith(tail, tail.length - 128, 'TAG') ? length - 128 : length;
  const limit = Math.min(end - 4, head.length - 4, start + SYNC_SCAN_BYTES);
  for (let at = start; at <= limit; at++) {
    if (head[at] !== 0xff || (head[at + 1]! & 0xe0) !== 0xe0) continue;
    const frame = frameHeader(head.readUInt32BE(at));
    // A sync pattern in other bytes is no frame: the next frame must follow where this one ends.
    if (frame !== null && nextFrameFollows(head, at, end, frame)) return secondsFrom(head, at, end, frame);
  }
  return null;
}

function nextFrameFollows(file: Buffer, at: number, end: number, frame: FrameHeader): boolean {
  const next = at + frame.bytes;
  if (next + 4 > end) return next <= end;
  // Past what is kept of a long file (a frame straddles the head's end): taken on the first alone.
  if (next + 4 > file.length) return true;
  const following = frameHeader(file.readUInt32BE(next));
  return (file[next] === 0xff && following !== null && following.version === frame.version && following.layer === frame.layer && following.rate === frame.rate);
}

interface FrameHeader {
  /** 1 for MPEG-1, 2 for MPEG-2 and 2.5. */
  version: 1 | 2;
  layer: 1 | 2 | 3;
  kbps: number;
  rate: number;
  samplesPerFrame: number;
  mono: boolean;
  /** The frame's length, header included. */
  bytes: number;
}

function frameHeader(header: number): FrameHeader | null {
  const versionBits = (header >>> 19) & 3;
  const layerBits = (header >>> 17) & 3;
  const bitrateIndex = (header >>> 12) & 15;
  const rateIndex = (header >>> 10) & 3;
  if ((header >>> 21) !== 0x7ff || versionBits === 1 || layerBits === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return null;
  const version = versionBits === 3 ? 1 : 2;
  const layer = (4 - layerBits) as 1 | 2 | 3;
  const table = version === 1 ? layer - 1 : layer === 1 ? 3 : 4;
  const rate = SAMPLE_RATES[rateIndex]! / (versionBits === 3 ? 1 : versionBits === 2 ? 2 : 4);
  const samplesPerFrame = layer === 1 ? 384 : layer === 3 && version === 2 ? 576 : 1152;
  const kbps = BITRATES[table]![bitrateIndex]!;
  const padding = (header >>> 9) & 1;
  // Layer I counts 4-byte slots; the others bytes: samples per frame / 8 bytes at the bitrate.
  const bytes = layer === 1 ? (Math.floor((12 * kbps * 1000) / rate) + padding) * 4 : Math.floor(((samplesPerFrame / 8) * kbps * 1000) / rate) + padding;
  return { version, layer, kbps, rate, samplesPerFrame, mono: ((header >>> 6) & 3) === 3, bytes };
}

function secondsFrom(file: Buffer, at: number, end: number, frame: FrameHeader): number | null {
  // Xing/Info sits after the side information of a layer III frame; VBRI 32 bytes after the header.
  const sideInfo = frame.version === 1 ? (frame.mono ? 17 : 32) : frame.mono ? 9 : 17;
  const xing = at + 4 + sideInfo;
  if (frame.layer === 3 && (startsWith(file, xing, 'Xing') || startsWith(file, xing, 'Info')) && xing + 12 <= file.length && (file.readUInt32BE(xing + 4) & 1) !== 0) {
    return (file.readUInt32BE(xing + 8) * frame.samplesPerFrame) / frame.rate;
  }
  if (startsWith(file, at + 36, 'VBRI') && at + 36 + 18 <= file.length) return (file.readUInt32BE(at + 36 + 14) * frame.samplesPerFrame) / frame.rate;
  return ((end - at) * 8) / (frame.kbps * 1000);
}
