// The headers that decide how a request routes (config, provider, credential, cloud options,
// metadata, timeout, forwarded headers), kept with a gateway-managed batch so every line routes as
// the create request would have, even after a restart, with the identity of the key that created
// it (so rate and usage limits count its lines under that key). They may carry provider
// credentials, so they are stored sealed under the master key (AES-256-GCM, the virtual keys' box).
import type { IncomingHttpHeaders } from 'node:http';
import type { MasterKey } from '../store/master-key.ts';
import type { Caller } from '../pipeline/exchange.ts';
import { open, seal } from '../store/secret-box.ts';
import { API_KEY_HEADER, FORWARD_HEADERS_HEADER, GATEWAY_HEADER_PREFIX, parseForwardHeaders, TRACE_ID_HEADER } from '../core/gateway-headers.ts';

/** Provider-specific headers outside the x-gateway- prefix that routing reads (SPEC §5.4). */
const ALSO_KEPT = ['authorization', 'x-cloudb-ai-llm-request-type'];

export type RouteHeaders = Record<string, string>;

/** The routing headers of a request: every x-gateway-* header but the API key and trace ID, the credential, and the forwarded headers. */
export function routeHeadersOf(headers: IncomingHttpHeaders): RouteHeaders {
  const kept: RouteHeaders = {};
  const keep = (name: string): void => {
    const value = headers[name];
    if (typeof value === 'string') kept[name] = value;
    else if (Array.isArray(value)) kept[name] = value.join(', ');
  };
  for (const name of Object.keys(headers)) {
    if (name.startsWith(GATEWAY_HEADER_PREFIX) && name !== API_KEY_HEADER && name !== TRACE_ID_HEADER) keep(name);
  }
  for (const name of ALSO_KEPT) keep(name);
  const forwarded = headers[FORWARD_HEADERS_HEADER];
  if (typeof forwarded === 'string') for (const name of parseForwardHeaders(forwarded)) keep(name);
  return kept;
}

export class RouteSealer {
  readonly #master: MasterKey;

  constructor(master: MasterKey) {
    this.#master = master;
  }

  seal(batchId: string, headers: RouteHeaders, caller: Caller): string {
    return seal(this.#master, `batch:${batchId}`, { headers, caller });
  }

  /** Throws SecretBoxError when the box does not open (another master key, or tampering). */
  open(batchId: string, box: string): SealedRoute {
    const opened = open(this.#master, `batch:${batchId}`, box) as Record<string, unknown>;
    // Batches created before the caller was kept hold the headers alone.
    const sealed = opened.headers !== null && typeof opened.headers === 'object' ? opened.headers as Record<string, unknown> : opened;
    const headers: RouteHeaders = {};
    for (const [name, value] of Object.entries(sealed)) if (typeof value === 'string') headers[name] = value;
    return { headers, caller: callerOf(opened.caller) };
  }
}

export interface SealedRoute {
  headers: RouteHeaders;
  caller: Caller | null;
}

function callerOf(value: unknown): Caller | null {
  if (value === null || typeof value !== 'object') return null;
  const { keyId, workspaceId, organisationId } = value as Record<string, unknown>;
  return typeof keyId === 'string' && typeof workspaceId === 'string' && typeof organisationId === 'string' ? { keyId, workspaceId, organisationId } : null;
}
