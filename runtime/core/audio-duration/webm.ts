// WebM (Matroska): the segment's Info element may hold a Duration (in units of its TimecodeScale,
// 1 ms unless it says). A browser's MediaRecorder writes none (and sizes it cannot know as
// "unknown"), so then the end is read from the last cluster: its Timecode plus its last block's.
/** EBML element IDs (with their length marker bits, as written). */
const SEGMENT = 0x18538067;
const INFO = 0x1549a966;
const TIMECODE_SCALE = 0x2ad7b1;
const DURATION = 0x4489;
const CLUSTER = 0x1f43b675;
const CLUSTER_TIMECODE = 0xe7;
const SIMPLE_BLOCK = 0xa3;
const BLOCK_GROUP = 0xa0;
const BLOCK = 0xa1;
const DEFAULT_TIMECODE_SCALE = 1_000_000;
/** How far back from the end the last cluster is looked for. */
const LAST_CLUSTER_SCAN_BYTES = 8 * 1024 * 1024;

interface Element {
  id: number;
  /** Where its payload starts. */
  start: number;
  /** Where it ends: the file's end for an element of unknown size. */
  end: number;
}

export function webmSeconds(file: Buffer): number | null {
  const header = element(file, 0, file.length);
  if (header === null) return null;
  const segment = element(file, header.end, file.length);
  if (segment === null || segment.id !== SEGMENT) return null;
  let scale = DEFAULT_TIMECODE_SCALE;
  let duration: number | null = null;
  for (let at = segment.start; at < segment.end; ) {
    const child = element(file, at, segment.end);
    if (child === null) break;
    if (child.id === INFO) {
      for (let i = child.start; i < child.end; ) {
        const field = element(file, i, child.end);
        if (field === null) break;
        if (field.id === TIMECODE_SCALE) scale = readUint(file, field);
        if (field.id === DURATION) duration = readFloat(file, field);
        i = field.end;
      }
      break;
    }
    // The Info comes before the first cluster; an element of unknown size ends the walk.
    if (child.id === CLUSTER || child.end >= segment.end) break;
    at = child.end;
  }
  const ticks = duration !== null && duration > 0 ? duration : lastClusterEnd(file, segment.start);
  return ticks === null || scale <= 0 ? null : (ticks * scale) / 1e9;
}

/** The last cluster's Timecode plus the largest relative timecode of its blocks, in ticks; null when none is found. */
function lastClusterEnd(file: Buffer, from: number): number | null {
  const id = Buffer.alloc(4);
  id.writeUInt32BE(CLUSTER);
  const floor = Math.max(from, file.length - LAST_CLUSTER_SCAN_BYTES);
  for (let at = file.lastIndexOf(id); at >= floor; at = at === 0 ? -1 : file.lastIndexOf(id, at - 1)) {
    const cluster = element(file, at, file.length);
    // Four bytes that only look like a cluster's ID (inside a block) have no Timecode first.
    const first = cluster === null ? null : element(file, cluster.start, cluster.end);
    if (cluster === null || cluster.id !== CLUSTER || first === null || first.id !== CLUSTER_TIMECODE) continue;
    let last = 0;
    for (let i = first.end; i < cluster.end; ) {
      const child = element(file, i, cluster.end);
      if (child === null) break;
      if (child.id === SIMPLE_BLOCK) last = Math.max(last, blockTimecode(file, child));
      else if (child.id === BLOCK_GROUP) {
        const block = element(file, child.start, child.end);
        if (block !== null && block.id === BLOCK) last = Math.max(last, blockTimecode(file, block));
      } else if (child.id === CLUSTER) break;
      i = child.end;
    }
    return readUint(file, first) + last;
  }
  return null;
}

/** A block's timecode relative to its cluster: a signed 16-bit value after its track number. */
function blockTimecode(file: Buffer, block: Element): number {
  const track = vintLength(file[block.start]!);
  const at = block.start + track;
  return track === 0 || at + 2 > block.end ? 0 : file.readInt16BE(at);
}

/** The element at `at` (its ID and size read as EBML variable-length integers), or null when it does not fit in [at, limit). */
function element(file: Buffer, at: number, limit: number): Element | null {
  if (at >= limit) return null;
  const idLength = vintLength(file[at]!);
  if (idLength === 0 || idLength > 4 || at + idLength >= limit) return null;
  let id = 0;
  for (let i = 0; i < idLength; i++) id = id * 256 + file[at + i]!;
  const sizeAt = at + idLength;
  const sizeLength = vintLength(file[sizeAt]!);
  if (sizeLength === 0 || sizeAt + sizeLength > limit) return null;
  let size = file[sizeAt]! & (0xff >> sizeLength);
  let unknown = size === 0xff >> sizeLength;
  for (let i = 1; i < sizeLength; i++) {
    size = size * 256 + file[sizeAt + i]!;
    if (file[sizeAt + i] !== 0xff) unknown = false;
  }
  const start = sizeAt + sizeLength;
  return { id, start, end: unknown ? limit : Math.min(limit, start + size) };
}

/** Bytes of an EBML variable-length integer from its first byte: its leading zeros plus one; 0 when invalid. */
function vintLength(first: number): number {
  for (let length = 1; length <= 8; length++) if ((first & (0x100 >> length)) !== 0) return length;
  return 0;
}

function readUint(file: Buffer, field: Element): number {
  let value = 0;
  for (let i = field.start; i < field.end && i < field.start + 8; i++) value = value * 256 + file[i]!;
  return value;
}

function readFloat(file: Buffer, field: Element): number | null {
  const size = field.end - field.start;
  if (size === 4) return file.readFloatBE(field.start);
  if (size === 8) return file.readDoubleBE(field.start);
  return null;
}
