// The one way generated router source is built. Every interpolated value becomes a JSON literal
// (with U+2028/U+2029 escaped, which JSON allows raw but older JS parsers and line comments do not);
// only Code made by the emitter itself (identifiers it chose, fragments it built) is spliced as code.

export class Code {
  readonly source: string;
  constructor(source: string) {
    this.source = source;
  }
  toString(): string {
    return this.source;
  }
}

/** JSON literal of a value, safe to embed anywhere in JavaScript source. */
export function literal(value: unknown): string {
  return jsonSource(value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

// JSON text is almost a JS expression, except that in an object literal `"__proto__": v` sets the
// prototype instead of defining a key; a computed key `["__proto__"]` defines it, as JSON.parse does.
function jsonSource(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : jsonSource(item))).join(',')}]`;
  const entries: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    entries.push(`${key === '__proto__' ? '["__proto__"]' : JSON.stringify(key)}:${jsonSource(item)}`);
  }
  return `{${entries.join(',')}}`;
}

/** Tagged template: `${Code}` splices code, anything else becomes a JSON literal. */
export function js(strings: TemplateStringsArray, ...values: unknown[]): Code {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    out += (value instanceof Code ? value.source : literal(value)) + strings[i + 1];
  }
  return new Code(out);
}

/** An identifier the emitter made: letters, digits and `_` only, never from user input. */
export function name(identifier: string): Code {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(identifier)) throw new Error(`not an emitter identifier: ${identifier}`);
  return new Code(identifier);
}

export function join(parts: readonly Code[], separator: string): Code {
  return new Code(parts.map((p) => p.source).join(separator));
}

/** A `//` comment whose user-provided text cannot end the comment early. */
export function comment(text: string): Code {
  return new Code(`// ${text.replace(/[\r\n\u2028\u2029]/g, ' ')}`);
}
