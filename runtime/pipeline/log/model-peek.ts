// The requested model of a body the route did not parse: the top-level "model" string, found by one
// linear scan that tracks strings and nesting (a "model" key inside a message or a tool schema is
// not it). Null when absent, not a string, or the body is not a JSON object.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_SCAN = 64 * 1024;

export function peekModel(body: Buffer): string | null {
  const end = Math.min(body.length, MAX_SCAN);
  let depth = 0;
  let i = 0;
  while (i < end) {
    const c = body[i];
    if (c === QUOTE) {
      const close = stringEnd(body, i + 1, end);
      if (close === -1) return null;
      if (depth === 1 && close - i - 1 === 5 && body.toString('latin1', i + 1, close) === 'model') {
        const value = valueAfterKey(body, close + 1, end);
        if (value !== undefined) return value;
      }
      i = close + 1;
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    i++;
  }
  return null;
}

function stringEnd(body: Buffer, from: number, end: number): number {
  for (let i = from; i < end; i++) {
    const c = body[i];
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
  return -1;
}

/** After a key's closing quote: `: "value"` → the value; undefined when the key is not followed by a colon (it was a value). */
function valueAfterKey(body: Buffer, from: number, end: number): string | null | undefined {
  let i = skipSpace(body, from, end);
  if (body[i] !== 0x3a) return undefined;
  i = skipSpace(body, i + 1, end);
  if (body[i] !== QUOTE) return null;
  const close = stringEnd(body, i + 1, end);
  if (close === -1) return null;
  try {
    return JSON.parse(body.toString('utf8', i, close + 1)) as string;
  } catch {
    return null;
  }
}

function skipSpace(body: Buffer, from: number, end: number): number {
  let i = from;
  while (i < end && (body[i] === 0x20 || body[i] === 0x0a || body[i] === 0x0d || body[i] === 0x09)) i++;
  return i;
}
