// Every error `gateway compile` (and inline-config checking) can report, declared once. Codes are
// stable and never reused; docs/errors.md lists each one and a test keeps the two in step.

export const CONFIG_ERRORS = {
  CFG_INVALID_JSON: 'The file is not valid JSON.',
  CFG_DUPLICATE_KEY: 'A key appears twice in the same object; JSON parsers keep only the last one.',
  CFG_NOT_AN_OBJECT: 'A config must be a JSON object.',
  CFG_UNKNOWN_KEY: 'The key is not part of the config format.',
  CFG_MISSING_KEY: 'A required key is missing.',
  CFG_WRONG_TYPE: 'The value has the wrong type.',
  CFG_INVALID_VALUE: 'The value is not one of the allowed values.',
  CFG_OUT_OF_RANGE: 'The value is outside the allowed range.',
  CFG_INVALID_FORMAT: 'The value does not have the required format.',
  CFG_NO_KEY_SET: 'The config has none of the key sets that make a config valid.',
  CFG_STRATEGY_WITHOUT_TARGETS: 'A strategy needs a non-empty `targets` array.',
  CFG_TARGETS_WITHOUT_STRATEGY: '`targets` is only meaningful with a `strategy`.',
  CFG_CONDITIONAL_INCOMPLETE: 'Conditional mode needs both `conditions` and `default`.',
  CFG_DUPLICATE_TARGET_NAME: 'Two targets under one strategy have the same name.',
  CFG_UNKNOWN_TARGET_NAME: '`then` or `default` names no target of this strategy.',
  CFG_UNKNOWN_OPERATOR: 'The query uses an operator the gateway does not know.',
  CFG_INVALID_QUERY_FIELD: 'A query field must be `metadata.<key>`, `params.<path>` or `url.pathname`.',
  CFG_INVALID_OPERAND: 'The operand does not fit the operator.',
  CFG_INVALID_REGEX: 'The `$regex` pattern is not a valid regular expression.',
  CFG_FORWARD_HEADER_NOT_ALLOWED: 'A `forward_headers` entry names one of the gateway\'s own headers (x-gateway-*) a header of the client\'s connection (hop-by-hop, host, content-length, expect) or accept-encoding, which are never sent to a provider.',
  CFG_REGEX_UNSUPPORTED: 'The `$regex` pattern needs backtracking (back-references, lookaround), which the linear-time engine does not run.',
  CFG_ALL_WEIGHTS_ZERO: 'Every target of a loadbalance strategy has weight 0, so none could ever be picked.',
  CFG_TOO_MANY_RETRIES: '`retry.attempts` is above the maximum of 5.',
  CFG_TOO_MANY_TARGETS: 'The config holds more than 1,000 targets, at every level of nesting together.',
  CFG_TOO_MANY_CALLS: 'One request could call providers more than 200 times, or hook URLs (webhook, log and jwt checks) more than 100 times, through this config (fallbacks add up their targets\' tries).',
  CFG_INVALID_STATUS_CODE: 'A status code must be an integer from 100 to 599.',
  CFG_TOO_DEEP: 'Targets are nested deeper than the gateway allows, or the config nests arrays and objects too deeply.',
  CFG_UNKNOWN_PROVIDER: 'A `provider` names no provider the gateway knows (schema/providers.json).',
  CFG_UNKNOWN_CHECK: 'A hook or guardrail names a check the gateway does not have.',
  CFG_INVALID_CHECK_PARAMETERS: 'A check\'s parameters do not fit that check\'s schema (schema/checks/).',
  CFG_INVALID_CHECK_REGEX: 'A check\'s `rule` is not a pattern the linear-time regex engine runs.',
  CFG_INVALID_CHECK_SCHEMA: 'The `schema` parameter of default.jsonSchema is not a valid JSON Schema.',
  CFG_DUPLICATE_HOOK_ID: 'Two hooks or guardrails of one phase of a config or target have the same id.',
  CFG_CHECK_CONSTANT_VERDICT: 'A check\'s parameters give it the same verdict for every request (a minimum above its maximum, no bound at all, no endpoint allowed), so it decides nothing.',
  CFG_UNKNOWN_GUARDRAIL: 'A guardrail named by string does not exist.',
  CFG_ASYNC_GUARDRAIL_DENIES: 'An async guardrail (it only logs) also says deny.',
  CFG_SECRET_NOT_SET: 'A `${NAME}` reference names an environment variable that is not set.',
  CFG_SECRET_REFERENCE_NOT_ALLOWED: 'A config sent over the API or inline uses a `${NAME}` reference; only config files may.',
  CFG_SCHEMA_VIOLATION: 'The value breaks a rule of the config schema.',
} as const;

export type ConfigErrorCode = keyof typeof CONFIG_ERRORS;

export interface ConfigError {
  code: ConfigErrorCode;
  /** JSON pointer into the config (`''` is the whole config). */
  pointer: string;
  /** What is wrong, in words a person understands. */
  message: string;
  /** How to fix it: a "did you mean …" or the nearest valid form. */
  hint?: string;
  /** Filled when the config came from a file. */
  configId?: string;
  line?: number;
  column?: number;
}

/**
 * Errors about a key rather than its value (an unknown check parameter): located at the key in the
 * file. Unknown and duplicate config keys are located so by their code.
 */
export const KEY_ERRORS = new WeakSet<ConfigError>();

/** Whether a located error should point at the key itself. */
export function isKeyError(error: ConfigError): boolean {
  return error.code === 'CFG_UNKNOWN_KEY' || error.code === 'CFG_DUPLICATE_KEY' || KEY_ERRORS.has(error);
}

/** Deepest nesting of `targets` accepted; bounds the work an inline config can ask of the compiler. */
export const MAX_TARGET_DEPTH = 16;
export const MAX_RETRY_ATTEMPTS = 5;
