// Cloud B's `:predict` answers report no usage object. Its embeddings (a text embedding model's): each
// prediction carries its input's count, `{"embeddings": {"statistics": {"token_count": 6, …},
// "values": […]}}`, and the call's usage is their sum; the answer's `metadata` counts the characters
// the older models bill by (`"billableCharacterCount": 31`). An answer of 250 inputs of 768
// dimensions is megabytes of numbers, more than the JSON tap keeps whole, so the counts are summed as
// the bytes go by: a native search for the member's name in each chunk, and a short carry of the
// chunk's end for a name or number cut between chunks. No other member of the answer has either name
// (its other members are vectors, flags and ids).
import type { TokenUsage } from '../../core/request-record.ts';

/** What a chunk's end keeps for the next: the longest name, colon and number the service writes, with room for spaces. */
const CARRY_BYTES = 64;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= 0x30 && byte <= 0x39;
}

/** The sum of every count a member of one name holds, read as the bytes go by. */
class MemberCountSum {
  readonly #name: Buffer;
  #carry: Buffer | null = null;
  sum = 0;
  found = false;

  constructor(name: string) {
    this.#name = Buffer.from(JSON.stringify(name));
  }

  write(chunk: Buffer): void {
    const bytes = this.#carry === null ? chunk : Buffer.concat([this.#carry, chunk]);
    const name = this.#name;
    let from = 0;
    // Where the unread rest begins: past the last whole count, or the end less the carry.
    let read = 0;
    for (;;) {
      const at = bytes.indexOf(name, from);
      if (at === -1) break;
      let i = at + name.length;
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
      const count = i > start ? Number(bytes.toString('latin1', start, i)) : NaN;
      if (Number.isSafeInteger(count)) {
        this.sum += count;
        this.found = true;
      }
      from = read = i;
    }
    const rest = Math.max(read, bytes.length - CARRY_BYTES);
    this.#carry = rest >= bytes.length ? null : Buffer.from(bytes.subarray(rest));
  }
}

export class PredictTokenCounts {
  readonly #tokens = new MemberCountSum('token_count');
  readonly #characters = new MemberCountSum('billableCharacterCount');

  write(chunk: Buffer): void {
    this.#tokens.write(chunk);
    this.#characters.write(chunk);
  }

  /** The summed counts as the call's input, with the billed characters where the answer counted them; null when no prediction carried a count. */
  usage(): TokenUsage | null {
    if (!this.#tokens.found) return null;
    const tokens = this.#tokens.sum;
    const usage: TokenUsage = { inputTokens: tokens, outputTokens: 0, cachedInputTokens: 0, totalTokens: tokens, estimated: false };
    if (this.#characters.found) usage.inputCharacters = this.#characters.sum;
    return usage;
  }
}

/**
 * Cloud B's image generation (`:predict` on an Imagen model) is billed per image, and reports no
 * count: each image is a prediction with its bytes (`bytesBase64Encoded`) or, written to storage, its
 * `gcsUri`; an image the service's filter withheld is a prediction with its reason only, not billed.
 * The images are counted as the answer goes by (megabytes of base64, whose alphabet has no quote, so
 * no image's bytes read as a name), a chunk's end carried for a name cut between chunks (a name
 * wholly in the carry was counted with the chunk before).
 */
export class PredictImageCount {
  static readonly #NAMES = [Buffer.from('"bytesBase64Encoded"'), Buffer.from('"gcsUri"')];
  static readonly #CARRY = Math.max(...PredictImageCount.#NAMES.map((name) => name.length)) - 1;
  #carry: Buffer | null = null;
  #images = 0;

  write(chunk: Buffer): void {
    const carried = this.#carry?.length ?? 0;
    const bytes = this.#carry === null ? chunk : Buffer.concat([this.#carry, chunk]);
    for (const name of PredictImageCount.#NAMES) {
      for (let at = bytes.indexOf(name); at !== -1; at = bytes.indexOf(name, at + name.length)) if (at + name.length > carried) this.#images++;
    }
    this.#carry = Buffer.from(bytes.subarray(Math.max(0, bytes.length - PredictImageCount.#CARRY)));
  }

  /** The images the answer carried, as the call's usage (no tokens). */
  usage(): TokenUsage {
    return { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, totalTokens: 0, images: this.#images, estimated: false };
  }
}
