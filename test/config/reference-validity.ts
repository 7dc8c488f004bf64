// A reference for config validity written straight from the SPEC §2.1 table, in plain TypeScript and
// without looking at schema/config.json. Property tests hold the generated validator to it.
//
// Where the spec is silent the project decided (ARCHITECTURE §5, docs/config.md); those rules are
// marked DECISION so a reader can tell the spec's words from the project's.

export type Violation = { pointer: string; rule: string };

type Check = (value: unknown, pointer: string, out: Violation[]) => void;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const string: Check = (v, p, out) => {
  if (typeof v !== 'string') out.push({ pointer: p, rule: 'string' });
};
const nonEmptyString: Check = (v, p, out) => {
  if (typeof v !== 'string' || v.length === 0) out.push({ pointer: p, rule: 'non-empty string' });
};
const boolean: Check = (v, p, out) => {
  if (typeof v !== 'boolean') out.push({ pointer: p, rule: 'boolean' });
};
const object: Check = (v, p, out) => {
  if (!isObject(v)) out.push({ pointer: p, rule: 'object' });
};
const number = (minimum = -Infinity): Check => (v, p, out) => {
  if (typeof v !== 'number' || !(v >= minimum)) out.push({ pointer: p, rule: `number >= ${minimum}` });
};
const integer = (minimum = -Infinity, maximum = Infinity): Check => (v, p, out) => {
  if (typeof v !== 'number' || !Number.isInteger(v) || !(v >= minimum) || !(v <= maximum)) out.push({ pointer: p, rule: `integer in ${minimum}..${maximum}` });
};
const oneOf = (...allowed: string[]): Check => (v, p, out) => {
  if (typeof v !== 'string' || !allowed.includes(v)) out.push({ pointer: p, rule: `one of ${allowed.join(', ')}` });
};
const httpUrl: Check = (v, p, out) => {
  if (typeof v !== 'string' || !/^https?:\/\//u.test(v)) out.push({ pointer: p, rule: 'http(s) URL' });
};
const arrayOf = (item: Check): Check => (v, p, out) => {
  if (!Array.isArray(v)) out.push({ pointer: p, rule: 'array' });
  else v.forEach((element, i) => item(element, `${p}/${i}`, out));
};

/** An object with exactly these keys allowed; `required` must all be present. Unknown keys are rejected. */
const closed = (fields: Record<string, Check>, required: string[] = []): Check => (v, p, out) => {
  if (!isObject(v)) {
    out.push({ pointer: p, rule: 'object' });
    return;
  }
  for (const key of required) if (!Object.hasOwn(v, key)) out.push({ pointer: p, rule: `requires ${key}` });
  for (const [key, value] of Object.entries(v)) {
    const check = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (check === undefined) out.push({ pointer: `${p}/${escapeToken(key)}`, rule: 'unknown key' });
    else check(value, `${p}/${escapeToken(key)}`, out);
  }
};

export function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

// `feedback` {`value` number, `weight` number, `metadata` object}.
const feedback = closed({ value: number(), weight: number(), metadata: object });
// on_fail / on_success: feedback, and `deny` only where the spec lists it.
const outcome = closed({ feedback });
const outcomeWithDeny = closed({ feedback, deny: boolean });
// `checks` (array of {`id` string, `parameters` object}, both required).
const checks = arrayOf(closed({ id: string, parameters: object }, ['id', 'parameters']));

// Hook `id` is required; the spec gives its type only for before-request hooks ("`id` (string,
// required)"); DECISION: a string for after-request hooks too.
const beforeHook = closed({ id: string, type: string, on_fail: outcomeWithDeny, on_success: outcomeWithDeny, checks }, ['id']);
const afterHook = closed({ id: string, type: string, async: boolean, on_fail: outcome, on_success: outcome, checks }, ['id']);

/** A guardrail item: a string, or an object with the listed keys whose extra keys must hold objects. */
const guardrail = (onOutcome: Check): Check => (v, p, out) => {
  if (typeof v === 'string') return;
  if (!isObject(v)) {
    out.push({ pointer: p, rule: 'string or object' });
    return;
  }
  const known: Record<string, Check> = { id: string, deny: boolean, async: boolean, on_fail: onOutcome, on_success: onOutcome };
  for (const [key, value] of Object.entries(v)) (Object.hasOwn(known, key) ? known[key] : object)(value, `${p}/${escapeToken(key)}`, out);
};

const strategy: Check = (v, p, out) => {
  closed(
    {
      mode: oneOf('single', 'loadbalance', 'fallback', 'conditional'),
      conditions: arrayOf(closed({ query: object, then: string }, ['query', 'then'])),
      default: string,
      on_status_codes: arrayOf(integer()),
    },
    ['mode'],
  )(v, p, out);
  // "When `mode` is `conditional`, both `conditions` and `default` are required."
  if (isObject(v) && v.mode === 'conditional') {
    for (const key of ['conditions', 'default']) if (!Object.hasOwn(v, key)) out.push({ pointer: p, rule: `conditional requires ${key}` });
  }
};

const CONFIG_FIELDS: Record<string, Check> = {
  strategy,
  targets: arrayOf((v, p, out) => configViolations(v, p, out)),
  provider: nonEmptyString, // DECISION: a provider name is never empty.
  api_key: string,
  virtual_key: string,
  custom_host: httpUrl, // DECISION: a base URL, so it names its scheme.
  prompt_id: string,
  override_params: object,
  name: string,
  strict_vendor_compliance: boolean,
  weight: number(0), // DECISION: weights are never negative.
  on_status_codes: arrayOf(integer()),
  request_timeout: integer(1, 2 ** 31 - 1), // DECISION: a timeout of 0 ms or less is meaningless; past 2^31-1 ms no timer runs (as the header).
  forward_headers: arrayOf(nonEmptyString), // DECISION: a header name is never empty.
  cache: closed({ mode: oneOf('simple', 'semantic'), max_age: integer(1, 2 ** 31 - 1) /* DECISION: at least 1 s, at most 2^31-1 s (its milliseconds must stay exact for Redis) */ }, ['mode']),
  retry: closed(
    { attempts: integer(0) /* DECISION: never negative */, on_status_codes: arrayOf(number()), use_retry_after_headers: boolean },
    ['attempts'],
  ),
  cb_config: closed(
    { failure_threshold: number(1), cooldown_interval: number(30000), failure_status_codes: arrayOf(integer()) },
    ['failure_threshold', 'cooldown_interval'],
  ),
  resource_name: string,
  deployment_id: string,
  api_version: string,
  deployments: arrayOf(closed({ deployment_id: string, alias: string, api_version: string, is_default: boolean }, ['deployment_id', 'alias', 'api_version'])),
  clouda_region: string,
  clouda_deployment_name: string,
  clouda_endpoint_name: string,
  clouda_api_version: string,
  clouda_deployment_type: oneOf('serverless', 'managed'),
  clouda_resource_name: string,
  clouda_deployment_id: string,
  clouda_model_name: string,
  cloudb_project_id: string,
  cloudb_region: string,
  cloudb_service_account_json: object,
  cloudc_access_key_id: string,
  cloudc_secret_access_key: string,
  cloudc_region: string,
  cloudc_session_token: string,
  vendor_organization: string,
  vendor_project: string,
  before_request_hooks: arrayOf(beforeHook),
  after_request_hooks: arrayOf(afterHook),
  input_guardrails: arrayOf(guardrail(outcome)),
  output_guardrails: arrayOf(guardrail(outcomeWithDeny)),
};

/** Every key a config object may hold (SPEC §2.1 table). */
export const CONFIG_KEYS: readonly string[] = Object.keys(CONFIG_FIELDS);

/** The 18 key sets of SPEC §2.1 "Validity", in the spec's order. */
export const KEY_SETS: readonly (readonly string[])[] = [
  ['provider', 'api_key'],
  ['provider', 'custom_host'],
  ['virtual_key'],
  ['strategy', 'targets'],
  ['cache'],
  ['retry'],
  ['prompt_id'],
  ['forward_headers'],
  ['request_timeout'],
  ['provider', 'cloudc_access_key_id', 'cloudc_secret_access_key'],
  ['provider', 'cloudb_region', 'cloudb_service_account_json'],
  ['provider', 'cloudb_region', 'cloudb_project_id'],
  ['provider', 'clouda_deployment_name', 'clouda_deployment_type', 'clouda_region', 'clouda_api_version'],
  ['provider', 'clouda_endpoint_name', 'clouda_deployment_type'],
  ['after_request_hooks'],
  ['before_request_hooks'],
  ['input_guardrails'],
  ['output_guardrails'],
];

export function hasKeySet(config: Record<string, unknown>): boolean {
  return KEY_SETS.some((set) => set.every((key) => Object.hasOwn(config, key)));
}

function configViolations(value: unknown, pointer: string, out: Violation[]): void {
  closed(CONFIG_FIELDS)(value, pointer, out);
  if (!isObject(value)) return;
  if (!hasKeySet(value)) out.push({ pointer, rule: 'no complete key set' });
  // DECISION (ARCHITECTURE §5): a strategy needs targets to route to.
  if (Object.hasOwn(value, 'strategy') && !Object.hasOwn(value, 'targets')) out.push({ pointer, rule: 'strategy requires targets' });
}

/** Every structural violation of SPEC §2.1 in `value`, with the pointer where it is. */
export function referenceViolations(value: unknown): Violation[] {
  const out: Violation[] = [];
  configViolations(value, '', out);
  return out;
}

/** The reference predicate: is `value` a structurally valid config? */
export function referenceValid(value: unknown): boolean {
  return referenceViolations(value).length === 0;
}

/**
 * The keys each closed object of the format allows, by the kind of place it sits in. Tests use this
 * to add unknown keys and misspell known ones at every level.
 */
export const CLOSED_OBJECT_KEYS = {
  config: CONFIG_KEYS,
  strategy: ['mode', 'conditions', 'default', 'on_status_codes'],
  condition: ['query', 'then'],
  cache: ['mode', 'max_age'],
  retry: ['attempts', 'on_status_codes', 'use_retry_after_headers'],
  cb_config: ['failure_threshold', 'cooldown_interval', 'failure_status_codes'],
  deployment: ['deployment_id', 'alias', 'api_version', 'is_default'],
  before_hook: ['id', 'type', 'on_fail', 'on_success', 'checks'],
  after_hook: ['id', 'type', 'async', 'on_fail', 'on_success', 'checks'],
  check: ['id', 'parameters'],
  outcome: ['feedback'],
  outcome_with_deny: ['feedback', 'deny'],
  feedback: ['value', 'weight', 'metadata'],
} as const satisfies Record<string, readonly string[]>;

export type ClosedObjectKind = keyof typeof CLOSED_OBJECT_KEYS;
