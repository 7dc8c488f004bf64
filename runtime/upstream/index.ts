// The upstream layer: undici pools per provider origin and one streaming exchange per attempt.
export type { UpstreamRequest, UpstreamResponse } from './types.ts';
export { send, DISCARD_DRAIN_LIMIT, DISCARD_DRAIN_TIMEOUT_MS } from './send.ts';
export { poolFor, configurePools, poolSettings, closeAllPools, DEFAULT_POOL_SETTINGS } from './pools.ts';
export type { PoolSettings } from './pools.ts';
export { HOP_BY_HOP_HEADERS, requestHeadersForUpstream, responseHeadersForClient } from './hop-by-hop.ts';
export {
  UpstreamError,
  UpstreamConnectionError,
  UpstreamTimeoutError,
  UpstreamBodyError,
  UpstreamRequestError,
  ClientClosedError,
  UpstreamDiscardedError,
  isUpstreamError,
  isConnectionError,
  isUpstreamTimeout,
  isBodyError,
  isRequestError,
  isClientClosed,
} from './errors.ts';
export type { UpstreamErrorCode } from './errors.ts';
