// The RoutePlan (compiler/config/plan.ts): inheritance from parents to targets, defaults, paths,
// names resolved to indices, readsBody; and, over generated configs, agreement with a reference
// walk of the inheritance rules, determinism and plain-JSON round trips.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkConfig } from '../../compiler/config/index.ts';
import { DEFAULT_RETRY_STATUS_CODES, planConfig } from '../../compiler/config/plan.ts';
import type { PlanLeaf, PlanNode, PlanStrategy, RoutePlan } from '../../compiler/config/route-plan.ts';
import { structurallyValidConfig } from './config-arbitrary.ts';
import { referenceSemanticErrors } from './reference-semantics.ts';

type Obj = Record<string, unknown>;

function plan(config: Obj): RoutePlan {
  const result = checkConfig(config, 'test');
  if (!result.ok) throw new Error(`config is invalid: ${JSON.stringify(result.errors)}`);
  return result.plan;
}
function node(p: RoutePlan, ...indices: number[]): PlanNode {
  return indices.reduce<PlanNode>((n, i) => (n as PlanStrategy).targets[i], p.root);
}
const leaf = (p: RoutePlan, ...indices: number[]) => node(p, ...indices) as PlanLeaf;
const strategy = (p: RoutePlan, ...indices: number[]) => node(p, ...indices) as PlanStrategy;
const fallback = (targets: Obj[], extra: Obj = {}): Obj => ({ strategy: { mode: 'fallback' }, targets, ...extra });

