// Joining a provider base URL (origin plus an optional path prefix) with an endpoint path.

/** `https://h/v1` + `/chat/completions?x=1` → `https://h/v1/chat/completions?x=1`. */
export function joinUrl(base: string, path: string): string {
  const trimmed = base.endsWith('/') ? base.replace(/\/+$/, '') : base;
  return path.startsWith('/') ? trimmed + path : `${trimmed}/${path}`;
}

/** Adds `name=value` to a path's query unless the client already set `name`. */
export function withQuery(path: string, name: string, value: string): string {
  const q = path.indexOf('?');
  if (q >= 0 && new URLSearchParams(path.slice(q + 1)).has(name)) return path;
  return `${path}${q >= 0 ? '&' : '?'}${name}=${encodeURIComponent(value)}`;
}

/** A provider option that must be a non-empty string, or undefined. */
export function stringOption(options: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Splits a URL at its origin without normalising the path: pass-through paths reach the provider
 * byte for byte (dot segments and percent-escapes included), as the client sent them.
 */
export function splitUrl(text: string): { origin: string; path: string } {
  const scheme = text.indexOf('://');
  const slash = scheme < 0 ? -1 : text.indexOf('/', scheme + 3);
  const query = text.indexOf('?', scheme + 3);
  const cut = slash < 0 ? query : query >= 0 && query < slash ? query : slash;
  if (cut < 0) return { origin: text, path: '/' };
  const path = text.slice(cut);
  return { origin: text.slice(0, cut), path: path.startsWith('/') ? path : `/${path}` };
}
