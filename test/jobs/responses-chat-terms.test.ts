// runtime/api/responses/chat-terms.ts: a refusal of the chat call an emulated Responses request
// became names the Responses request's fields, pointer or name, in the param and the message.
import { expect, it } from 'vitest';
import { inResponsesTerms } from '../../runtime/api/responses/chat-terms.ts';
import { GatewayError } from '../../runtime/core/errors.ts';

const mapped = (param: string | null, message = 'x') => {
  const error = inResponsesTerms(new GatewayError('unsupported_parameter', message, param, { provider: 'anthropic' }));
  return { param: error.param, message: error.message, details: error.details };
};

it('renames the chat fields the Responses request has under other names', () => {
  expect(mapped('reasoning_effort', 'The provider "anthropic" has no "reasoning_effort" parameter.')).toEqual({ param: 'reasoning.effort', message: 'The provider "anthropic" has no "reasoning.effort" parameter.', details: { provider: 'anthropic' } });
  expect(mapped('max_tokens').param).toBe('max_output_tokens');
  expect(mapped('response_format', 'has no response_format "json_schema".').message).toBe('has no text.format "json_schema".');
  expect(mapped('/response_format/json_schema/schema', 'Invalid request body: /response_format/json_schema/schema must be object.')).toMatchObject({ param: '/text/format/schema', message: 'Invalid request body: /text/format/schema must be object.' });
  expect(mapped('/tools/2/function/parameters').param).toBe('/tools/2/parameters');
  expect(mapped('/tool_choice/function/name').param).toBe('/tool_choice/name');
  expect(mapped('/messages/4/content').param).toBe('/input');
});

it('leaves alone what both requests call the same', () => {
  for (const param of [null, 'temperature', '/top_p', 'model', '/tools/0/type', 'x-gateway-config']) expect(mapped(param, 'same').param).toBe(param);
  const error = new GatewayError('invalid_header', 'm', 'x-gateway-config');
  expect(inResponsesTerms(error)).toBe(error);
});
