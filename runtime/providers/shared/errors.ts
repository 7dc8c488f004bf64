import { parseJson } from '../../../compiler/config/json-parse.ts';
// Provider errors in the gateway's body shape: `{error: {message, type, param, code, provider}}`,
// which the vendor SDKs read like the vendor's own, with the provider named.

export interface MappedError {
  error: { message: string; type: string; param: string | null; code: string | null; provider: string };
}

/** The error `type` a vendor client expects for a status (the same vocabulary as gateway errors). */
export function errorTypeForStatus(status: number): string {
  switch (status) {
    case 400: case 409: case 413: case 422: return 'invalid_request_error';
    case 401: return 'authentication_error';
    case 403: return 'permission_error';
    case 404: return 'not_found_error';
    case 408: return 'timeout_error';
    case 429: return 'rate_limit_error';
    default: return status >= 500 ? 'provider_error' : 'invalid_request_error';
  }
}

export function mappedError(provider: string, status: number, message: string, code: string | null, param: string | null = null): MappedError {
  return { error: { message, type: errorTypeForStatus(status), param, code, provider } };
}

/** Parses an error body as JSON; null when it is not a JSON object. */
export function jsonObjectOf(body: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = parseJson(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A short, printable excerpt of a body that is not JSON (an HTML error page, say). */
export function bodyExcerpt(body: Buffer, status: number): string {
  const text = body.toString('utf8').replace(/\s+/g, ' ').trim().slice(0, 200);
  return text === '' ? `The provider answered with status ${status}.` : text;
}

export function stringOr(value: unknown, fallback: string | null): string | null {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

/**
 * The error body of a vendor-shaped provider (`{error: {message, type, param, code}}`) with the
 * provider named; other bodies are wrapped.
 */
export function vendorShapedError(provider: string, status: number, body: Buffer): MappedError {
  const json = jsonObjectOf(body);
  const inner = json?.error;
  if (typeof inner === 'object' && inner !== null && !Array.isArray(inner)) {
    const e = inner as Record<string, unknown>;
    const code = e.code === null || e.code === undefined ? null : String(e.code);
    return {
      error: {
        message: stringOr(e.message, bodyExcerpt(body, status))!,
        type: stringOr(e.type, errorTypeForStatus(status))!,
        param: typeof e.param === 'string' ? e.param : null,
        code,
        provider,
      },
    };
  }
  const message = typeof inner === 'string' ? inner : stringOr(json?.message, bodyExcerpt(body, status))!;
  return mappedError(provider, status, message, null);
}
