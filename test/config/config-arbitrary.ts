// fast-check arbitraries for configs, written from SPEC §2.1 (not from the schema):
// `structurallyValidConfig` yields configs the schema must accept (some break semantic rules on
// purpose: all weights 0, retries above 5, unknown target names, bad queries, odd status codes), and
// `mutatedConfig` yields near-misses (keys deleted or added, values of the wrong type) at any depth.
import fc from 'fast-check';
import { CONFIG_KEYS, KEY_SETS } from './reference-validity.ts';

type Json = unknown;
type Obj = Record<string, Json>;

const text = fc.string({ maxLength: 8 });
const word = fc.constantFrom('a', 'b', 'primary', 'backup', 'gpt-4o', 'eu', 'x/y', 'til~de', 'ünï', '');
const label = fc.oneof(word, text);
const provider = fc.constantFrom('vendor', '@vendor-prod', 'clouda', 'cloudb', 'cloudc', 'x');
const url = fc.constantFrom('http://127.0.0.1:11434/v1', 'https://models.example.com', 'http://[::1]:8080/v1', 'https://');
const smallJson: fc.Arbitrary<Json> = fc.jsonValue({ maxDepth: 2 });
const jsonObject: fc.Arbitrary<Obj> = fc.dictionary(label, smallJson, { maxKeys: 3 });
const goodStatus = fc.constantFrom(408, 429, 500, 502, 503, 504, 400, 599, 100);
/** Mostly real statuses; sometimes ones the semantic check rejects (still integers). */
const statusList = fc.array(fc.oneof({ weight: 9, arbitrary: goodStatus }, { weight: 1, arbitrary: fc.constantFrom(0, 99, 600, 1000, -1) }), { maxLength: 3 });
const goodStatusList = fc.array(goodStatus, { maxLength: 3 });
/** retry.on_status_codes is "array of numbers": fractions are structurally fine, semantically not. */
const retryStatusList = fc.array(fc.oneof({ weight: 9, arbitrary: goodStatus }, { weight: 1, arbitrary: fc.constantFrom(429.5, 0, 700) }), { maxLength: 3 });

const feedback = fc.record({ value: fc.double({ noNaN: true, noDefaultInfinity: true }), weight: fc.integer({ min: -3, max: 3 }), metadata: jsonObject }, { requiredKeys: [] });
const outcome = fc.record({ feedback }, { requiredKeys: [] });
const outcomeWithDeny = fc.record({ feedback, deny: fc.boolean() }, { requiredKeys: [] });
/** Built-in checks with parameters that fit their schemas (wrong ones are compile errors: test/config/hook-checks.test.ts). */
const validCheck = fc.constantFrom<[string, Obj]>(
  ['default.regexMatch', { rule: 'a+b', not: true }],
  ['default.wordCount', { minWords: 1, maxWords: 50 }],
  ['default.notNull', {}],
  ['default.contains', { words: ['x'], operator: 'none' }],
);
const check = validCheck.map(([id, parameters]) => ({ id, parameters }));
const beforeHook = fc.record(
  { id: label, type: fc.constantFrom('guardrail', 'mutator'), on_fail: outcomeWithDeny, on_success: outcomeWithDeny, checks: fc.array(check, { maxLength: 2 }) },
  { requiredKeys: ['id'] },
);
const afterHook = fc.record(
  { id: label, type: fc.constantFrom('guardrail'), async: fc.boolean(), on_fail: outcome, on_success: outcome, checks: fc.array(check, { maxLength: 2 }) },
  { requiredKeys: ['id'] },
);
const guardrail = (onOutcome: fc.Arbitrary<Obj>) =>
  fc
    .tuple(
      fc.record({ id: label, deny: fc.boolean(), async: fc.boolean(), on_fail: onOutcome, on_success: onOutcome }, { requiredKeys: [] }),
      fc.array(validCheck, { maxLength: 2 }),
    )
    .map(([known, checks]) => ({ ...Object.fromEntries(checks), ...known }));
const deployment = fc.record(
  { deployment_id: label, alias: label, api_version: label, is_default: fc.boolean() },
  { requiredKeys: ['deployment_id', 'alias', 'api_version'] },
);

