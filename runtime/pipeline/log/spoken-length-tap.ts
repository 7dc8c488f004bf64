// Reads how long a speech answer is as it goes to the client, for a speech model priced by the
// minute of what it says (gpt-4o-mini-tts, whose audio answer reports no tokens): of the answer only
// its first and last bytes and its length are kept (an AAC answer's frames are counted as they pass;
// PCM's bytes only counted), and its length is read from them when it ends
// (runtime/core/audio-duration). A long answer costs the tap ~200 KB, not its size.
import type { RequestRecord, TokenUsage } from '../../core/request-record.ts';
import { AdtsCounter, HEAD_BYTES, pcmSeconds, spokenSeconds, TAIL_BYTES } from '../../core/audio-duration/index.ts';
import type { BodyTap } from '../../core/body-tap.ts';
import type { UsageDone } from './usage-tap.ts';

export class SpokenLengthTap implements BodyTap {
  readonly #record: RequestRecord;
  /** The usage counted from the request (its characters), which the length joins. */
  readonly #counted: TokenUsage;
  readonly #format: string;
  readonly #done: UsageDone;
  readonly #adts: AdtsCounter | null;
  #head: Buffer[] = [];
  #headBytes = 0;
  #tail: Buffer[] = [];
  #tailBytes = 0;
  #bytes = 0;

  constructor(record: RequestRecord, counted: TokenUsage, format: string, done: UsageDone) {
    this.#record = record;
    this.#counted = counted;
    this.#format = format;
    this.#done = done;
    this.#adts = format === 'aac' ? new AdtsCounter() : null;
  }

  write(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.#bytes += bytes.length;
    if (this.#format === 'pcm') return;
    if (this.#adts !== null) {
      this.#adts.push(bytes);
      return;
    }
    if (this.#headBytes < HEAD_BYTES) {
      this.#head.push(bytes);
      this.#headBytes += bytes.length;
    }
    // A copy of a long chunk's end, so the chunk itself is not held.
    const kept = bytes.length > TAIL_BYTES ? Buffer.from(bytes.subarray(bytes.length - TAIL_BYTES)) : bytes;
    this.#tail.push(kept);
    this.#tailBytes += kept.length;
    while (this.#tailBytes - this.#tail[0]!.length >= TAIL_BYTES) this.#tailBytes -= this.#tail.shift()!.length;
  }

  end(): void {
    const seconds = this.#format === 'pcm' ? pcmSeconds(this.#bytes) : this.#adts !== null ? this.#adts.seconds() : this.#readEdges();
    this.#head = [];
    this.#tail = [];
    // What the provider generated is billed, whether or not it all reached the client: what arrived is counted.
    this.#record.usage = seconds === null ? this.#counted : { ...this.#counted, audioOutputSeconds: Math.round(seconds * 100) / 100, estimated: true };
    this.#done(this.#record);
  }

  #readEdges(): number | null {
    const head = Buffer.concat(this.#head);
    const tail = Buffer.concat(this.#tail);
    return spokenSeconds({ head, tail: tail.subarray(Math.max(0, tail.length - TAIL_BYTES)), length: this.#bytes }, this.#format);
  }

  brokeOff(): void {
    this.end();
  }
}
