// Reads how long a speech answer is as it goes to the client, for a speech model priced by the
// minute of what it says (gpt-4o-mini-tts, whose audio answer reports no tokens): the answer's bytes
// are kept until it ends (PCM's only counted) and its length read from its headers
// (runtime/core/audio-duration). Bounded: past MAX_SPOKEN_BYTES the length is not read.
import type { RequestRecord, TokenUsage } from '../../core/request-record.ts';
import { pcmSeconds, spokenSeconds } from '../../core/audio-duration/index.ts';
import type { BodyTap } from '../body-tap.ts';
import type { UsageDone } from './usage-tap.ts';

/** Minutes of the longest speech the API makes (4,096 characters) fit in a fraction of this. */
const MAX_SPOKEN_BYTES = 64 * 1024 * 1024;

export class SpokenLengthTap implements BodyTap {
  readonly #record: RequestRecord;
  /** The usage counted from the request (its characters), which the length joins. */
  readonly #counted: TokenUsage;
  readonly #format: string;
  readonly #done: UsageDone;
  #chunks: Buffer[] | null = [];
  #bytes = 0;

  constructor(record: RequestRecord, counted: TokenUsage, format: string, done: UsageDone) {
    this.#record = record;
    this.#counted = counted;
    this.#format = format;
    this.#done = done;
  }

  write(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.#bytes += bytes.length;
    if (this.#chunks === null || this.#format === 'pcm') return;
    if (this.#bytes > MAX_SPOKEN_BYTES) this.#chunks = null;
    else this.#chunks.push(bytes);
  }

  end(): void {
    const chunks = this.#chunks;
    this.#chunks = null;
    const seconds = this.#format === 'pcm' ? pcmSeconds(this.#bytes) : chunks === null ? null : spokenSeconds(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), this.#format);
    // What the provider generated is billed, whether or not it all reached the client: what arrived is counted.
    this.#record.usage = seconds === null ? this.#counted : { ...this.#counted, audioOutputSeconds: Math.round(seconds * 100) / 100, estimated: true };
    this.#done(this.#record);
  }

  brokeOff(): void {
    this.end();
  }
}