/** A valid value for each config field except strategy and targets. */
export const FIELD_VALUES: Record<string, fc.Arbitrary<Json>> = {
  provider,
  api_key: fc.constantFrom('sk-example-1', 'sk-example-2', ''),
  virtual_key: fc.constantFrom('vk-example', 'vk-2'),
  custom_host: url,
  prompt_id: fc.constantFrom('pp-1', 'pp-2'),
  override_params: fc.dictionary(fc.constantFrom('model', 'temperature', 'max_tokens', 'seed', 'stop'), smallJson, { maxKeys: 3 }),
  name: word,
  strict_vendor_compliance: fc.boolean(),
  weight: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 5 }), fc.double({ min: 0, max: 10, noNaN: true })),
  on_status_codes: statusList,
  request_timeout: fc.oneof(fc.integer({ min: 1, max: 600000 }), fc.constant(2 ** 31 - 1)),
  forward_headers: fc.array(fc.constantFrom('x-tenant-id', 'X-Request-Source', 'a', 'Host', 'transfer-encoding'), { maxLength: 3 }),
  cache: fc.record({ mode: fc.constantFrom('simple', 'semantic'), max_age: fc.oneof(fc.integer({ min: 1, max: 86400 }), fc.constant(2 ** 31 - 1)) }, { requiredKeys: ['mode'] }),
  retry: fc.record(
    { attempts: fc.integer({ min: 0, max: 8 }), on_status_codes: retryStatusList, use_retry_after_headers: fc.boolean() },
    { requiredKeys: ['attempts'] },
  ),
  cb_config: fc.record(
    {
      failure_threshold: fc.oneof(fc.integer({ min: 1, max: 10 }), fc.double({ min: 1, max: 10, noNaN: true })),
      cooldown_interval: fc.oneof(fc.constant(30000), fc.integer({ min: 30000, max: 600000 })),
      failure_status_codes: statusList,
    },
    { requiredKeys: ['failure_threshold', 'cooldown_interval'] },
  ),
  resource_name: label,
  deployment_id: label,
  api_version: label,
  deployments: fc.array(deployment, { maxLength: 2 }),
  clouda_region: label,
  clouda_deployment_name: label,
  clouda_endpoint_name: label,
  clouda_api_version: label,
  clouda_deployment_type: fc.constantFrom('serverless', 'managed'),
  clouda_resource_name: label,
  clouda_deployment_id: label,
  clouda_model_name: label,
  cloudb_project_id: label,
  cloudb_region: label,
  cloudb_service_account_json: jsonObject,
  cloudc_access_key_id: label,
  cloudc_secret_access_key: label,
  cloudc_region: label,
  cloudc_session_token: label,
  vendor_organization: label,
  vendor_project: label,
  before_request_hooks: fc.array(beforeHook, { maxLength: 2 }),
  after_request_hooks: fc.array(afterHook, { maxLength: 2 }),
  input_guardrails: fc.array(guardrail(outcome), { maxLength: 2 }),
  output_guardrails: fc.array(guardrail(outcomeWithDeny), { maxLength: 2 }),
};

const OPTIONAL_KEYS = CONFIG_KEYS.filter((k) => k !== 'strategy' && k !== 'targets');
const LEAF_KEY_SETS = KEY_SETS.filter((set) => !set.includes('strategy'));

/** A handful of optional fields, each with a valid value. */
const optionalFields: fc.Arbitrary<Obj> = fc
  .subarray(OPTIONAL_KEYS, { maxLength: 4 })
  .chain((keys) => fc.record(Object.fromEntries(keys.map((k) => [k, FIELD_VALUES[k]]))) as fc.Arbitrary<Obj>);

/** A config without a strategy: one of the 17 non-strategy key sets in full, plus optional fields. */
const leafConfig: fc.Arbitrary<Obj> = fc
  .constantFrom(...LEAF_KEY_SETS)
  .chain((set) => fc.tuple(fc.record(Object.fromEntries(set.map((k) => [k, FIELD_VALUES[k]]))) as fc.Arbitrary<Obj>, optionalFields))
  .map(([required, extra]) => ({ ...extra, ...required }));

