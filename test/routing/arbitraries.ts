// Generators for routing properties: valid configs (strategy trees up to 3 deep with random modes,
// weights, codes, names, conditions and inherited settings), requests, scripted upstream answers
// and circuit states. Every config they make passes checkConfig (the harness throws otherwise).
import { fc } from '@fast-check/vitest';
import { leavesOf, type LeafInfo, type RoutingRequest, type Scenario, type Scripted, type UpstreamScript } from '../reference/evaluate.ts';

export type Raw = Record<string, unknown>;

export interface ConfigOptions {
  /** Deepest nesting of strategies (the root is depth 0). */
  maxDepth?: number;
  modes?: readonly ('single' | 'loadbalance' | 'fallback' | 'conditional')[];
  /** Target names; unique names per strategy are drawn from here. */
  name?: fc.Arbitrary<string>;
  /** Probability-ish weight of a cb_config on a node (0 = never). */
  breakers?: 'none' | 'some' | 'many';
  timeouts?: boolean;
}

const SUCCESSES = [200, 201, 204];
const FAILURES = [400, 404, 408, 429, 500, 502, 503, 504];
const CODES = [400, 404, 408, 429, 500, 502, 503, 504];

const statusCodes = fc.subarray(CODES, { minLength: 1, maxLength: 4 });

const retryArb: fc.Arbitrary<Raw> = fc.record(
  {
    attempts: fc.integer({ min: 0, max: 5 }),
    on_status_codes: statusCodes,
    use_retry_after_headers: fc.boolean(),
  },
  { requiredKeys: ['attempts'] },
);

const breakerArb: fc.Arbitrary<Raw> = fc.record(
  {
    failure_threshold: fc.integer({ min: 1, max: 3 }),
    cooldown_interval: fc.constantFrom(30_000, 45_000),
    failure_status_codes: fc.subarray([429, 500, 502, 503, 504], { minLength: 1 }),
  },
  { requiredKeys: ['failure_threshold', 'cooldown_interval'] },
);

/** `arb` with probability `p` (in tenths), else absent. */
function maybe<T>(arb: fc.Arbitrary<T>, tenths: number): fc.Arbitrary<T | undefined> {
  if (tenths <= 0) return fc.constant(undefined);
  return fc.oneof({ weight: 10 - tenths, arbitrary: fc.constant(undefined) }, { weight: tenths, arbitrary: arb });
}

/** Settings any node may carry (inherited by its leaves, or read by its parent strategy). */
function settingsArb(options: ConfigOptions): fc.Arbitrary<Raw> {
  const breakerTenths = options.breakers === 'many' ? 7 : options.breakers === 'none' ? 0 : 3;
  return fc
    .record({
      weight: maybe(fc.integer({ min: 0, max: 4 }), 6),
      on_status_codes: maybe(statusCodes, 2),
      retry: maybe(retryArb, 3),
      request_timeout: maybe(fc.constantFrom(2, 3), options.timeouts === false ? 0 : 2),
      cb_config: maybe(breakerArb, breakerTenths),
      override_params: maybe(fc.record({ model: fc.constantFrom('m-small', 'm-large'), temperature: fc.constantFrom(0, 0.5, 1) }, { requiredKeys: [] }), 3),
    })
    .map((raw) => Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)));
}

// ---- conditional queries ----

const FIELD_VALUES: Record<string, readonly unknown[]> = {
  'metadata.tier': ['free', 'pro', 'enterprise'],
  'metadata.region': ['eu', 'us'],
  // A metadata key with a dot in it: read whole (metadata is flat).
  'metadata.app.tier': ['free', 'pro'],
  'params.model': ['m-small', 'm-large', 'gpt-4o'],
  'params.max_tokens': [10, 100, 1000, 4000],
  'params.stream': [true, false],
  'params.messages.0.role': ['system', 'user'],
  'url.pathname': ['/v1/chat/completions', '/v1/embeddings'],
};
const FIELDS = Object.keys(FIELD_VALUES);
const REGEXES = ['^m-', 'large$', '^/v1/', 'pro|ent', '.*', '^(eu|us)$', 'sys'];

