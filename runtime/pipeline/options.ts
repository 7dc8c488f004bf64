// Gateway options for an exchange: the x-gateway-* values the server already parsed, plus the
// routing and provider headers, read here once. The client headers that may reach a provider are
// copied out by name, so nothing below this point reads the client's header map.
import type { IncomingHttpHeaders } from 'node:http';
import { CUSTOM_HOST_HEADER, PROVIDER_HEADER, VIRTUAL_KEY_HEADER } from '../core/gateway-headers.ts';
import { headerOptions } from '../providers/header-options.ts';
import type { GatewayOptions, ParsedGatewayHeaders } from './exchange.ts';

/** Client headers every upstream call may carry, whatever the config says. */
export const ALWAYS_PASSED_HEADERS: readonly string[] = ['content-type', 'accept', 'traceparent', 'tracestate', 'x-cloudb-ai-llm-request-type'];

/**
 * `forwardedByConfig`: every header name some leaf of the router forwards (computed once per router),
 * so the headers a leaf may pick are in `passedHeaders`. `optionFamilies`: the router's target
 * families, against which provider-option headers are checked (null: not checked).
 */
export function gatewayOptions(headers: IncomingHttpHeaders, parsed: ParsedGatewayHeaders, forwardedByConfig: readonly string[], readByChecks: readonly string[] = NO_NAMES, optionFamilies: ReadonlySet<string> | null = null): GatewayOptions {
  return {
    traceId: parsed.traceId,
    metadata: parsed.metadata,
    requestTimeoutMs: parsed.requestTimeoutMs,
    forwardHeaders: parsed.forwardHeaders,
    cacheForceRefresh: parsed.cacheForceRefresh,
    cacheNamespace: parsed.cacheNamespace,
    provider: headerString(headers, PROVIDER_HEADER),
    customHost: headerString(headers, CUSTOM_HOST_HEADER),
    virtualKey: headerString(headers, VIRTUAL_KEY_HEADER),
    bearerToken: bearerToken(headers),
    providerOptions: headerOptions(headers, optionFamilies),
    passedHeaders: passedHeaders(headers, forwardedByConfig, parsed.forwardHeaders),
    checkHeaders: readByChecks.length === 0 ? NO_HEADERS : passedHeaders(headers, readByChecks, NO_NAMES, NO_NAMES),
  };
}

const NO_NAMES: readonly string[] = [];
const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

function passedHeaders(headers: IncomingHttpHeaders, byConfig: readonly string[], byHeader: readonly string[], always: readonly string[] = ALWAYS_PASSED_HEADERS): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const list of [always, byConfig, byHeader]) {
    for (const name of list) {
      const value = headers[name];
      if (value !== undefined) passed[name] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  return passed;
}

export function headerString(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

function bearerToken(headers: IncomingHttpHeaders): string | null {
  const value = headers.authorization;
  if (typeof value !== 'string') return null;
  const match = /^Bearer\s+(\S.*)$/i.exec(value);
  return match ? match[1].trim() : null;
}