describe('inheritance', () => {
  it('merges override_params shallowly from the root down, the child winning', () => {
    const p = plan(fallback(
      [
        fallback([{ virtual_key: 'v', override_params: { max_tokens: 10 } }], { override_params: { model: 'child', response_format: { type: 'text' } } }),
        { virtual_key: 'w' },
      ],
      { override_params: { model: 'root', temperature: 0.5, response_format: { type: 'json_object', schema: {} } } },
    ));
    expect(leaf(p, 0, 0).overrideParams).toEqual({ model: 'child', temperature: 0.5, response_format: { type: 'text' }, max_tokens: 10 });
    expect(strategy(p, 0).overrideParams).toEqual({ model: 'child', temperature: 0.5, response_format: { type: 'text' } });
    expect(leaf(p, 1).overrideParams).toEqual({ model: 'root', temperature: 0.5, response_format: { type: 'json_object', schema: {} } });
  });

  // [config field, parent value, child value, plan field, planned parent value, planned child value]
  const rows: Array<[string, unknown, unknown, keyof PlanLeaf, unknown, unknown]> = [
    ['retry', { attempts: 2 }, { attempts: 4, on_status_codes: [503], use_retry_after_headers: true }, 'retry',
      { attempts: 2, onStatusCodes: [429, 500, 502, 503, 504, 529], useRetryAfterHeaders: false }, { attempts: 4, onStatusCodes: [503], useRetryAfterHeaders: true }],
    ['cache', { mode: 'simple' }, { mode: 'semantic', max_age: 60 }, 'cache', { mode: 'simple', maxAgeSeconds: null }, { mode: 'semantic', maxAgeSeconds: 60 }],
    ['cb_config', { failure_threshold: 3, cooldown_interval: 30000 }, { failure_threshold: 1, cooldown_interval: 60000, failure_status_codes: [500] }, 'breaker',
      { failureThreshold: 3, cooldownMs: 30000, failureStatusCodes: null }, { failureThreshold: 1, cooldownMs: 60000, failureStatusCodes: [500] }],
    ['request_timeout', 5000, 100, 'requestTimeoutMs', 5000, 100],
    ['custom_host', 'http://127.0.0.1:11434/v1', 'https://models.example.com', 'customHost', 'http://127.0.0.1:11434/v1', 'https://models.example.com'],
    ['forward_headers', ['X-Tenant-Id'], ['x-other', 'X-Trace'], 'forwardHeaders', ['x-tenant-id'], ['x-other', 'x-trace']],
    ['before_request_hooks', [{ id: 'parent' }], [{ id: 'child' }], 'beforeRequestHooks', [{ id: 'parent' }], [{ id: 'child' }]],
    ['after_request_hooks', [{ id: 'parent' }], [{ id: 'child', async: true }], 'afterRequestHooks', [{ id: 'parent' }], [{ id: 'child', async: true }]],
    ['input_guardrails', [{ id: 'parent' }], [{ id: 'child', deny: true }], 'inputGuardrails', [{ id: 'parent' }], [{ id: 'child', deny: true }]],
    ['output_guardrails', [{ id: 'parent' }], [{ id: 'child' }], 'outputGuardrails', [{ id: 'parent' }], [{ id: 'child' }]],
  ];
  it.each(rows)('%s: the child\'s own value, else the parent\'s', (field, parentValue, childValue, planField, plannedParent, plannedChild) => {
    const p = plan(fallback(
      [
        { virtual_key: 'inherits' },
        fallback([{ virtual_key: 'grandchild-inherits' }, { virtual_key: 'grandchild-own', [field]: parentValue }], { [field]: childValue }),
      ],
      { [field]: parentValue },
    ));
    expect(p.root[planField as keyof PlanNode]).toEqual(plannedParent);
    expect(leaf(p, 0)[planField]).toEqual(plannedParent);
    expect(strategy(p, 1)[planField as keyof PlanNode]).toEqual(plannedChild);
    expect(leaf(p, 1, 0)[planField]).toEqual(plannedChild);
    expect(leaf(p, 1, 1)[planField]).toEqual(plannedParent);
  });

  it('an empty list of the child\'s own still replaces the parent\'s', () => {
    const p = plan(fallback([{ virtual_key: 'v', input_guardrails: [], forward_headers: [] }], { input_guardrails: [{ id: 'g' }], forward_headers: ['x-a'] }));
    expect(leaf(p, 0).inputGuardrails).toEqual([]);
    expect(leaf(p, 0).forwardHeaders).toEqual([]);
  });

  describe('provider credentials, inherited as a group that children may refine', () => {
    const parent = { provider: 'vendor', api_key: 'sk-parent', vendor_organization: 'org-parent' };

    it('by a child that names no provider', () => {
      const p = plan(fallback([{ name: 'retry-only', retry: { attempts: 1 }, override_params: { model: 'm' } }, { name: 'timeout-only', request_timeout: 10 }], parent));
      for (const i of [0, 1]) {
        expect(leaf(p, i)).toMatchObject({ provider: 'vendor', apiKey: 'sk-parent', virtualKey: null, providerOptions: { vendor_organization: 'org-parent' } });
      }
    });

    it('refined key by key by a child that names no provider', () => {
      const p = plan(fallback([{ api_key: 'sk-child', vendor_project: 'proj', request_timeout: 1000 }], parent));
      expect(leaf(p, 0)).toMatchObject({ provider: 'vendor', apiKey: 'sk-child', providerOptions: { vendor_organization: 'org-parent', vendor_project: 'proj' } });
    });

    it('never by a child that names its own provider: the parent key does not travel to another provider', () => {
      const p = plan(fallback([{ provider: 'ollama', custom_host: 'http://127.0.0.1:11434/v1' }], parent));
      expect(leaf(p, 0)).toMatchObject({ provider: 'ollama', apiKey: null, virtualKey: null, providerOptions: {} });
    });

    it('never by a child with a virtual key', () => {
      const p = plan(fallback([{ virtual_key: 'vk' }], parent));
      expect(leaf(p, 0)).toMatchObject({ provider: null, apiKey: null, virtualKey: 'vk', providerOptions: {} });
    });

    it('through several levels', () => {
      const p = plan(fallback([fallback([{ retry: { attempts: 1 } }], { request_timeout: 5 })], parent));
      expect(leaf(p, 0, 0)).toMatchObject({ provider: 'vendor', apiKey: 'sk-parent' });
    });

    it('leaves a config without any provider to the request headers', () => {
      const p = plan({ retry: { attempts: 2 } });
      expect(p.root).toMatchObject({ kind: 'leaf', provider: null, apiKey: null, virtualKey: null });
    });
  });

  it('prompt_id and strict_vendor_compliance reach the leaves', () => {
    const p = plan(fallback([{ virtual_key: 'v' }, { virtual_key: 'w', prompt_id: 'own', strict_vendor_compliance: false }], { prompt_id: 'pp', strict_vendor_compliance: true }));
    expect(leaf(p, 0)).toMatchObject({ promptId: 'pp', strictVendorCompliance: true });
    expect(leaf(p, 1)).toMatchObject({ promptId: 'own', strictVendorCompliance: false });
  });
});

