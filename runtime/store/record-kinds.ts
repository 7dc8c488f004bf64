// The record kinds the change feed knows, one name per store. A new kind (say, virtual keys) adds
// its name here and passes it to recordChange in every write (docs/store.md).
export const RECORD_KINDS = {
  apiKeys: 'api_keys',
  configs: 'configs',
  prompts: 'prompts',
  guardrails: 'guardrails',
  rateLimits: 'rate_limit_policies',
  usageLimits: 'usage_limit_policies',
  virtualKeys: 'virtual_keys',
  files: 'gateway_files',
  batches: 'gateway_batches',
  responses: 'stored_responses',
  cachePurges: 'cache_purges',
} as const;