const comparisonArb: fc.Arbitrary<[string, unknown]> = fc.constantFrom(...FIELDS).chain((field) => {
  const values = FIELD_VALUES[field];
  const value = fc.constantFrom(...values);
  const anyValue = fc.constantFrom(...Object.values(FIELD_VALUES).flat());
  const operand: fc.Arbitrary<unknown> = fc.oneof(
    value,
    fc.record({ $eq: value }),
    fc.record({ $ne: value }),
    fc.constantFrom('$gt', '$gte', '$lt', '$lte').chain((op) => fc.constantFrom(...[...values, 100, 'm'].filter((v) => typeof v === 'number' || typeof v === 'string')).map((v) => ({ [op]: v }))),
    fc.constantFrom('$in', '$nin').chain((op) => fc.subarray([...values, 'zzz']).map((list) => ({ [op]: list }))),
    fc.constantFrom(...REGEXES).map((source) => ({ $regex: source })),
    anyValue.map((v) => ({ $gte: typeof v === 'boolean' ? 0 : v, $ne: v })),
  );
  return operand.map((o) => [field, o] as [string, unknown]);
});

export const queryArb: fc.Arbitrary<Raw> = fc.letrec<{ query: Raw; simple: Raw }>((tie) => ({
  simple: fc.uniqueArray(comparisonArb, { minLength: 0, maxLength: 2, selector: ([field]) => field }).map((pairs) => Object.fromEntries(pairs)),
  query: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('simple'),
    fc.record({ $and: fc.array(tie('query'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ $or: fc.array(tie('query'), { minLength: 1, maxLength: 3 }) }),
    fc.tuple(tie('simple'), fc.array(tie('query'), { minLength: 1, maxLength: 2 })).map(([simple, any]) => ({ ...simple, $or: any })),
  ),
})).query;

// ---- configs ----

const MODE_WEIGHTS = { single: 1, loadbalance: 2, fallback: 3, conditional: 2 } as const;

const leafBase = (): Raw => ({ provider: 'vendor', api_key: 'sk-test' });

function nodeArb(depth: number, options: Required<ConfigOptions>): fc.Arbitrary<Raw> {
  const leaf = settingsArb(options).map((settings) => ({ ...leafBase(), ...settings }));
  if (depth >= options.maxDepth) return leaf;
  return fc.oneof({ weight: depth === 0 ? 1 : 3, arbitrary: leaf }, { weight: 3, arbitrary: strategyArb(depth, options) });
}

function strategyArb(depth: number, options: Required<ConfigOptions>): fc.Arbitrary<Raw> {
  return fc
    .record({
      mode: fc.oneof(...options.modes.map((mode) => ({ weight: MODE_WEIGHTS[mode], arbitrary: fc.constant(mode) }))),
      settings: settingsArb(options),
      targets: fc.array(nodeArb(depth + 1, options), { minLength: 1, maxLength: 3 }),
      codes: maybe(statusCodes, 4),
      names: fc.uniqueArray(options.name, { minLength: 3, maxLength: 3 }),
    })
    .chain(({ mode, settings, targets, codes, names }) => {
      const named: Raw[] = targets.map((target, i) => ({ ...target, name: names[i] }));
      if (mode === 'loadbalance' && named.every((t) => t.weight === 0)) named[0] = { ...named[0], weight: 1 };
      const strategy: Raw = { mode };
      if (codes !== undefined) strategy.on_status_codes = codes;
      const node = (extra: Raw) => ({ ...settings, strategy: { ...strategy, ...extra }, targets: named });
      if (mode !== 'conditional') return fc.constant(node({}));
      const target = fc.integer({ min: 0, max: named.length - 1 }).map((i) => names[i]);
      return fc
        .record({ conditions: fc.array(fc.record({ query: queryArb, then: target }), { minLength: 1, maxLength: 3 }), default: target })
        .map((extra) => node(extra));
    });
}

export function configArb(options: ConfigOptions = {}): fc.Arbitrary<Raw> {
  const full: Required<ConfigOptions> = {
    maxDepth: options.maxDepth ?? 3,
    modes: options.modes ?? ['single', 'loadbalance', 'fallback', 'conditional'],
    name: options.name ?? fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'eps'),
    breakers: options.breakers ?? 'some',
    timeouts: options.timeouts ?? true,
  };
  // Configs arrive as parsed JSON: plain objects, own keys only.
  return nodeArb(0, full).map((config) => JSON.parse(JSON.stringify(config)) as Raw);
}

