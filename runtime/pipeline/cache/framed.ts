// One byte form for what the cache keeps in Redis (a stored answer, a semantic vector): a JSON head
// line, a newline, then raw bytes. JSON.stringify escapes every newline inside strings, so the first
// raw newline ends the head.

const NEWLINE = 0x0a;

export function frame(head: unknown, bytes: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`${JSON.stringify(head)}\n`), bytes]);
}

/** The head (parsed, not checked) and the bytes after it; null when the value has no JSON head. */
export function unframe(value: Buffer): { head: unknown; bytes: Buffer } | null {
  const end = value.indexOf(NEWLINE);
  if (end < 0) return null;
  try {
    return { head: JSON.parse(value.toString('utf8', 0, end)), bytes: value.subarray(end + 1) };
  } catch {
    return null;
  }
}
