// Failures of one upstream exchange, one class per cause so the router can map each to an outcome
// without string matching: connection → 502 provider_unreachable, body → upstream_stream_broken,
// timeout (undici's own long safety timeouts) → 408, request → 500 (a gateway bug, not the provider).
// An abort through the request's signal is not wrapped: `send` rejects with `signal.reason` itself.

import { poolSettings } from './pools.ts';

export type UpstreamErrorCode =
  | 'upstream_connection_failed'
  | 'upstream_timeout'
  | 'upstream_body_broken'
  | 'upstream_request_invalid'
  | 'client_closed'
  | 'upstream_discarded';

export abstract class UpstreamError extends Error {
  abstract readonly code: UpstreamErrorCode;
}

/** The provider could not be reached or dropped the connection before sending a status line. */
export class UpstreamConnectionError extends UpstreamError {
  readonly code = 'upstream_connection_failed';
  override readonly name = 'UpstreamConnectionError';
}

/** undici's headers or body safety timeout fired (the per-attempt timeout is the signal's job). */
export class UpstreamTimeoutError extends UpstreamError {
  readonly code = 'upstream_timeout';
  override readonly name = 'UpstreamTimeoutError';
}

/** The provider's body broke after the status line was received. */
export class UpstreamBodyError extends UpstreamError {
  readonly code = 'upstream_body_broken';
  override readonly name = 'UpstreamBodyError';
}

/** undici refused the request itself (bad origin, header or method): never the provider's fault. */
export class UpstreamRequestError extends UpstreamError {
  readonly code = 'upstream_request_invalid';
  override readonly name = 'UpstreamRequestError';
}

/** The client response closed before the provider body ended; the upstream was aborted. */
export class ClientClosedError extends UpstreamError {
  readonly code = 'client_closed';
  override readonly name = 'ClientClosedError';
}

/** The body was dropped by `discard()` while someone was still reading it. */
export class UpstreamDiscardedError extends UpstreamError {
  readonly code = 'upstream_discarded';
  override readonly name = 'UpstreamDiscardedError';
}

export function isUpstreamError(err: unknown): err is UpstreamError {
  return err instanceof UpstreamError;
}

export function isConnectionError(err: unknown): err is UpstreamConnectionError {
  return err instanceof UpstreamConnectionError;
}

export function isUpstreamTimeout(err: unknown): err is UpstreamTimeoutError {
  return err instanceof UpstreamTimeoutError;
}

export function isBodyError(err: unknown): err is UpstreamBodyError {
  return err instanceof UpstreamBodyError;
}

export function isRequestError(err: unknown): err is UpstreamRequestError {
  return err instanceof UpstreamRequestError;
}

export function isClientClosed(err: unknown): err is ClientClosedError {
  return err instanceof ClientClosedError;
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const REQUEST_CODES = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED', 'ERR_INVALID_URL']);

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** TLS verification failures a certificate authority the process does not know causes. */
const UNKNOWN_CA_CODES = new Set(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_UNTRUSTED']);

/**
 * What to do about a provider's certificate from a private authority (a self-hosted model server):
 * Node's own message suggests a flag of the node command, which `gateway serve` users do not type.
 */
const UNKNOWN_CA_HINT = 'to trust a private certificate authority, start the gateway with NODE_EXTRA_CA_CERTS=/path/to/ca.pem (or NODE_OPTIONS=--use-system-ca for the system\'s store)';

/** Classifies an error undici reported before the response status arrived. */
export function beforeResponseError(cause: unknown): UpstreamError {
  const code = codeOf(cause);
  let detail = cause instanceof Error ? cause.message : String(cause);
  if (code !== undefined && UNKNOWN_CA_CODES.has(code)) detail = `${detail.replace(/; if the root CA is installed locally.*$/, '')}; ${UNKNOWN_CA_HINT}`;
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    // The gateway's own limit, not a config's: the message names it and how to wait longer.
    const waited = code === 'UND_ERR_HEADERS_TIMEOUT'
      ? `no response headers within ${poolSettings().headersTimeoutMs} ms (GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS)`
      : `nothing for ${poolSettings().bodyTimeoutMs} ms (GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS)`;
    return new UpstreamTimeoutError(`${waited}; a config's request_timeout (or x-gateway-request-timeout) sets a longer wait`, { cause });
  }
  if (code !== undefined && REQUEST_CODES.has(code)) {
    return new UpstreamRequestError(`upstream request rejected: ${detail}`, { cause });
  }
  // undici's word for an answer its HTTP/1.1 reader gives up on: most often an unsolicited
  // `100 Continue`, which RFC 9110 lets a server send and undici does not accept.
  if (code === 'UND_ERR_SOCKET' && detail === 'bad response') detail = BAD_RESPONSE_HINT;
  // Refused, reset, DNS, TLS, connect timeout, socket closed: all mean "could not get an answer".
  return new UpstreamConnectionError(`provider unreachable: ${detail}`, { cause });
}

const BAD_RESPONSE_HINT = 'its answer is not HTTP/1.1 the gateway\'s client reads (an unsolicited "100 Continue" before the status line, which the client refuses, or bytes that are no response); the provider, or a proxy in front of it, must answer without it';

/** Classifies an error undici reported while the body was flowing. */
export function duringBodyError(cause: unknown): UpstreamBodyError {
  const detail = codeOf(cause) === 'UND_ERR_BODY_TIMEOUT'
    ? `nothing for ${poolSettings().bodyTimeoutMs} ms in the middle of the answer (GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS)`
    : cause instanceof Error ? cause.message : String(cause);
  return new UpstreamBodyError(`provider body broke: ${detail}`, { cause });
}
