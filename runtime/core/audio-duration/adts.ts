// AAC in ADTS frames (what a speech answer asked for as `aac` is): each frame's header gives its
// length and sample rate, and holds 1,024 samples a raw block. The frames are counted as the bytes
// pass, in chunks of any size, so an answer need not be kept to know its length.
const SAMPLE_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];
const SAMPLES_PER_BLOCK = 1024;
const HEADER_BYTES = 7;

export class AdtsCounter {
  #blocks = 0;
  #rate = 0;
  /** Bytes of the current frame still to pass before the next header. */
  #skip = 0;
  readonly #header = Buffer.alloc(HEADER_BYTES);
  #headerBytes = 0;
  #broken = false;

  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length && !this.#broken) {
      if (this.#skip > 0) {
        const skipped = Math.min(this.#skip, chunk.length - at);
        this.#skip -= skipped;
        at += skipped;
        continue;
      }
      const taken = Math.min(HEADER_BYTES - this.#headerBytes, chunk.length - at);
      chunk.copy(this.#header, this.#headerBytes, at, at + taken);
      this.#headerBytes += taken;
      at += taken;
      if (this.#headerBytes < HEADER_BYTES) return;
      this.#headerBytes = 0;
      this.#frame();
    }
  }

  #frame(): void {
    const h = this.#header;
    const rateIndex = (h[2]! >> 2) & 0x0f;
    const length = ((h[3]! & 0x03) << 11) | (h[4]! << 3) | (h[5]! >> 5);
    if (h[0] !== 0xff || (h[1]! & 0xf6) !== 0xf0 || rateIndex >= SAMPLE_RATES.length || length < HEADER_BYTES) {
      this.#broken = true;
      return;
    }
    this.#rate = SAMPLE_RATES[rateIndex]!;
    this.#blocks += (h[6]! & 0x03) + 1;
    this.#skip = length - HEADER_BYTES;
  }

  /** Seconds of the frames counted; null when the bytes were not ADTS or held no frame. */
  seconds(): number | null {
    return this.#broken || this.#blocks === 0 ? null : (this.#blocks * SAMPLES_PER_BLOCK) / this.#rate;
  }
}

export function adtsSeconds(file: Buffer): number | null {
  const counter = new AdtsCounter();
  counter.push(file);
  return counter.seconds();
}
