// The messages API's error bodies: `{type: "error", error: {type, message}}` with the status each type uses.
import type { MockContext } from '../vendor/context.ts';
import { vendorId } from '../vendor/context.ts';
import type { VendorErrorFields } from '../vendor/types.ts';
import { sendBytes } from '../http/respond.ts';

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const MESSAGE_BY_TYPE: Record<string, string> = {
  invalid_request_error: 'Invalid request.',
  authentication_error: 'invalid x-api-key',
  permission_error: 'Your API key does not have permission to use the specified resource.',
  not_found_error: 'The requested resource could not be found.',
  request_too_large: 'Request exceeds the maximum allowed number of bytes.',
  rate_limit_error: 'Number of request tokens has exceeded your per-minute rate limit.',
  api_error: 'Internal server error',
  overloaded_error: 'Overloaded',
};

export function messagesHeaders(ctx: MockContext): Record<string, string> {
  return { 'request-id': vendorId('req_'), 'anthropic-organization-id': 'org-mock', 'x-mock-instance': ctx.label };
}

export function errorBody(status: number, fields: Partial<VendorErrorFields> = {}): { type: 'error'; error: { type: string; message: string } } {
  const type = fields.type ?? TYPE_BY_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error', error: { type, message: fields.message ?? MESSAGE_BY_TYPE[type] ?? `Status ${status}.` } };
}

export function sendMessagesError(ctx: MockContext, status: number, fields: Partial<VendorErrorFields> = {}): Promise<void> {
  return sendBytes(ctx, status, { ...messagesHeaders(ctx), 'content-type': 'application/json' }, Buffer.from(JSON.stringify(errorBody(status, fields))));
}

export function sendMessagesJson(ctx: MockContext, status: number, value: unknown): Promise<void> {
  return sendBytes(ctx, status, { ...messagesHeaders(ctx), 'content-type': 'application/json' }, Buffer.from(JSON.stringify(value)));
}
