// Reading one top-level member of a JSON object without parsing the whole text: one linear scan
// that tracks strings and nesting, then JSON.parse of that member's value alone. Used on every
// metered answer (`usage`, `model`) and on request bodies the route did not parse (`model`), where
// a full parse would cost several microseconds per request.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The value of the top-level `key` of the JSON object in `body[0, limit)`; undefined when absent or unreadable. */
export function peekMember(body: Buffer, key: string, limit = body.length): unknown {
  const end = Math.min(body.length, limit);
  const name = Buffer.from(key);
  let depth = 0;
  let i = 0;
  while (i < end) {
    const c = body[i];
    if (c === QUOTE) {
      const close = stringEnd(body, i + 1, end);
      if (close === -1) return undefined;
      if (depth === 1 && close - i - 1 === name.length && body.compare(name, 0, name.length, i + 1, close) === 0) {
        const start = skipSpace(body, close + 1, end);
        if (body[start] === 0x3a) return valueAt(body, skipSpace(body, start + 1, end), end);
      }
      i = close + 1;
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    i++;
  }
  return undefined;
}

/** Parses the JSON value starting at `start` (an object, array, string or scalar). */
function valueAt(body: Buffer, start: number, end: number): unknown {
  const stop = valueEnd(body, start, end);
  if (stop === -1) return undefined;
  try {
    return JSON.parse(body.toString('utf8', start, stop));
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