describe('defaults', () => {
  const p = plan(fallback([{ virtual_key: 'v', retry: { attempts: 1 } }, { virtual_key: 'w', weight: 0.25 }]));
  it('weight 1 unless set', () => {
    expect(leaf(p, 0).weight).toBe(1);
    expect(leaf(p, 1).weight).toBe(0.25);
    expect(p.root.weight).toBe(1);
  });
  it('retry: the default status codes, Retry-After headers off', () => {
    expect(DEFAULT_RETRY_STATUS_CODES).toEqual([429, 500, 502, 503, 504, 529]);
    expect(leaf(p, 0).retry).toEqual({ attempts: 1, onStatusCodes: [429, 500, 502, 503, 504, 529], useRetryAfterHeaders: false });
  });
  it('nothing set means null or empty, never invented values', () => {
    expect(leaf(p, 1)).toMatchObject({
      retry: null, cache: null, breaker: null, requestTimeoutMs: null, customHost: null, forwardHeaders: [], overrideParams: {},
      beforeRequestHooks: [], afterRequestHooks: [], inputGuardrails: [], outputGuardrails: [], onStatusCodes: null, name: null, promptId: null,
      strictVendorCompliance: false,
    });
    expect(strategy(p)).toMatchObject({ fallbackOnStatusCodes: null, conditions: [], defaultTarget: null });
  });
  it('status-code lists are kept as given', () => {
    const q = plan(fallback([{ virtual_key: 'v', on_status_codes: [503] }], { strategy: { mode: 'fallback', on_status_codes: [429, 500] } }));
    expect(strategy(q).fallbackOnStatusCodes).toEqual([429, 500]);
    expect(leaf(q, 0).onStatusCodes).toEqual([503]);
  });
});

describe('paths and names', () => {
  const config: Obj = {
    strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.tier': 'pro' }, then: 'big' }, { query: { 'url.pathname': { $regex: 'embeddings$' } }, then: 'pool' }], default: 'small' },
    targets: [
      { name: 'small', virtual_key: 'a' },
      { name: 'pool', strategy: { mode: 'loadbalance' }, targets: [{ virtual_key: 'b' }, { virtual_key: 'c', weight: 3 }] },
      { name: 'big', virtual_key: 'd' },
    ],
  };
  const p = plan(config);
  it('each node carries its path as echoed in x-gateway-last-used-option-index', () => {
    expect(p.root.path).toBe('config');
    expect(node(p, 1).path).toBe('config.targets[1]');
    expect(node(p, 1, 1).path).toBe('config.targets[1].targets[1]');
  });
  it('resolves then and default to target indices', () => {
    expect(strategy(p).conditions.map((c) => c.then)).toEqual([2, 1]);
    expect(strategy(p).defaultTarget).toBe(0);
  });
  it('parses queries: a bare value is $eq', () => {
    expect(strategy(p).conditions[0].query).toEqual({ op: 'compare', field: { root: 'metadata', path: ['tier'] }, operator: '$eq', value: 'pro' });
    expect(strategy(p).conditions[1].query).toEqual({ op: 'compare', field: { root: 'url', path: ['pathname'] }, operator: '$regex', value: 'embeddings$' });
  });
  it('reads all after metadata. as one key (metadata is flat), and params paths segment by segment', () => {
    const dotted = plan({ ...config, strategy: { ...(config.strategy as Obj), conditions: [{ query: { 'metadata.app.tier': 'pro', 'params.response_format.type': 'json_object' }, then: 'big' }] } });
    expect(strategy(dotted).conditions[0].query).toEqual({
      op: 'and',
      all: [
        { op: 'compare', field: { root: 'metadata', path: ['app.tier'] }, operator: '$eq', value: 'pro' },
        { op: 'compare', field: { root: 'params', path: ['response_format', 'type'] }, operator: '$eq', value: 'json_object' },
      ],
    });
  });
  it('parses $and / $or and several operators on one field', () => {
    const q = plan({
      strategy: { mode: 'conditional', conditions: [{ query: { $or: [{ 'params.a.b': { $gte: 1, $lt: 5 } }, { 'metadata._user': { $nin: ['x'] } }] }, then: 'a' }], default: 'a' },
      targets: [{ name: 'a', virtual_key: 'v' }],
    });
    expect(strategy(q).conditions[0].query).toEqual({
      op: 'or',
      any: [
        { op: 'and', all: [
          { op: 'compare', field: { root: 'params', path: ['a', 'b'] }, operator: '$gte', value: 1 },
          { op: 'compare', field: { root: 'params', path: ['a', 'b'] }, operator: '$lt', value: 5 },
        ] },
        { op: 'compare', field: { root: 'metadata', path: ['_user'] }, operator: '$nin', value: ['x'] },
      ],
    });
  });
  it('the plan carries the config ID', () => {
    expect(p.configId).toBe('test');
    expect(p.planVersion).toBe(1);
  });
});

