import { parseJson } from '../../../compiler/config/json-parse.ts';
// Reading one top-level member of a JSON object without parsing the whole text: one linear scan
// that tracks strings and nesting, then JSON.parse of that member's value alone. Used on every
// metered answer (`usage`, `model`) and on request bodies the route did not parse (`model`), where
// a full parse would cost several microseconds per request. A member at the end (`usage`) is found
// from the end instead (peekTrailingMember), so a long answer is not scanned byte by byte; a short
// answer's `model` and `usage` take one scan together (peekLeadingAndTrailing).
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Keys one scan reads at most: each is a bit of a 32-bit integer. */
const MAX_KEYS = 30;

/** The value of the top-level `key` of the JSON object in `body[0, limit)`; undefined when absent or unreadable. */
export function peekMember(body: Buffer, key: string, limit = body.length): unknown {
  return peekMembers(body, [key], limit)[0];
}

/**
 * The values of several top-level members in one scan, in the order of `keys` (each undefined when
 * absent or unreadable; a key the text holds twice counts where it first appears, a key asked for
 * twice gets the value twice). The scan ends once every key was seen.
 */
export function peekMembers(body: Buffer, keys: readonly string[], limit = body.length): unknown[] {
  const end = Math.min(body.length, limit);
  if (keys.length > MAX_KEYS) throw new RangeError(`peekMembers reads at most ${MAX_KEYS} keys in one scan`);
  const values: unknown[] = new Array(keys.length).fill(undefined);
  const utf8 = utf8Names(keys);
  // Bit k set: keys[k] was read.
  let found = 0;
  const all = (1 << keys.length) - 1;
  let depth = 0;
  let i = 0;
  while (i < end) {
    const c = body[i];
    if (c === QUOTE) {
      const close = stringEnd(body, i + 1, end);
      if (close === -1) return values;
      const wanted = depth === 1 ? nameAt(body, keys, utf8, found, i + 1, close) : -1;
      if (wanted !== -1) {
        const colon = skipSpace(body, close + 1, end);
        if (body[colon] === 0x3a) {
          const start = skipSpace(body, colon + 1, end);
          const stop = valueEnd(body, start, end);
          if (stop === -1) return values;
          const value = parseRange(body, start, stop);
          // `wanted` is the first index asking for this key; any later one asks for it again.
          for (let k = wanted; k < keys.length; k++) {
            if ((found & (1 << k)) !== 0 || keys[k] !== keys[wanted]) continue;
            values[k] = value;
            found |= 1 << k;
          }
          if ((found & all) === all) return values;
          // Past the value: nothing inside it is a top-level member.
          i = stop;
          continue;
        }
      }
      i = close + 1;
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    i++;
  }
  return values;
}

/**
 * The UTF-8 bytes of each key that is not ASCII (null for an ASCII one), or null when all are ASCII:
 * the usual case (`model`, `usage`) compares the key's own characters and allocates nothing.
 */
function utf8Names(keys: readonly string[]): (Buffer | null)[] | null {
  let encoded: (Buffer | null)[] | null = null;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k];
    for (let j = 0; j < key.length; j++) {
      if (key.charCodeAt(j) > 0x7f) {
        encoded ??= new Array<Buffer | null>(keys.length).fill(null);
        encoded[k] = Buffer.from(key);
        break;
      }
    }
  }
  return encoded;
}

/** Which of the keys not yet `found` the string `body[from, to)` is, by its bytes; -1 for none. */
function nameAt(body: Buffer, keys: readonly string[], utf8: readonly (Buffer | null)[] | null, found: number, from: number, to: number): number {
  for (let k = 0; k < keys.length; k++) {
    if ((found & (1 << k)) !== 0) continue;
    const bytes = utf8 === null ? null : utf8[k];
    if (bytes === null ? to - from === keys[k].length && sameChars(body, from, keys[k]) : to - from === bytes.length && sameBytes(body, from, bytes)) return k;
  }
  return -1;
}

/** True when `body` holds the ASCII `key` at `from`. A loop, not a comparison in C++: names are a few bytes, and the call would cost more. */
function sameChars(body: Buffer, from: number, key: string): boolean {
  for (let j = 0; j < key.length; j++) if (body[from + j] !== key.charCodeAt(j)) return false;
  return true;
}

function sameBytes(body: Buffer, from: number, name: Buffer): boolean {
  for (let j = 0; j < name.length; j++) if (body[from + j] !== name[j]) return false;
  return true;
}

/**
 * A member usually near the start of an answer (`model`) and one usually at its end (`usage`): one
 * scan of a short body for both, and in a long one the forward scan for the first (it stops there)
 * and the search from the end for the second.
 */
export function peekLeadingAndTrailing(body: Buffer, leading: string, trailing: string): [unknown, unknown] {
  if (body.length < LONG_BODY_BYTES) {
    const values = peekMembers(body, [leading, trailing]);
    return [values[0], values[1]];
  }
  return [peekMember(body, leading), peekTrailingMember(body, trailing)];
}