// ---- requests, answers, circuits ----

export const requestArb: fc.Arbitrary<RoutingRequest> = fc.record(
  {
    metadata: fc.record({ tier: fc.constantFrom('free', 'pro', 'enterprise'), region: fc.constantFrom('eu', 'us', 'ap'), 'app.tier': fc.constantFrom('free', 'pro') }, { requiredKeys: [] }),
    params: fc.record(
      {
        model: fc.constantFrom('m-small', 'm-large', 'gpt-4o', 'x'),
        max_tokens: fc.constantFrom(10, 100, 999, 1000, 4000),
        stream: fc.boolean(),
        messages: fc.array(fc.record({ role: fc.constantFrom('system', 'user'), content: fc.constant('hi') }), { maxLength: 2 }),
      },
      { requiredKeys: [] },
    ),
    pathname: fc.constantFrom('/v1/chat/completions', '/v1/embeddings'),
    timeoutOverrideMs: fc.constantFrom(null, null, null, 2),
  },
  { requiredKeys: ['timeoutOverrideMs'] },
);

export interface AnswerOptions {
  timeouts?: boolean;
  connectionErrors?: boolean;
}

/** One scripted answer; `canTimeOut` only where an attempt timer exists (else the try would hang). */
export function answerArb(canTimeOut: boolean, options: AnswerOptions = {}): fc.Arbitrary<Scripted> {
  const arbs: fc.WeightedArbitrary<Scripted>[] = [
    { weight: 3, arbitrary: fc.constantFrom(...SUCCESSES) },
    { weight: 4, arbitrary: fc.constantFrom(...FAILURES) },
    { weight: 1, arbitrary: fc.constantFrom<Scripted>({ status: 429, headers: { 'retry-after': '1' } }, { status: 503, headers: { 'retry-after-ms': '250' } }, { status: 500, headers: { 'retry-after': 'soon' } }) },
  ];
  if (options.connectionErrors !== false) arbs.push({ weight: 1, arbitrary: fc.constant<Scripted>('connection error') });
  if (canTimeOut && options.timeouts !== false) arbs.push({ weight: 1, arbitrary: fc.constant<Scripted>('timeout') });
  return fc.oneof(...arbs);
}

export function scriptArb(leaves: readonly LeafInfo[], request: RoutingRequest, options: AnswerOptions = {}): fc.Arbitrary<UpstreamScript> {
  const entries = leaves.map((leaf) =>
    fc.array(answerArb((request.timeoutOverrideMs ?? leaf.timeoutMs) != null, options), { minLength: 1, maxLength: 4 }).map((list) => [leaf.path, list] as const),
  );
  return fc.tuple(...entries).map((pairs) => Object.fromEntries(pairs));
}

export const drawsArb = fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 1, maxLength: 4 });

/** A whole scenario over a generated config: request, answers, open circuits, draws. */
export function scenarioArb(config: fc.Arbitrary<Raw> = configArb(), answers: AnswerOptions = {}): fc.Arbitrary<Scenario> {
  return fc.tuple(config, requestArb).chain(([cfg, request]) => {
    const leaves = leavesOf(cfg);
    return fc.record({
      config: fc.constant(cfg),
      request: fc.constant(request),
      upstream: scriptArb(leaves, request, answers),
      open: fc.subarray(leaves.filter((l) => l.hasBreaker).map((l) => l.path)),
      random: drawsArb,
    });
  });
}

/** ROUTING_PROPERTY_SCALE=10 runs every routing property ten times longer (for a soak before a release). */
const SCALE = Math.max(1, Number(process.env.ROUTING_PROPERTY_SCALE ?? 1) || 1);
export const runs = (n: number): number => Math.round(n * SCALE);
/** The project's test timeout (vitest.config.ts), stretched with the scale. */
export const propertyTimeoutMs = (baseMs = 30_000): number => baseMs * SCALE;
