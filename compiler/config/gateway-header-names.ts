// Every x-gateway-* header name the gateway reads or writes, declared once: the runtime parses and
// sets them (runtime/core/gateway-headers.ts re-exports these), and the generated client sends them.
export { GATEWAY_HEADER_PREFIX } from './forwarding.ts';
export const API_KEY_HEADER = 'x-gateway-api-key';
export const TRACE_ID_HEADER = 'x-gateway-trace-id';
export const CONFIG_HEADER = 'x-gateway-config';
export const PROVIDER_HEADER = 'x-gateway-provider';
export const CUSTOM_HOST_HEADER = 'x-gateway-custom-host';
export const VIRTUAL_KEY_HEADER = 'x-gateway-virtual-key';
export const METADATA_HEADER = 'x-gateway-metadata';
export const REQUEST_TIMEOUT_HEADER = 'x-gateway-request-timeout';
export const FORWARD_HEADERS_HEADER = 'x-gateway-forward-headers';
export const CACHE_FORCE_REFRESH_HEADER = 'x-gateway-cache-force-refresh';
export const CACHE_NAMESPACE_HEADER = 'x-gateway-cache-namespace';
/** Response headers. */
export const LAST_USED_OPTION_INDEX_HEADER = 'x-gateway-last-used-option-index';
export const RETRY_ATTEMPT_COUNT_HEADER = 'x-gateway-retry-attempt-count';
export const CACHE_STATUS_HEADER = 'x-gateway-cache-status';
/** On a SEMANTIC HIT: the cosine similarity of the matched request's text. */
export const CACHE_SIMILARITY_HEADER = 'x-gateway-cache-similarity';