// Query pieces: mostly well-formed, with the mistakes ARCHITECTURE §5 makes compile errors mixed in.
const queryField = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('metadata.tier', 'metadata._user', 'params.model', 'params.a.b', 'url.pathname', 'metadata.x/y~z') },
  { weight: 1, arbitrary: fc.constantFrom('model', 'metadata', 'metadata.', 'params..x', 'url.host', 'body.x', 'params.messages[0].role', 'metadata.a[0]') },
);
const regexSource = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('^gpt', 'mini$', '[a-z]+', '') }, { weight: 1, arbitrary: fc.constantFrom('(', '[a-', '*x') });
const operatorClause = fc.oneof(
  fc.record({ $eq: smallJson }),
  fc.record({ $ne: smallJson }),
  fc.record({ $gt: fc.oneof(fc.integer(), text) }),
  fc.record({ $gte: fc.integer(), $lt: fc.integer() }),
  fc.record({ $lte: fc.oneof({ weight: 5, arbitrary: fc.integer() }, { weight: 1, arbitrary: fc.constant(null) }) }),
  fc.record({ $in: fc.oneof({ weight: 5, arbitrary: fc.array(smallJson, { maxLength: 3 }) }, { weight: 1, arbitrary: fc.constant('pro') }) }),
  fc.record({ $nin: fc.array(text, { maxLength: 2 }) }),
  fc.record({ $regex: fc.oneof({ weight: 8, arbitrary: regexSource }, { weight: 1, arbitrary: fc.constant(5) }) }),
  fc.constantFrom({ $exists: true }, { $eq: 1, plain: 2 }),
);
const fieldValue = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), operatorClause);
export const query: fc.Arbitrary<Obj> = fc.letrec<{ q: Obj }>((tie) => ({
  q: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.dictionary(queryField, fieldValue, { minKeys: 1, maxKeys: 2 }),
    fc.record({ $and: fc.array(tie('q'), { maxLength: 2 }) }),
    fc.record({ $or: fc.array(tie('q'), { minLength: 1, maxLength: 2 }) }),
    fc.constantFrom({ $nor: [] }, { $and: 'x' }),
  ),
})).q;

const MODES = ['single', 'loadbalance', 'fallback', 'conditional'] as const;

/** A strategy node over `child` targets. Names are mostly unique and conditions mostly name real targets. */
function strategyConfig(child: fc.Arbitrary<Obj>): fc.Arbitrary<Obj> {
  return fc
    .record({
      mode: fc.constantFrom(...MODES),
      targets: fc.oneof({ weight: 12, arbitrary: fc.array(child, { minLength: 1, maxLength: 3 }) }, { weight: 1, arbitrary: fc.constant([] as Obj[]) }),
      names: fc.array(fc.oneof({ weight: 6, arbitrary: fc.constantFrom('a', 'b', 'c') }, { weight: 1, arbitrary: fc.constant(null) }), { minLength: 3, maxLength: 3 }),
      uniqueNames: fc.boolean(),
      conditionRefs: fc.array(fc.tuple(query, fc.oneof({ weight: 6, arbitrary: fc.nat(2) }, { weight: 1, arbitrary: fc.constant('nobody') })), { maxLength: 3 }),
      defaultRef: fc.oneof({ weight: 6, arbitrary: fc.nat(2) }, { weight: 1, arbitrary: fc.constant('nobody') }),
      onStatusCodes: fc.option(statusList, { nil: undefined }),
      extra: optionalFields,
    })
    .map(({ mode, targets, names, uniqueNames, conditionRefs, defaultRef, onStatusCodes, extra }) => {
      const named = (targets as Obj[]).map((t: Obj, i: number) => {
        const name = uniqueNames ? ['a', 'b', 'c'][i] : names[i];
        const copy = { ...t };
        if (name === null) delete copy.name;
        else copy.name = name;
        return copy;
      });
      const ref = (r: number | string) => (typeof r === 'number' ? ((named[r % Math.max(1, named.length)]?.name as string | undefined) ?? 'a') : r);
      const strategy: Obj = { mode };
      if (mode === 'conditional') {
        strategy.conditions = conditionRefs.map(([q, r]) => ({ query: q, then: ref(r) }));
        strategy.default = ref(defaultRef);
      }
      if (onStatusCodes !== undefined) strategy.on_status_codes = onStatusCodes;
      return { ...extra, strategy, targets: named };
    });
}

function configOfDepth(depth: number): fc.Arbitrary<Obj> {
  if (depth === 0) return leafConfig;
  const child = configOfDepth(depth - 1);
  return fc.oneof(
    { weight: 3, arbitrary: leafConfig },
    { weight: 3, arbitrary: strategyConfig(child) },
    // `targets` without a strategy: structurally fine when another key set is complete.
    { weight: 1, arbitrary: fc.tuple(leafConfig, fc.array(child, { maxLength: 2 })).map(([leaf, targets]) => ({ ...leaf, targets })) },
  );
}

/** Configs the schema must accept (SPEC §2.1), nested up to three levels. */
export const structurallyValidConfig: fc.Arbitrary<Obj> = configOfDepth(3);


