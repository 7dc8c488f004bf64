// Every error the gateway itself returns, declared once: code → HTTP status, error type and default
// message. runtime/core/errors.ts raises them; the generated client types GatewayError.code from them.

export interface GatewayErrorSpec {
  status: number;
  type: string;
  /** Default message; a raise site may pass a more specific one. */
  message: string;
}

export const GATEWAY_ERRORS = {
  missing_gateway_api_key: { status: 401, type: 'authentication_error', message: 'The x-gateway-api-key header is required.' },
  invalid_gateway_api_key: { status: 401, type: 'authentication_error', message: 'The gateway API key is not valid.' },
  forbidden: { status: 403, type: 'permission_error', message: 'This API key is not allowed to do that.' },
  route_not_found: { status: 404, type: 'not_found_error', message: 'No such endpoint.' },
  resource_not_found: { status: 404, type: 'not_found_error', message: 'No such resource.' },
  method_not_allowed: { status: 405, type: 'invalid_request_error', message: 'This endpoint does not accept that method.' },
  invalid_json: { status: 400, type: 'invalid_request_error', message: 'The request body is not valid JSON.' },
  json_too_deep: { status: 400, type: 'invalid_request_error', message: 'The JSON nests too deeply.' },
  invalid_request_body: { status: 400, type: 'invalid_request_error', message: 'The request body is not valid for this endpoint.' },
  invalid_query: { status: 400, type: 'invalid_request_error', message: 'The query string is not valid for this endpoint.' },
  invalid_header: { status: 400, type: 'invalid_request_error', message: 'A gateway header is not valid.' },
  malformed_request: { status: 400, type: 'invalid_request_error', message: 'The request is not valid HTTP.' },
  invalid_config: { status: 400, type: 'invalid_request_error', message: 'The config is not valid.' },
  invalid_guardrail: { status: 400, type: 'invalid_request_error', message: 'The guardrail is not valid.' },
  semantic_cache_unavailable: { status: 400, type: 'invalid_request_error', message: 'The config uses a semantic cache, and this gateway has no embeddings route for one (GATEWAY_SEMANTIC_CACHE_EMBEDDINGS).' },
  invalid_simulation: { status: 400, type: 'invalid_request_error', message: 'The simulation names a target, outcome or endpoint the config does not have.' },
  unknown_config_id: { status: 400, type: 'invalid_request_error', message: 'No saved config has that ID.' },
  unknown_prompt_id: { status: 400, type: 'invalid_request_error', message: 'The config names a prompt that does not exist.' },
  ambiguous_prompt_id: { status: 400, type: 'invalid_request_error', message: 'The config names more than one prompt; a request renders one.' },
  missing_prompt_variable: { status: 400, type: 'invalid_request_error', message: 'A variable the prompt template uses was not given.' },
  invalid_prompt_template: { status: 400, type: 'invalid_request_error', message: 'The prompt template is not valid mustache.' },
  resource_already_exists: { status: 409, type: 'conflict_error', message: 'A resource with that ID already exists.' },
  guardrail_read_only: { status: 409, type: 'conflict_error', message: 'This guardrail comes from the guardrails folder; change the file instead.' },
  guardrail_in_use: { status: 409, type: 'conflict_error', message: 'Saved configs name this guardrail; change them first.' },
  prompt_in_use: { status: 409, type: 'conflict_error', message: 'Saved configs render this prompt; change them first.' },
  virtual_key_in_use: { status: 409, type: 'conflict_error', message: 'Saved configs call this virtual key; change them first.' },
  config_read_only: { status: 409, type: 'conflict_error', message: 'This config comes from the --configs folder; change the file instead.' },
  policy_archived: { status: 409, type: 'conflict_error', message: 'The policy is archived and can no longer change.' },
  batch_not_cancellable: { status: 409, type: 'conflict_error', message: 'The batch has finished or is finishing and can no longer be cancelled.' },
  invalid_file: { status: 400, type: 'invalid_request_error', message: 'The uploaded file is not valid for its purpose.' },
  context_window_exceeded: { status: 400, type: 'invalid_request_error', message: 'The input does not fit the model\'s context window.' },
  missing_provider: { status: 400, type: 'invalid_request_error', message: 'No provider is set: send x-gateway-provider, x-gateway-config or a virtual key.' },
  missing_provider_credentials: { status: 400, type: 'invalid_request_error', message: 'The target has a provider but no credential: send Authorization: Bearer <token> or set api_key.' },
  unknown_provider_slug: { status: 400, type: 'invalid_request_error', message: 'No integration with that slug is stored in this gateway.' },
  unknown_virtual_key: { status: 400, type: 'invalid_request_error', message: 'No virtual key with that ID is stored in this gateway.' },
  unsupported_provider: { status: 400, type: 'invalid_request_error', message: 'The provider is not known to this gateway.' },
  invalid_custom_host: { status: 400, type: 'invalid_request_error', message: 'The custom host is not a valid http(s) URL.' },
  custom_host_not_allowed: { status: 403, type: 'permission_error', message: 'The custom host is not allowed by this gateway.' },
  endpoint_not_supported: { status: 400, type: 'invalid_request_error', message: 'The provider has no such endpoint.' },
  missing_provider_option: { status: 400, type: 'invalid_request_error', message: 'A setting the provider needs is missing.' },
  invalid_provider_option: { status: 400, type: 'invalid_request_error', message: 'A provider setting is not valid.' },
  unsupported_parameter: { status: 400, type: 'invalid_request_error', message: 'The provider does not support a parameter of this request.' },
  provider_authentication_failed: { status: 401, type: 'authentication_error', message: 'The provider refused the gateway\'s credential.' },
  request_timeout: { status: 408, type: 'timeout_error', message: 'The provider did not answer within the request timeout.' },
  client_request_timeout: { status: 408, type: 'timeout_error', message: 'The request was not received completely in time.' },
  body_too_large: { status: 413, type: 'invalid_request_error', message: 'The request body is larger than the gateway accepts.' },
  unsupported_content_encoding: { status: 415, type: 'invalid_request_error', message: 'The gateway reads request bodies as sent, without a content-encoding.' },
  file_too_large: { status: 413, type: 'invalid_request_error', message: 'The uploaded file is larger than the gateway accepts.' },
  headers_too_large: { status: 431, type: 'invalid_request_error', message: 'The request headers are larger than the gateway accepts.' },
  denied_by_guardrail: { status: 446, type: 'hooks_failed', message: 'A hook or guardrail of the config denied the request.' },
  rate_limited: { status: 429, type: 'rate_limit_error', message: 'A rate limit was exceeded.' },
  usage_limit_exceeded: { status: 412, type: 'usage_limit_error', message: 'A usage limit (cost or tokens) is spent; it does not come back by waiting.' },
  internal_error: { status: 500, type: 'server_error', message: 'The gateway failed unexpectedly.' },
  provider_unreachable: { status: 502, type: 'provider_error', message: 'The provider could not be reached.' },
  upstream_stream_broken: { status: 502, type: 'provider_error', message: 'The provider stream ended before it was complete.' },
  provider_response_too_large: { status: 502, type: 'provider_error', message: 'The provider\'s answer is larger than the gateway holds in memory.' },
  provider_invalid_response: { status: 502, type: 'provider_error', message: 'The provider\'s answer is not a valid HTTP answer.' },
  provider_contract_violation: { status: 502, type: 'provider_error', message: 'The provider\'s answer does not match its schema.' },
  not_ready: { status: 503, type: 'server_error', message: 'The gateway is starting or shutting down.' },
  cache_unavailable: { status: 503, type: 'server_error', message: 'The shared response cache (Redis) did not answer.' },
} as const satisfies Record<string, GatewayErrorSpec>;

export type GatewayErrorCode = keyof typeof GATEWAY_ERRORS;
