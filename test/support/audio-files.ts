// Recordings of a known length in each container the transcription API takes, built byte by byte
// (silence; only the headers a length is read from are real), for tests of what reads their length.

/** A PCM WAV of `seconds` at `rate` Hz, 16-bit mono; `dataSize` overrides what the data chunk declares. */
export function wavFile(seconds: number, rate = 16_000, dataSize?: number): Buffer {
  const data = Math.round(seconds * rate) * 2;
  const head = Buffer.alloc(44);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(36 + data, 4);
  head.write('WAVE', 8, 'latin1');
  head.write('fmt ', 12, 'latin1');
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20);
  head.writeUInt16LE(1, 22);
  head.writeUInt32LE(rate, 24);
  head.writeUInt32LE(rate * 2, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write('data', 36, 'latin1');
  head.writeUInt32LE(dataSize ?? data, 40);
  return Buffer.concat([head, Buffer.alloc(data)]);
}

/** A FLAC stream of `samples` at `rate` Hz: its STREAMINFO block and a few bytes of frames. */
export function flacFile(samples: number, rate: number): Buffer {
  const file = Buffer.alloc(8 + 34 + 64);
  file.write('fLaC', 0, 'latin1');
  // The last metadata block (bit 7), type 0 (STREAMINFO), 34 bytes long.
  file[4] = 0x80;
  file.writeUIntBE(34, 5, 3);
  const info = 8;
  file.writeUInt16BE(4096, info);
  file.writeUInt16BE(4096, info + 2);
  file[info + 10] = (rate >> 12) & 0xff;
  file[info + 11] = (rate >> 4) & 0xff;
  // Rate's low 4 bits, then 1 channel (0 + 1) and 16 bits a sample (15 + 1), then samples' top 4 bits.
  file[info + 12] = ((rate & 0x0f) << 4) | (0 << 1) | 0;
  file[info + 13] = (15 << 4) | Math.floor(samples / 2 ** 32);
  file.writeUInt32BE(samples % 2 ** 32, info + 14);
  return file;
}

/** MPEG-1 layer III, 128 kbit/s, 44.1 kHz, no padding: 417 bytes and 1,152 samples a frame. */
const MP3_HEADER = 0xfffb9000;
export const MP3_FRAME_BYTES = 417;
export const MP3_FRAME_SECONDS = 1152 / 44_100;

/** `frames` MP3 frames, after an ID3v2 tag when `id3`; with a Xing header counting them when `xing`. */
export function mp3File(frames: number, options: { id3?: boolean; xing?: boolean } = {}): Buffer {
  const parts: Buffer[] = [];
  if (options.id3 === true) {
    const tag = Buffer.alloc(10 + 300);
    tag.write('ID3', 0, 'latin1');
    tag[3] = 4;
    // 300 as a syncsafe integer: 2 × 128 + 44.
    tag[8] = 2;
    tag[9] = 44;
    parts.push(tag);
  }
  for (let i = 0; i < frames; i++) {
    const frame = Buffer.alloc(MP3_FRAME_BYTES);
    frame.writeUInt32BE(MP3_HEADER, 0);
    if (i === 0 && options.xing === true) {
      // After 32 bytes of side information (MPEG-1, stereo): tag, flags (frames present), frame count.
      frame.write('Xing', 36, 'latin1');
      frame.writeUInt32BE(1, 40);
      frame.writeUInt32BE(frames, 44);
    }
    parts.push(frame);
  }
  return Buffer.concat(parts);
}

/** An M4A whose movie header says `duration` in units of `timescale` (box version 0 or 1). */
export function mp4File(duration: number, timescale: number, version: 0 | 1 = 0): Buffer {
  const box = (type: string, payload: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(8 + payload.length, 0);
    head.write(type, 4, 'latin1');
    return Buffer.concat([head, payload]);
  };
  const ftyp = box('ftyp', Buffer.from('M4A \0\0\0\0isomM4A ', 'latin1'));
  const mvhd = Buffer.alloc(version === 1 ? 112 : 100);
  mvhd[0] = version;
  if (version === 1) {
    mvhd.writeUInt32BE(timescale, 20);
    mvhd.writeBigUInt64BE(BigInt(duration), 24);
  } else {
    mvhd.writeUInt32BE(timescale, 12);
    mvhd.writeUInt32BE(duration, 16);
  }
  const mdat = box('mdat', Buffer.alloc(256));
  return Buffer.concat([ftyp, mdat, box('moov', Buffer.concat([box('mvhd', mvhd), box('trak', Buffer.alloc(32))]))]);
}

/** One page holding `packet` (at most 254 × 255 bytes), laced in 255-byte segments. */
function oggPage(serial: number, sequence: number, granule: bigint, packet: Buffer, type = 0): Buffer {
  const lacing: number[] = [];
  for (let left = packet.length; ; left -= 255) {
    lacing.push(Math.min(255, left));
    if (left < 255) break;
  }
  const head = Buffer.alloc(27 + lacing.length);
  head.write('OggS', 0, 'latin1');
  head[5] = type;
  head.writeBigInt64LE(granule, 6);
  head.writeUInt32LE(serial, 14);
  head.writeUInt32LE(sequence, 18);
  head[26] = lacing.length;
  Buffer.from(lacing).copy(head, 27);
  return Buffer.concat([head, packet]);
}

