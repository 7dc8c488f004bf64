// Cloud B's embeddings answer (`:predict` on a text embedding model) reports no usage object: each
// prediction carries its input's count, `{"embeddings": {"statistics": {"token_count": 6, …},
// "values": […]}}`, and the call's usage is their sum. An answer of 250 inputs of 768 dimensions is
// megabytes of numbers, more than the JSON tap keeps whole, so the counts are summed as the bytes go
// by: a native search for the member's name in each chunk, and a short carry of the chunk's end for
// a name or number cut between chunks. No other member of the answer has that name (its other
// members are vectors, flags and ids).
import type { TokenUsage } from '../../core/request-record.ts';

const NAME = Buffer.from('"token_count"');
/** What a chunk's end keeps for the next: the longest name, colon and number the service writes, with room for spaces. */
const CARRY_BYTES = 64;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= 0x30 && byte <= 0x39;
}

export class PredictTokenCounts {
  #carry: Buffer | null = null;
  #tokens = 0;
  #found = false;

  write(chunk: Buffer): void {
    const bytes = this.#carry === null ? chunk : Buffer.concat([this.#carry, chunk]);
    let from = 0;
    // Where the unread rest begins: past the last whole count, or the end less the carry.
    let read = 0;
    for (;;) {
      const at = bytes.indexOf(NAME, from);
      if (at === -1) break;
      let i = at + NAME.length;
      while (isSpace(bytes[i])) i++;
      if (i >= bytes.length) {
        read = at;
        break;
      }
      if (bytes[i] !== 0x3a) {
        from = read = i;
        continue;
      }
      i++;
      while (isSpace(bytes[i])) i++;
      const start = i;
      while (isDigit(bytes[i])) i++;
      // The number may go on in the next chunk.
      if (i >= bytes.length) {
        read = at;
        break;
      }
      // A count past 2^53 (hundreds of digits: Infinity) is no count a service reports: left out.
      const tokens = i > start ? Number(bytes.toString('latin1', start, i)) : NaN;
      if (Number.isSafeInteger(tokens)) {
        this.#tokens += tokens;
        this.#found = true;
      }
      from = read = i;
    }
    const rest = Math.max(read, bytes.length - CARRY_BYTES);
    this.#carry = rest >= bytes.length ? null : Buffer.from(bytes.subarray(rest));
  }

  /** The summed counts as the call's input; null when no prediction carried one. */
  usage(): TokenUsage | null {
    if (!this.#found) return null;
    return { inputTokens: this.#tokens, outputTokens: 0, cachedInputTokens: 0, totalTokens: this.#tokens, estimated: false };
  }
}