// ---- mutations ---------------------------------------------------------------------------------

/** Every key the format knows at some level, for additions that look plausible. */
const KNOWN_KEYS = [
  ...CONFIG_KEYS, 'mode', 'conditions', 'default', 'query', 'then', 'max_age', 'attempts', 'use_retry_after_headers',
  'failure_threshold', 'cooldown_interval', 'failure_status_codes', 'alias', 'is_default', 'id', 'type', 'async',
  'on_fail', 'on_success', 'checks', 'parameters', 'feedback', 'deny', 'value', 'metadata',
];
const anyValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom('x', '', 'simple', 'conditional', 'http://h', 0, -1, 1, 2.5, 30000, true, false, null, [], {}, [429], ['a'], { mode: 'simple' }),
  smallJson,
);

export type Mutation =
  | { kind: 'delete'; at: number; key: number }
  | { kind: 'add'; at: number; key: string; value: Json }
  | { kind: 'retype'; at: number; value: Json }
  | { kind: 'nudge'; at: number; to: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), key: fc.nat() }),
  fc.record({ kind: fc.constant('add' as const), at: fc.nat(), key: fc.oneof(fc.constantFrom(...KNOWN_KEYS), text), value: anyValue }),
  fc.record({ kind: fc.constant('retype' as const), at: fc.nat(), value: anyValue }),
  // Numbers just past a boundary: minimums (0, 1, 30000), integer-ness, sign.
  fc.record({ kind: fc.constant('nudge' as const), at: fc.nat(), to: fc.constantFrom(0, -1, 0.5, 1, 29999, 30000, 2.5) }),
);

/** Paths of every number in a JSON value. */
function numbers(value: Json, path: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (typeof value === 'number') out.push(path);
  else if (Array.isArray(value)) value.forEach((v, i) => numbers(v, [...path, i], out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) numbers(v, [...path, k], out);
  return out;
}

/** Every container (object or array) in a JSON value, as a path of keys/indices from the root. */
export function containers(value: Json, path: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (Array.isArray(value)) {
    out.push(path);
    value.forEach((v, i) => containers(v, [...path, i], out));
  } else if (value !== null && typeof value === 'object') {
    out.push(path);
    for (const [k, v] of Object.entries(value)) containers(v, [...path, k], out);
  }
  return out;
}

function at(root: Json, path: (string | number)[]): Json {
  return path.reduce<Json>((node, key) => (node as Record<string | number, Json>)[key], root);
}

/** Applies mutations to a deep copy; indices wrap around so every mutation lands somewhere. */
export function applyMutations(config: Obj, mutations: Mutation[]): Json {
  const root: Json = structuredClone(config);
  for (const original of mutations) {
    // Values may be shared constants: copy them so a later mutation cannot alter (or loop) them.
    const m = 'value' in original ? { ...original, value: structuredClone(original.value) } : original;
    if (m.kind === 'nudge') {
      const found = numbers(root);
      if (found.length === 0) continue;
      const path = found[m.at % found.length];
      (at(root, path.slice(0, -1)) as Record<string | number, Json>)[path[path.length - 1]] = m.to;
      continue;
    }
    const places = containers(root);
    if (places.length === 0) break;
    const path = places[m.at % places.length];
    const target = at(root, path);
    if (m.kind === 'retype') {
      // Replace one member of the container (or the container itself at the root).
      const keys = Array.isArray(target) ? target.map((_, i) => i) : Object.keys(target as Obj);
      if (keys.length === 0) continue;
      const key = keys[m.at % keys.length];
      (target as Record<string | number, Json>)[key] = m.value;
    } else if (m.kind === 'delete') {
      if (Array.isArray(target)) {
        if (target.length > 0) target.splice(m.key % target.length, 1);
      } else {
        const keys = Object.keys(target as Obj);
        if (keys.length > 0) delete (target as Obj)[keys[m.key % keys.length]];
      }
    } else if (Array.isArray(target)) {
      target.push(m.value);
    } else {
      Object.defineProperty(target, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
    }
  }
  return root;
}

/** Near misses of `valid`: one to three random mutations anywhere in a valid config. */
export function nearMisses(valid: fc.Arbitrary<Obj>): fc.Arbitrary<Json> {
  return fc.tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([config, mutations]) => applyMutations(config, mutations));
}

export const mutatedConfig: fc.Arbitrary<Json> = nearMisses(structurallyValidConfig);