/**
 * An Ogg Opus stream whose last page ends at `seconds` (48 kHz, after a pre-skip of 312 samples),
 * with `pages` pages of audio before it; its last page holds `lastPageBytes` (up to ~64 KB, as a
 * page may).
 */
export function opusFile(seconds: number, pages = 1, lastPageBytes = 100): Buffer {
  const serial = 0x1234;
  const head = Buffer.alloc(19);
  head.write('OpusHead', 0, 'latin1');
  head[8] = 1;
  head[9] = 1;
  head.writeUInt16LE(312, 10);
  head.writeUInt32LE(48_000, 12);
  const end = BigInt(Math.round(seconds * 48_000) + 312);
  const audio = Array.from({ length: pages }, (_, i) => oggPage(serial, 2 + i, (end * BigInt(i + 1)) / BigInt(pages + 1), Buffer.alloc(250, i)));
  return Buffer.concat([oggPage(serial, 0, 0n, head, 2), oggPage(serial, 1, 0n, Buffer.from('OpusTags'), 0), ...audio, oggPage(serial, 2 + pages, end, Buffer.alloc(lastPageBytes, 3), 4)]);
}

/** An Ogg Vorbis stream at `rate` Hz whose last page ends at `samples`. */
export function vorbisFile(samples: number, rate: number): Buffer {
  const serial = 0x77;
  const id = Buffer.alloc(30);
  id[0] = 1;
  id.write('vorbis', 1, 'latin1');
  id[11] = 2;
  id.writeUInt32LE(rate, 12);
  return Buffer.concat([oggPage(serial, 0, 0n, id, 2), oggPage(serial, 1, BigInt(samples), Buffer.alloc(120), 4)]);
}

function ebml(id: number, payload: Buffer, unknownSize = false): Buffer {
  const idBytes = Buffer.from(id.toString(16).padStart(id > 0xffffff ? 8 : id > 0xffff ? 6 : id > 0xff ? 4 : 2, '0'), 'hex');
  // Sizes as 8-byte variable-length integers (0x01 marker), or the all-ones unknown size.
  const size = Buffer.alloc(8);
  size[0] = 0x01;
  if (unknownSize) size.fill(0xff, 1);
  else size.writeUIntBE(payload.length, 2, 6);
  return Buffer.concat([idBytes, size, payload]);
}

function uint(id: number, value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return ebml(id, bytes);
}

/**
 * A WebM: with `durationMs`, an Info with that Duration (TimecodeScale 1 ms); without, a browser
 * recorder's file: no Duration, segment and clusters of unknown size, one cluster a second of 20 ms
 * blocks, the last of which starts at `lastBlockMs`.
 */
export function webmFile(options: { durationMs: number } | { lastBlockMs: number }): Buffer {
  const header = ebml(0x1a45dfa3, Buffer.concat([ebml(0x4282, Buffer.from('webm'))]));
  if ('durationMs' in options) {
    const duration = Buffer.alloc(8);
    duration.writeDoubleBE(options.durationMs);
    const info = ebml(0x1549a966, Buffer.concat([uint(0x2ad7b1, 1_000_000), ebml(0x4489, duration)]));
    return Buffer.concat([header, ebml(0x18538067, Buffer.concat([info, ebml(0x1f43b675, Buffer.concat([uint(0xe7, 0), block(0)]))]))]);
  }
  const clusters: Buffer[] = [];
  for (let second = 0; second * 1000 <= options.lastBlockMs; second++) {
    const blocks: Buffer[] = [uint(0xe7, second * 1000)];
    for (let ms = 0; ms < 1000 && second * 1000 + ms <= options.lastBlockMs; ms += 20) blocks.push(block(ms));
    clusters.push(ebml(0x1f43b675, Buffer.concat(blocks), true));
  }
  const info = ebml(0x1549a966, Buffer.concat([uint(0x2ad7b1, 1_000_000), ebml(0x4d80, Buffer.from('recorder'))]));
  return Buffer.concat([header, ebml(0x18538067, Buffer.concat([info, ...clusters]), true)]);
}

/** A SimpleBlock of track 1 at `ms` into its cluster, keyframe, with a few bytes of audio. */
function block(ms: number): Buffer {
  const payload = Buffer.alloc(4 + 40);
  payload[0] = 0x81;
  payload.writeInt16BE(ms, 1);
  payload[3] = 0x80;
  return ebml(0xa3, payload);
}

/** AAC in `frames` ADTS frames at 24 kHz (1,024 samples each), of 200 bytes each. */
export function adtsFile(frames: number): Buffer {
  const frame = Buffer.alloc(200);
  // Sync, MPEG-4, layer 0, no CRC; AAC LC, 24 kHz (index 6), mono; the frame length; one raw block.
  frame[0] = 0xff;
  frame[1] = 0xf1;
  frame[2] = (1 << 6) | (6 << 2);
  frame[3] = (1 << 6) | ((200 >> 11) & 0x03);
  frame[4] = (200 >> 3) & 0xff;
  frame[5] = ((200 & 0x07) << 5) | 0x1f;
  frame[6] = 0xfc;
  return Buffer.concat(Array.from({ length: frames }, () => frame));
}
