// Joining a provider base URL (origin plus an optional path prefix) with an endpoint path.
import { GatewayError } from '../../core/errors.ts';

/** `https://h/v1` + `/chat/completions?x=1` → `https://h/v1/chat/completions?x=1`. */
export function joinUrl(base: string, path: string): string {
  const trimmed = base.endsWith('/') ? base.replace(/\/+$/, '') : base;
  return path.startsWith('/') ? trimmed + path : `${trimmed}/${path}`;
}

/**
 * A call the adapter translates into the provider's own API has a URL of the adapter's making, so the
 * client's query string (`/chat/completions?x=1`) has nowhere to go: it is refused, never dropped.
 */
export function refuseClientQuery(provider: string, path: string): void {
  const q = path.indexOf('?');
  if (q < 0 || q === path.length - 1) return;
  const name = new URLSearchParams(path.slice(q + 1)).keys().next().value ?? '';
  throw new GatewayError('unsupported_parameter', `The provider "${provider}" is called through its own API, whose URL the gateway makes: the query parameter "${name}" cannot be sent to it.`, name);
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