/**
 * The value of the top-level `key` when it is most likely near the end of the object (`usage` in a
 * chat answer comes after `choices`, which hold the whole generated text). In a long answer it is
 * looked for in the last TAIL_BYTES only, then confirmed as a top-level member by scanning what
 * follows its value. Anything else (a short answer, the key earlier in the answer, nested, escaped,
 * text that is not JSON) takes the forward scan of peekMember, so the answer is the same, only
 * cheaper on long bodies.
 */
export function peekTrailingMember(body: Buffer, key: string): unknown {
  if (body.length < LONG_BODY_BYTES) return peekMember(body, key);
  return peekMemberInTail(body, key, body.length - TAIL_BYTES) ?? peekMember(body, key);
}

/**
 * The value of the top-level `key` whose last occurrence starts at or after `from`, read from
 * `tail`, the end of a JSON object (or all of it): found when what follows the value closes exactly
 * one object and ends, so the member is the outermost object's whatever came before the tail (an
 * answer too long to keep whole has its `usage` read this way). Undefined when not found so.
 */
export function peekMemberInTail(tail: Buffer, key: string, from = 0): unknown {
  const needle = Buffer.from(`"${key}"`);
  // Forward searches: Buffer's backwards search is several times slower per byte.
  let at = -1;
  for (let i = tail.indexOf(needle, Math.max(0, from)); i !== -1; i = tail.indexOf(needle, i + 1)) at = i;
  if (at === -1) return undefined;
  const before = skipSpaceBack(tail, at - 1);
  const colon = skipSpace(tail, at + needle.length, tail.length);
  if (before < 0 || (tail[before] !== 0x7b && tail[before] !== 0x2c) || tail[colon] !== 0x3a) return undefined;
  const start = skipSpace(tail, colon + 1, tail.length);
  const stop = valueEnd(tail, start, tail.length);
  return stop !== -1 && closesTopLevel(tail, stop) ? parseRange(tail, start, stop) : undefined;
}

/**
 * Below this the forward scan costs about what a native search and the checks around it do
 * (measured: ~0.8 µs for a 284-byte answer, ~1.6 µs for 723 bytes pretty-printed).
 */
const LONG_BODY_BYTES = 2048;
/**
 * How far from the end a long answer is searched: a vendor's `usage` and what follows it
 * (`service_tier`, `system_fingerprint`) stay well within it even pretty-printed.
 */
const TAIL_BYTES = 1024;

/** True when the text from `from` on closes exactly one object and then ends (whitespace aside). */
function closesTopLevel(body: Buffer, from: number): boolean {
  let depth = 0;
  for (let i = from; i < body.length; i++) {
    const c = body[i];
    if (c === QUOTE) {
      const close = stringEnd(body, i + 1, body.length);
      if (close === -1) return false;
      i = close;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth === -1) return c === 0x7d && skipSpace(body, i + 1, body.length) === body.length;
    }
  }
  return false;
}

function skipSpaceBack(body: Buffer, from: number): number {
  let i = from;
  while (i >= 0 && (body[i] === 0x20 || body[i] === 0x0a || body[i] === 0x0d || body[i] === 0x09)) i--;
  return i;
}

/** Parses `body[start, stop)`, a value whose end is already known; undefined when it is not JSON. */
function parseRange(body: Buffer, start: number, stop: number): unknown {
  try {
    return parseJson(body.toString('utf8', start, stop));
  } catch {
    return undefined;
  }
}

/** One past the last byte of the value starting at `start`; -1 when it does not end before `end`. */
function valueEnd(body: Buffer, start: number, end: number): number {
  const first = body[start];
  if (first === QUOTE) {
    const close = stringEnd(body, start + 1, end);
    return close === -1 ? -1 : close + 1;
  }
  if (first === 0x7b || first === 0x5b) {
    let depth = 0;
    for (let i = start; i < end; i++) {
      const c = body[i];
      if (c === QUOTE) {
        const close = stringEnd(body, i + 1, end);
        if (close === -1) return -1;
        i = close;
      } else if (c === 0x7b || c === 0x5b) depth++;
      else if ((c === 0x7d || c === 0x5d) && --depth === 0) return i + 1;
    }
    return -1;
  }
  for (let i = start; i < end; i++) {
    const c = body[i];
    if (c === 0x2c || c === 0x7d || c === 0x5d || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) return i;
  }
  return end;
}

function stringEnd(body: Buffer, from: number, end: number): number {
  for (let i = from; i < end; i++) {
    const c = body[i];
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
  return -1;
}

function skipSpace(body: Buffer, from: number, end: number): number {
  let i = from;
  while (i < end && (body[i] === 0x20 || body[i] === 0x0a || body[i] === 0x0d || body[i] === 0x09)) i++;
  return i;
}
