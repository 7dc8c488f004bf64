// The vendor's error bodies, as its API returns them for each status.
import type { VendorErrorFields } from './types.ts';

const BY_STATUS: Record<number, VendorErrorFields> = {
  400: { message: 'Invalid request.', type: 'invalid_request_error', param: null, code: null },
  401: {
    message: 'Incorrect API key provided. You can find your API key in your account settings.',
    type: 'invalid_request_error',
    param: null,
    code: 'invalid_api_key',
  },
  403: { message: 'You are not allowed to access this resource.', type: 'invalid_request_error', param: null, code: 'unsupported_country_region_territory' },
  404: { message: 'The resource you requested does not exist.', type: 'invalid_request_error', param: null, code: 'not_found' },
  408: { message: 'Request timed out.', type: 'timeout_error', param: null, code: null },
  409: { message: 'The request conflicts with the current state.', type: 'invalid_request_error', param: null, code: null },
  422: { message: 'The request could not be processed.', type: 'invalid_request_error', param: null, code: null },
  429: {
    message: 'Rate limit reached for requests. Please try again later.',
    type: 'requests',
    param: null,
    code: 'rate_limit_exceeded',
  },
  500: {
    message: 'The server had an error while processing your request. Sorry about that!',
    type: 'server_error',
    param: null,
    code: null,
  },
  502: { message: 'Bad gateway.', type: 'server_error', param: null, code: null },
  503: { message: 'The engine is currently overloaded, please try again later.', type: 'server_error', param: null, code: null },
  504: { message: 'Gateway timeout.', type: 'server_error', param: null, code: null },
};

export function vendorError(status: number, override: Partial<VendorErrorFields> = {}): { error: VendorErrorFields } {
  const base = BY_STATUS[status] ?? {
    message: `The vendor answered with status ${status}.`,
    type: status >= 500 ? 'server_error' : 'invalid_request_error',
    param: null,
    code: null,
  };
  return { error: { ...base, ...override } };
}