describe('readsBody', () => {
  const cases: Array<[string, Obj, boolean]> = [
    ['a plain provider', { provider: 'vendor', api_key: 'k' }, false],
    ['retry, timeout, breaker and forwarded headers', { virtual_key: 'v', retry: { attempts: 2 }, request_timeout: 5, forward_headers: ['x'], cb_config: { failure_threshold: 1, cooldown_interval: 30000 } }, false],
    ['override_params on a nested target', fallback([{ virtual_key: 'v' }, fallback([{ virtual_key: 'w', override_params: { model: 'm' } }])]), true],
    ['cache', { cache: { mode: 'simple' } }, true],
    ['a before-request hook', { before_request_hooks: [{ id: 'h' }] }, true],
    ['an after-request hook', { after_request_hooks: [{ id: 'h' }] }, true],
    ['an input guardrail', { input_guardrails: [{ id: 'g' }] }, true],
    ['an output guardrail', { output_guardrails: [{ id: 'g' }] }, true],
    ['a prompt template', { prompt_id: 'p' }, true],
    ['a condition on params', { strategy: { mode: 'conditional', conditions: [{ query: { $and: [{ 'metadata.a': 1 }, { 'params.model': 'x' }] }, then: 'a' }], default: 'a' }, targets: [{ name: 'a', virtual_key: 'v' }] }, true],
    ['conditions on metadata and the path only', { strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.a': 1, 'url.pathname': '/v1/chat/completions' }, then: 'a' }], default: 'a' }, targets: [{ name: 'a', virtual_key: 'v' }] }, false],
  ];
  it.each(cases)('%s → %s', (_, config, expected) => {
    expect(plan(config).readsBody).toBe(expected);
  });
});

// ---- properties -------------------------------------------------------------------------------

const PROVIDER_KEYS = [
  'provider', 'api_key', 'virtual_key', 'resource_name', 'deployment_id', 'api_version', 'deployments',
  'clouda_region', 'clouda_deployment_name', 'clouda_endpoint_name', 'clouda_api_version', 'clouda_deployment_type',
  'clouda_resource_name', 'clouda_deployment_id', 'clouda_model_name', 'cloudb_project_id', 'cloudb_region',
  'cloudb_service_account_json', 'cloudc_access_key_id', 'cloudc_secret_access_key', 'cloudc_region', 'cloudc_session_token',
  'vendor_organization', 'vendor_project',
];

/** The nearest value of `key` on the chain from the node up to the root. */
const nearest = (chain: Obj[], key: string) => chain.find((n) => n[key] !== undefined)?.[key];

/** Checks one plan node against the inheritance rules applied to its raw ancestors (nearest first). */
function checkAgainstReference(planned: PlanNode, chain: Obj[], path: string): void {
  const raw = chain[0];
  expect(planned.path).toBe(path);
  expect(planned.weight).toBe(typeof raw.weight === 'number' ? raw.weight : 1);
  expect(planned.name).toBe(typeof raw.name === 'string' ? raw.name : null);
  const retry = nearest(chain, 'retry') as Obj | undefined;
  expect(planned.retry).toEqual(retry === undefined ? null : {
    attempts: retry.attempts,
    onStatusCodes: (retry.on_status_codes as number[] | undefined) ?? [...DEFAULT_RETRY_STATUS_CODES],
    useRetryAfterHeaders: retry.use_retry_after_headers === true,
  });
  const cache = nearest(chain, 'cache') as Obj | undefined;
  expect(planned.cache).toEqual(cache === undefined ? null : { mode: cache.mode, maxAgeSeconds: cache.max_age ?? null });
  const cb = nearest(chain, 'cb_config') as Obj | undefined;
  expect(planned.breaker).toEqual(cb === undefined ? null : { failureThreshold: cb.failure_threshold, cooldownMs: cb.cooldown_interval, failureStatusCodes: cb.failure_status_codes ?? null });
  expect(planned.requestTimeoutMs).toBe(nearest(chain, 'request_timeout') ?? null);
  expect(planned.customHost).toBe(nearest(chain, 'custom_host') ?? null);
  expect(planned.forwardHeaders).toEqual(((nearest(chain, 'forward_headers') as string[] | undefined) ?? []).map((h) => h.toLowerCase()));
  for (const [key, field] of [['before_request_hooks', 'beforeRequestHooks'], ['after_request_hooks', 'afterRequestHooks'], ['input_guardrails', 'inputGuardrails'], ['output_guardrails', 'outputGuardrails']] as const) {
    expect(planned[field]).toEqual(nearest(chain, key) ?? []);
  }
  expect(planned.overrideParams).toEqual(Object.assign({}, ...[...chain].reverse().map((n) => n.override_params ?? {})));
  if (planned.kind === 'leaf') {
    // The group starts at the nearest node naming a provider or virtual key; nodes below refine it.
    const start = chain.findIndex((n) => 'provider' in n || 'virtual_key' in n);
    const owner: Obj = Object.assign({}, ...chain.slice(0, start === -1 ? chain.length : start + 1).reverse().map((n) => Object.fromEntries(PROVIDER_KEYS.filter((k) => k in n).map((k) => [k, n[k]]))));
    expect(planned.provider).toBe(owner.provider ?? null);
    expect(planned.apiKey).toBe(owner.api_key ?? null);
    expect(planned.virtualKey).toBe(owner.virtual_key ?? null);
    expect(planned.providerOptions).toEqual(Object.fromEntries(PROVIDER_KEYS.slice(3).filter((k) => k in owner).map((k) => [k, owner[k]])));
    expect(planned.promptId).toBe(nearest(chain, 'prompt_id') ?? null);
  } else {
    const targets = raw.targets as Obj[];
    expect(planned.targets).toHaveLength(targets.length);
    const names = targets.map((t) => t.name);
    const strategyRaw = raw.strategy as Obj;
    if (strategyRaw.mode === 'conditional') {
      expect(planned.defaultTarget).toBe(names.indexOf(strategyRaw.default));
      expect(planned.conditions.map((c) => c.then)).toEqual((strategyRaw.conditions as Obj[]).map((c) => names.indexOf(c.then)));
    }
    targets.forEach((t, i) => checkAgainstReference(planned.targets[i], [t, ...chain], `${path}.targets[${i}]`));
  }
}

/** True when a value is plain JSON: null, booleans, finite numbers, strings, arrays and plain objects only. */
function isPlainJson(value: unknown, seen = new Set<unknown>()): boolean {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || seen.has(value)) return false;
  seen.add(value);
  const ok = Array.isArray(value)
    ? value.every((v) => isPlainJson(v, seen))
    : Object.getPrototypeOf(value) === Object.prototype && Object.values(value).every((v) => v !== undefined && isPlainJson(v, seen));
  seen.delete(value);
  return ok;
}

// Through JSON, as saved and inline configs arrive (fast-check may also build null-prototype objects).
const plannable = structurallyValidConfig.filter((c) => referenceSemanticErrors(c).length === 0).map((c) => JSON.parse(JSON.stringify(c)) as Obj);

describe('plan properties', () => {
  it('agrees with the reference inheritance walk on every node', () => {
    fc.assert(
      fc.property(plannable, (config) => {
        checkAgainstReference(plan(config).root, [config], 'config');
      }),
      { numRuns: 300 },
    );
  });

  it('is deterministic and plain JSON that round-trips', () => {
    fc.assert(
      fc.property(plannable, (config) => {
        const first = planConfig(config, 'p');
        const again = planConfig(structuredClone(config), 'p');
        const text = JSON.stringify(first);
        expect(JSON.stringify(again)).toBe(text);
        expect(isPlainJson(first)).toBe(true);
        expect(JSON.stringify(JSON.parse(text))).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
