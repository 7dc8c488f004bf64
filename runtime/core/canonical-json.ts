// Canonical JSON: object keys sorted at every level, so equal values get equal text whatever their
// key order or whitespace. Inline configs are looked up by it, and response-cache keys hash it.

/** JSON with object keys sorted at every level. Built by concatenation: it runs on every cached request's body. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += canonicalJson(value[i]) ?? '';
    }
    return `${out}]`;
  }
  const keys = Object.keys(value).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    if (i > 0) out += ',';
    out += `${JSON.stringify(keys[i])}:${canonicalJson((value as Record<string, unknown>)[keys[i]!])}`;
  }
  return `${out}}`;
}
