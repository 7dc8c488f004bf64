// The text messages of one direction of a WebSocket connection (RFC 6455 §5), read from its bytes as
// they go by: what the request log reads a realtime session's usage from. A message is kept only up
// to a size; a longer one (or a binary one) is skipped as it streams past, never held, and a frame
// is never waited for whole: a session's audio goes by in large frames. Control frames, which may
// sit between a message's fragments, are skipped too, or told to a listener (the mock provider's
// realtime API answers pings and closes: runtime/cli/mock-realtime.ts).

/** The state of the frame whose bytes come next. */
const HEAD = 0;
const PAYLOAD = 1;

const OPCODE_CONTINUATION = 0x0;
const OPCODE_TEXT = 0x1;

export class WebSocketTextMessages {
  readonly #maxBytes: number;
  #state = HEAD;
  /** A frame head split across chunks: its bytes so far (at most 14). */
  #head: number[] = [];
  /** Of the frame in progress: payload bytes still to come, its mask (null: unmasked), and how far into it. */
  #remaining = 0;
  #mask: Buffer | null = null;
  #maskOffset = 0;
  #fin = false;
  /** Whether this frame's payload belongs to a data message (not a control frame). */
  #dataFrame = false;
  /** The text message being gathered: its parts so far, and their length; null while none is (or it is skipped). */
  #parts: Buffer[] | null = null;
  #bytes = 0;
  /** The messages completed during the current push. */
  #done: Buffer[] = [];
  readonly #onControl: ControlListener | null;
  /** The control frame in progress: its opcode, and its payload so far (at most 125 bytes) when a listener wants it. */
  #opcode = 0;
  #control: Buffer[] = [];

  /** `maxBytes`: a text message longer than this is skipped. `onControl`: told each control frame (close, ping, pong) with its payload. */
  constructor(maxBytes: number, onControl: ControlListener | null = null) {
    this.#maxBytes = maxBytes;
    this.#onControl = onControl;
  }

  /** The text messages `chunk` completes, as their UTF-8 bytes (the result is not to be changed). */
  push(chunk: Buffer): readonly Buffer[] {
    let at = 0;
    while (at < chunk.length) {
      if (this.#state === HEAD) {
        at = this.#readHead(chunk, at);
        continue;
      }
      const take = Math.min(this.#remaining, chunk.length - at);
      if (this.#dataFrame && this.#parts !== null) this.#keep(chunk.subarray(at, at + take));
      else if (!this.#dataFrame && this.#onControl !== null) this.#control.push(this.#unmasked(chunk.subarray(at, at + take)));
      at += take;
      this.#remaining -= take;
      if (this.#remaining === 0) this.#frameDone();
    }
    if (this.#done.length === 0) return NONE;
    const done = this.#done;
    this.#done = [];
    return done;
  }

  /** Reads head bytes from `at`; returns where the head's reading stopped. */
  #readHead(chunk: Buffer, at: number): number {
    const head = this.#head;
    while (at < chunk.length) {
      head.push(chunk[at++]);
      const needed = headLength(head);
      if (needed === null || head.length < needed) continue;
      this.#startFrame(head);
      this.#head = [];
      if (this.#remaining === 0) this.#frameDone();
      return at;
    }
    return at;
  }

  #startFrame(head: number[]): void {
    const opcode = head[0] & 0x0f;
    const masked = (head[1] & 0x80) !== 0;
    let length = head[1] & 0x7f;
    let offset = 2;
    if (length === 126) {
      length = (head[2] << 8) | head[3];
      offset = 4;
    } else if (length === 127) {
      // A JavaScript number holds any length a frame can really have (2^53).
      length = 0;
      for (let i = 2; i < 10; i++) length = length * 256 + head[i];
      offset = 10;
    }
    this.#fin = (head[0] & 0x80) !== 0;
    this.#remaining = length;
    this.#mask = masked ? Buffer.from(head.slice(offset, offset + 4)) : null;
    this.#maskOffset = 0;
    this.#dataFrame = opcode < 0x8;
    this.#opcode = opcode;
    if (opcode === OPCODE_TEXT) {
      this.#parts = [];
      this.#bytes = 0;
    } else if (opcode !== OPCODE_CONTINUATION && this.#dataFrame) {
      // A binary message (or an opcode no one defined): nothing of it is kept.
      this.#parts = null;
    }
    this.#state = PAYLOAD;
  }

  #keep(bytes: Buffer): void {
    this.#bytes += bytes.length;
    if (this.#bytes > this.#maxBytes) {
      this.#parts = null;
      return;
    }
    this.#parts!.push(this.#unmasked(bytes));
  }

  /** A copy of payload bytes (the chunk is the socket's, which may reuse its memory), unmasked. */
  #unmasked(bytes: Buffer): Buffer {
    const mask = this.#mask;
    if (mask === null) return Buffer.from(bytes);
    const part = Buffer.allocUnsafe(bytes.length);
    for (let i = 0; i < bytes.length; i++) part[i] = bytes[i] ^ mask[(this.#maskOffset + i) & 3];
    this.#maskOffset = (this.#maskOffset + bytes.length) & 3;
    return part;
  }

  #frameDone(): void {
    this.#state = HEAD;
    if (!this.#dataFrame && this.#onControl !== null) {
      const payload = Buffer.concat(this.#control);
      this.#control = [];
      this.#onControl(this.#opcode, payload);
      return;
    }
    if (!this.#dataFrame || !this.#fin) return;
    const parts = this.#parts;
    this.#parts = null;
    if (parts === null) return;
    this.#done.push(parts.length === 1 ? parts[0] : Buffer.concat(parts));
  }
}

const NONE: readonly Buffer[] = [];

/** Told a control frame: its opcode (0x8 close, 0x9 ping, 0xA pong) and its payload. */
export type ControlListener = (opcode: number, payload: Buffer) => void;

/** How long a frame head is, once its first two bytes are known: 2, 4 or 10 bytes, and 4 more for a mask. */
function headLength(head: number[]): number | null {
  if (head.length < 2) return null;
  const length = head[1] & 0x7f;
  const masked = (head[1] & 0x80) !== 0 ? 4 : 0;
  return (length === 126 ? 4 : length === 127 ? 10 : 2) + masked;
}
