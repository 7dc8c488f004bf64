// ONE routing suite, two implementations: the compiled router (checkConfig → emit → RouterRuntime)
// and the reference evaluator written from the spec. Every case states the full expected result
// (tries in order, status, answering leaf, its retries, gateway error, retry waits, random draws).
import { describe, expect, test } from 'vitest';
import { evaluate, type RoutingResult, type Scenario } from '../reference/evaluate.ts';
import { runCompiled } from './harness.ts';

type Raw = Record<string, unknown>;

interface Case extends Scenario {
  name: string;
  expect: Pick<RoutingResult, 'tried' | 'status' | 'leafPath'> & Partial<RoutingResult>;
}

const leaf = (extra: Raw = {}): Raw => ({ provider: 'vendor', api_key: 'sk-test', ...extra });
const named = (name: string, extra: Raw = {}): Raw => leaf({ name, ...extra });
const at = (...indices: number[]): string => `config${indices.map((i) => `.targets[${i}]`).join('')}`;
const CB = { failure_threshold: 1, cooldown_interval: 30_000 };
const T0 = at(0);
const T1 = at(1);
const T2 = at(2);

/** Conditional over targets `free`, `pro`, `other` (in that order), default `other`. */
const conditional = (conditions: { query: Raw; then: string }[]): Raw => ({
  strategy: { mode: 'conditional', conditions, default: 'other' },
  targets: [named('free'), named('pro'), named('other')],
});

const CASES: Case[] = [
  // ---- single ----
  { name: 'a bare provider config is one leaf at `config`', config: leaf(), expect: { tried: ['config'], status: 200, leafPath: 'config' } },
  {
    name: 'single mode uses the first target and never falls back',
    config: { strategy: { mode: 'single' }, targets: [leaf(), leaf()] },
    upstream: { [T0]: [500] },
    expect: { tried: [T0], status: 500, leafPath: T0 },
  },
  {
    name: 'single mode goes to its target even when that circuit is open',
    config: { strategy: { mode: 'single' }, targets: [leaf({ cb_config: CB }), leaf()] },
    open: [T0],
    expect: { tried: [T0], status: 200, leafPath: T0 },
  },
  // ---- loadbalance ----
  {
    name: 'loadbalance maps one draw over cumulative weights (0.2·4 < 1 → first)',
    config: { strategy: { mode: 'loadbalance' }, targets: [leaf({ weight: 1 }), leaf({ weight: 3 })] },
    random: [0.2],
    expect: { tried: [T0], status: 200, leafPath: T0, draws: 1 },
  },
  {
    name: 'loadbalance: the draw exactly at a boundary belongs to the next target (0.25·4 = 1)',
    config: { strategy: { mode: 'loadbalance' }, targets: [leaf({ weight: 1 }), leaf({ weight: 3 })] },
    random: [0.25],
    expect: { tried: [T1], status: 200, leafPath: T1, draws: 1 },
  },
  {
    name: 'loadbalance weight defaults to 1 (0.7·3 = 2.1 → third)',
    config: { strategy: { mode: 'loadbalance' }, targets: [leaf(), leaf(), leaf()] },
    random: [0.7],
    expect: { tried: [T2], status: 200, leafPath: T2, draws: 1 },
  },
  {
    name: 'loadbalance never picks a weight-0 target, even on a draw of 0',
    config: { strategy: { mode: 'loadbalance' }, targets: [leaf({ weight: 0 }), leaf({ weight: 2 }), leaf({ weight: 0 })] },
    random: [0],
    expect: { tried: [T1], status: 200, leafPath: T1, draws: 1 },
  },
  {
    name: 'loadbalance skips an open circuit and weighs the rest',
    config: { strategy: { mode: 'loadbalance' }, targets: [leaf({ cb_config: CB }), leaf({ cb_config: CB })] },
    open: [T0],
    random: [0.1],
    expect: { tried: [T1], status: 200, leafPath: T1, draws: 1 },
  },
  {
    name: 'loadbalance with every circuit open still picks by weight, with one draw',
    config: { strategy: { mode: 'loadbalance' }, cb_config: CB, targets: [leaf({ weight: 1 }), leaf({ weight: 1 })] },
    open: [T0, T1],
    random: [0.6],
    expect: { tried: [T1], status: 200, leafPath: T1, draws: 1 },
  },
  {
    name: 'loadbalance does not fall back: the picked target’s failure is the answer',
    config: { strategy: { mode: 'loadbalance' }, targets: [leaf(), leaf()] },
    random: [0.1],
    upstream: { [T0]: [503] },
    expect: { tried: [T0], status: 503, leafPath: T0, draws: 1 },
  },
  // ---- fallback ----
  {
    name: 'fallback moves on from any non-2xx when no codes are listed',
    config: { strategy: { mode: 'fallback' }, targets: [leaf(), leaf(), leaf()] },
    upstream: { [T0]: [500], [T1]: [404] },
    expect: { tried: [T0, T1, T2], status: 200, leafPath: T2 },
  },
  {
    name: 'fallback stops at the first 2xx',
    config: { strategy: { mode: 'fallback' }, targets: [leaf(), leaf()] },
    upstream: { [T0]: [201] },
    expect: { tried: [T0], status: 201, leafPath: T0 },
  },
  {
    name: 'fallback treats 3xx as a failure when no codes are listed',
    config: { strategy: { mode: 'fallback' }, targets: [leaf(), leaf()] },
    upstream: { [T0]: [304] },
    expect: { tried: [T0, T1], status: 200, leafPath: T1 },
  },
  {
    name: 'strategy.on_status_codes: an unlisted failure is returned as is',
    config: { strategy: { mode: 'fallback', on_status_codes: [429] }, targets: [leaf(), leaf()] },
    upstream: { [T0]: [500] },
    expect: { tried: [T0], status: 500, leafPath: T0 },
  },
  {
    name: 'strategy.on_status_codes: a listed status moves on',
    config: { strategy: { mode: 'fallback', on_status_codes: [429] }, targets: [leaf(), leaf()] },
    upstream: { [T0]: [429] },
    expect: { tried: [T0, T1], status: 200, leafPath: T1 },
  },
  {
    name: 'a target’s own on_status_codes replace the strategy’s list (its code moves on)',
    config: { strategy: { mode: 'fallback', on_status_codes: [429] }, targets: [leaf({ on_status_codes: [500] }), leaf()] },
    upstream: { [T0]: [500] },
    expect: { tried: [T0, T1], status: 200, leafPath: T1 },
  },
  {
    name: 'a target’s own on_status_codes replace the strategy’s list (the strategy’s code stops)',
    config: { strategy: { mode: 'fallback', on_status_codes: [429] }, targets: [leaf({ on_status_codes: [500] }), leaf()] },
    upstream: { [T0]: [429] },
    expect: { tried: [T0], status: 429, leafPath: T0 },
  },
  {
    name: 'fallback: when every target fails the last outcome is returned',
    config: { strategy: { mode: 'fallback' }, targets: [leaf(), leaf(), leaf()] },
    upstream: { [T0]: [500], [T1]: [503], [T2]: [400] },
    expect: { tried: [T0, T1, T2], status: 400, leafPath: T2 },
  },
  {
    name: 'fallback skips targets whose circuit is open',
    config: { strategy: { mode: 'fallback' }, targets: [leaf({ cb_config: CB }), leaf({ cb_config: CB }), leaf()] },
    open: [T0],
    upstream: { [T1]: [500] },
    expect: { tried: [T1, T2], status: 200, leafPath: T2 },
  },
  {
    name: 'fallback tries every target in order when all circuits are open',
    config: { strategy: { mode: 'fallback' }, cb_config: CB, targets: [leaf(), leaf()] },
    open: [T0, T1],
    upstream: { [T0]: [502] },
    expect: { tried: [T0, T1], status: 200, leafPath: T1 },
  },
  // ---- conditional ----
  {
    name: 'conditional: a bare value means $eq on metadata',
    config: conditional([{ query: { 'metadata.tier': 'pro' }, then: 'pro' }]),
    request: { metadata: { tier: 'pro' } },
    expect: { tried: [T1], status: 200, leafPath: T1 },
  },
  {
    name: 'conditional: no condition matches → default',
    config: conditional([{ query: { 'metadata.tier': 'pro' }, then: 'pro' }]),
    request: { metadata: { tier: 'free' } },
    expect: { tried: [T2], status: 200, leafPath: T2 },
  },
  {
    name: 'conditional: the first matching condition wins',
    config: conditional([
      { query: { 'metadata.tier': { $ne: 'enterprise' } }, then: 'free' },
      { query: { 'metadata.tier': 'pro' }, then: 'pro' },
    ]),
    request: { metadata: { tier: 'pro' } },
    expect: { tried: [T0], status: 200, leafPath: T0 },
  },
  {
    name: 'conditional: $gt/$lte on a params number (both must hold)',
    config: conditional([{ query: { 'params.max_tokens': { $gt: 1000, $lte: 4000 } }, then: 'pro' }]),
    request: { params: { max_tokens: 4000 } },
    expect: { tried: [T1], status: 200, leafPath: T1 },
  },
  {
    name: 'conditional: $gte/$lt boundaries',
    config: conditional([
      { query: { 'params.max_tokens': { $lt: 100 } }, then: 'free' },
      { query: { 'params.max_tokens': { $gte: 100 } }, then: 'pro' },
    ]),
    request: { params: { max_tokens: 100 } },
    expect: { tried: [T1], status: 200, leafPath: T1 },
  },
  {
    name: 'conditional: comparisons do not coerce (metadata "10" is not $gt 5)',
    config: conditional([{ query: { 'metadata.level': { $gt: 5 } }, then: 'pro' }]),
    request: { metadata: { level: '10' } },
    expect: { tried: [T2], status: 200, leafPath: T2 },
  },
  {
    name: 'conditional: $in matches one of the values',
    config: conditional([{ query: { 'params.model': { $in: ['m-small', 'm-mini'] } }, then: 'free' }]),
    request: { params: { model: 'm-mini' } },
    expect: { tried: [T0], status: 200, leafPath: T0 },
  },
  {
    name: 'conditional: $nin holds for a missing field, $eq does not',
    config: conditional([
      { query: { 'metadata.tier': 'free' }, then: 'free' },
      { query: { 'metadata.tier': { $nin: ['free', 'pro'] } }, then: 'pro' },
    ]),
    request: { metadata: {} },
    expect: { tried: [T1], status: 200, leafPath: T1 },
  },
  {
    name: 'conditional: $in on an array field matches any of its elements',
    config: conditional([{ query: { 'params.stop': { $in: ['END'] } }, then: 'pro' }]),
    request: { params: { stop: ['\n', 'END'] } },
    expect: { tried: [T1], status: 200, leafPath: T1 },
  },
  {
    name: 'conditional: a missing field is not equal to null',
    config: conditional([{ query: { 'metadata.tier': null }, then: 'free' }]),
    request: { metadata: {} },
    expect: { tried: [T2], status: 200, leafPath: T2 },
  },
  {
    name: 'conditional: $regex on a params string',
    config: conditional([{ query: { 'params.model': { $regex: '^gpt-4(o|\\.1)?-' } }, then: 'pro' }]),
    request: { params: { model: 'gpt-4o-2024' } },
    expect: { tried: [T1], status: 200, leafPath: T1 },
  },
  {
    name: 'conditional: $regex only matches strings',
    config: conditional([{ query: { 'params.max_tokens': { $regex: '^1' } }, then: 'pro' }]),
    request: { params: { max_tokens: 100 } },
    expect: { tried: [T2], status: 200, leafPath: T2 },
  },
  {
    name: 'conditional: $and and $or combine',
    config: conditional([
      {
        query: { $and: [{ 'metadata.tier': 'pro' }, { $or: [{ 'params.stream': true }, { 'params.max_tokens': { $gt: 2000 } }] }] },
        then: 'pro',
      },
    ]),
    request: { metadata: { tier: 'pro' }, params: { stream: false, max_tokens: 3000 } },
    expect: { tried: [T1], status: 200, leafPath: T1 },
  },
  {
    name: 'conditional: $or with no branch true falls to the default',
    config: conditional([{ query: { $or: [{ 'metadata.tier': 'pro' }, { 'params.stream': true }] }, then: 'pro' }]),
    request: { metadata: { tier: 'free' }, params: { stream: false } },
    expect: { tried: [T2], status: 200, leafPath: T2 },
  },
  {
    name: 'conditional: params paths reach into arrays by index',
    config: conditional([{ query: { 'params.messages.0.role': 'system' }, then: 'free' }]),
    request: { params: { messages: [{ role: 'system', content: 'x' }, { role: 'user', content: 'y' }] } },
    expect: { tried: [T0], status: 200, leafPath: T0 },
  },
  {
    name: 'conditional: an array length is not a field',
    config: conditional([{ query: { 'params.messages.length': 1 }, then: 'free' }]),
    request: { params: { messages: [{ role: 'user' }] } },
    expect: { tried: [T2], status: 200, leafPath: T2 },
  },
  {
    name: 'conditional: inherited properties are not fields (metadata.constructor is missing)',
    config: conditional([{ query: { 'metadata.toString': { $regex: '' } }, then: 'pro' }, { query: { 'metadata.constructor': { $ne: 'x' } }, then: 'free' }]),
    request: { metadata: {} },
    expect: { tried: [T0], status: 200, leafPath: T0 },
  },
  {
    name: 'conditional: a bare object value is deep equality, key order ignored',
    config: conditional([{ query: { 'params.response_format': { type: 'json_object', strict: true } }, then: 'pro' }]),
    request: { params: { response_format: { strict: true, type: 'json_object' } } },
    expect: { tried: [T1], status: 200, leafPath: T1 },
  },
  {
    name: 'conditional: url.pathname',
    config: conditional([{ query: { 'url.pathname': { $regex: '/embeddings$' } }, then: 'free' }]),
    request: { pathname: '/v1/embeddings' },
    expect: { tried: [T0], status: 200, leafPath: T0 },
  },
  {
    name: 'conditional: an open circuit does not change the chosen branch',
    config: { ...conditional([{ query: { 'metadata.tier': 'pro' }, then: 'pro' }]), cb_config: CB },
    open: [T1],
    request: { metadata: { tier: 'pro' } },
    expect: { tried: [T1], status: 200, leafPath: T1 },
  },
  // ---- nesting ----
  {
    name: 'three deep: fallback → loadbalance → conditional → leaf',
    config: {
      strategy: { mode: 'fallback' },
      targets: [
        leaf(),
        {
          strategy: { mode: 'loadbalance' },
          targets: [
            { weight: 3, ...conditional([{ query: { 'metadata.tier': 'free' }, then: 'free' }]) },
            leaf({ weight: 1 }),
          ],
        },
      ],
    },
    request: { metadata: { tier: 'free' } },
    upstream: { [T0]: [502] },
    random: [0.5],
    expect: { tried: [T0, at(1, 0, 0)], status: 200, leafPath: at(1, 0, 0), draws: 1 },
  },
  {
    name: 'nested fallback exhausted: the outer fallback moves on with the inner last outcome',
    config: {
      strategy: { mode: 'fallback', on_status_codes: [503] },
      targets: [{ strategy: { mode: 'fallback' }, targets: [leaf(), leaf()] }, leaf()],
    },
    upstream: { [at(0, 0)]: [500], [at(0, 1)]: [503] },
    expect: { tried: [at(0, 0), at(0, 1), T1], status: 200, leafPath: T1 },
  },
  {
    name: 'nested: the outer fallback applies its codes to the inner strategy’s final outcome',
    config: {
      strategy: { mode: 'fallback', on_status_codes: [503] },
      targets: [{ strategy: { mode: 'fallback' }, targets: [leaf(), leaf()] }, leaf()],
    },
    upstream: { [at(0, 0)]: [503], [at(0, 1)]: [500] },
    expect: { tried: [at(0, 0), at(0, 1)], status: 500, leafPath: at(0, 1) },
  },
  {
    name: 'nested: a strategy whose leaves are all open is skipped by the parent fallback',
    config: {
      strategy: { mode: 'fallback' },
      targets: [{ strategy: { mode: 'loadbalance' }, cb_config: CB, targets: [leaf(), leaf()] }, leaf()],
    },
    open: [at(0, 0), at(0, 1)],
    expect: { tried: [T1], status: 200, leafPath: T1 },
  },
  {
    name: 'nested: a strategy with one usable leaf is not skipped',
    config: {
      strategy: { mode: 'fallback' },
      targets: [{ strategy: { mode: 'fallback' }, cb_config: CB, targets: [leaf(), leaf()] }, leaf()],
    },
    open: [at(0, 0)],
    expect: { tried: [at(0, 1)], status: 200, leafPath: at(0, 1) },
  },
  {
    name: 'inheritance: retry on the root reaches a nested leaf; a child’s own retry wins',
    config: {
      retry: { attempts: 1 },
      strategy: { mode: 'fallback' },
      targets: [{ strategy: { mode: 'single' }, targets: [leaf()] }, leaf({ retry: { attempts: 3 } })],
    },
    upstream: { [at(0, 0)]: [500], [T1]: [503, 503, 503, 200] },
    expect: { tried: [at(0, 0), at(0, 0), T1, T1, T1, T1], status: 200, leafPath: T1, retries: 3, waits: ['backoff', 'backoff', 'backoff', 'backoff'] },
  },
  {
    name: 'inheritance: request_timeout from a parent turns a silent provider into 408',
    config: { request_timeout: 5, strategy: { mode: 'fallback', on_status_codes: [429] }, targets: [{ strategy: { mode: 'single' }, targets: [leaf()] }, leaf()] },
    upstream: { [at(0, 0)]: ['timeout'] },
    expect: { tried: [at(0, 0)], status: 408, leafPath: at(0, 0), error: 'request_timeout' },
  },
  {
    name: 'inheritance: override_params merge shallowly from the root down, the child wins',
    config: {
      override_params: { model: 'root-model', temperature: 0.2 },
      strategy: { mode: 'single' },
      targets: [{ override_params: { model: 'mid-model' }, strategy: { mode: 'single' }, targets: [leaf({ override_params: { max_tokens: 9 } })] }],
    },
    expect: { tried: [at(0, 0)], status: 200, leafPath: at(0, 0), overrideParams: { model: 'mid-model', temperature: 0.2, max_tokens: 9 } },
  },
  // ---- retry ----
  {
    name: 'retry: default codes 429 and 5xx are retried up to `attempts` times',
    config: leaf({ retry: { attempts: 3 } }),
    upstream: { config: [429, 500, 502, 200] },
    expect: { tried: ['config', 'config', 'config', 'config'], status: 200, leafPath: 'config', retries: 3, waits: ['backoff', 'backoff', 'backoff'] },
  },
  {
    name: 'retry: exhausted retries return the last failure with the retry count',
    config: leaf({ retry: { attempts: 2 } }),
    upstream: { config: [503] },
    expect: { tried: ['config', 'config', 'config'], status: 503, leafPath: 'config', retries: 2, waits: ['backoff', 'backoff'] },
  },
  {
    name: 'retry: statuses outside the default list are not retried',
    config: leaf({ retry: { attempts: 5 } }),
    upstream: { config: [400] },
    expect: { tried: ['config'], status: 400, leafPath: 'config' },
  },
  {
    name: 'retry: custom on_status_codes replace the defaults',
    config: leaf({ retry: { attempts: 5, on_status_codes: [404] } }),
    upstream: { config: [404, 500] },
    expect: { tried: ['config', 'config'], status: 500, leafPath: 'config', retries: 1, waits: ['backoff'] },
  },
  {
    name: 'retry: attempts 0 means one try',
    config: leaf({ retry: { attempts: 0 } }),
    upstream: { config: [500] },
    expect: { tried: ['config'], status: 500, leafPath: 'config' },
  },
  {
    name: 'retry then fallback: the answer carries the retries of the answering leaf only',
    config: { retry: { attempts: 1 }, strategy: { mode: 'fallback' }, targets: [leaf(), leaf()] },
    upstream: { [T0]: [500], [T1]: [500, 200] },
    expect: { tried: [T0, T0, T1, T1], status: 200, leafPath: T1, retries: 1, waits: ['backoff', 'backoff'] },
  },
  {
    name: 'retry-after-ms is honoured with use_retry_after_headers',
    config: leaf({ retry: { attempts: 2, use_retry_after_headers: true } }),
    upstream: { config: [{ status: 429, headers: { 'retry-after-ms': '1500' } }, { status: 503, headers: { 'retry-after': '2' } }, 200] },
    expect: { tried: ['config', 'config', 'config'], status: 200, leafPath: 'config', retries: 2, waits: [1500, 2000] },
  },
  {
    name: 'retry-after as an HTTP date, and capped',
    config: leaf({ retry: { attempts: 2, use_retry_after_headers: true } }),
    upstream: {
      config: [
        { status: 503, headers: { 'retry-after': 'Tue, 01 Jan 2030 12:00:03 GMT' } },
        { status: 503, headers: { 'retry-after': '3600' } },
        200,
      ],
    },
    expect: { tried: ['config', 'config', 'config'], status: 200, leafPath: 'config', retries: 2, waits: [3000, 60_000] },
  },
  {
    name: 'retry-after headers are ignored unless use_retry_after_headers is set',
    config: leaf({ retry: { attempts: 1 } }),
    upstream: { config: [{ status: 429, headers: { 'retry-after': '7' } }, 200] },
    expect: { tried: ['config', 'config'], status: 200, leafPath: 'config', retries: 1, waits: ['backoff'] },
  },
  // ---- timeouts ----
  {
    name: 'timeout: an attempt past request_timeout is 408 request_timeout, not retried by default codes',
    config: leaf({ request_timeout: 5, retry: { attempts: 2 } }),
    upstream: { config: ['timeout'] },
    expect: { tried: ['config'], status: 408, leafPath: 'config', error: 'request_timeout' },
  },
  {
    name: 'timeout: retried when 408 is listed, each attempt gets its own timeout',
    config: leaf({ request_timeout: 5, retry: { attempts: 2, on_status_codes: [408] } }),
    upstream: { config: ['timeout', 'timeout', 201] },
    expect: { tried: ['config', 'config', 'config'], status: 201, leafPath: 'config', retries: 2, waits: ['backoff', 'backoff'] },
  },
  {
    name: 'timeout: 408 triggers fallback',
    config: { request_timeout: 5, strategy: { mode: 'fallback' }, targets: [leaf(), leaf()] },
    upstream: { [T0]: ['timeout'] },
    expect: { tried: [T0, T1], status: 200, leafPath: T1 },
  },
  {
    name: 'timeout: the x-gateway-request-timeout override wins over the config',
    config: leaf({ request_timeout: 4_000 }),
    request: { timeoutOverrideMs: 5 },
    upstream: { config: ['timeout'] },
    expect: { tried: ['config'], status: 408, leafPath: 'config', error: 'request_timeout' },
  },
  // ---- connection errors ----
  {
    name: 'connection error: 502 provider_unreachable, retried by the default codes',
    config: leaf({ retry: { attempts: 1 } }),
    upstream: { config: ['connection error'] },
    expect: { tried: ['config', 'config'], status: 502, leafPath: 'config', retries: 1, error: 'provider_unreachable', waits: ['backoff'] },
  },
  {
    name: 'connection error: fallback moves on, then a recovered retry answers',
    config: { strategy: { mode: 'fallback' }, targets: [leaf(), leaf({ retry: { attempts: 1 } })] },
    upstream: { [T0]: ['connection error'], [T1]: ['connection error', 200] },
    expect: { tried: [T0, T1, T1], status: 200, leafPath: T1, retries: 1, waits: ['backoff'] },
  },
  {
    name: 'connection error: not a fallback code when the strategy lists only 503',
    config: { strategy: { mode: 'fallback', on_status_codes: [503] }, targets: [leaf(), leaf()] },
    upstream: { [T0]: ['connection error'] },
    expect: { tried: [T0], status: 502, leafPath: T0, error: 'provider_unreachable' },
  },
];

function expected(c: Case): RoutingResult {
  return { retries: 0, error: null, waits: [], draws: 0, overrideParams: {}, ...c.expect };
}

function core(result: RoutingResult): RoutingResult {
  const { tried, status, leafPath, retries, error, waits, draws, overrideParams } = result;
  return { tried, status, leafPath, retries, error, waits, draws, overrideParams };
}

const IMPLEMENTATIONS: [string, (s: Scenario) => Promise<RoutingResult> | RoutingResult][] = [
  ['compiled router', runCompiled],
  ['reference evaluator', evaluate],
];

test('the suite is big enough to mean something', () => {
  expect(CASES.length).toBeGreaterThanOrEqual(30);
  expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
});

describe.each(IMPLEMENTATIONS)('routing conformance: %s', (_, run) => {
  test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    expect(core(await run(c))).toEqual(expected(c));
  });
});

describe('compiled router extras', () => {
  test.each(CASES.map((c) => [c.name, c] as const))('%s: the answering body is the last try, every other body discarded once', async (_name, c) => {
    const run = await runCompiled(c);
    if (run.error === null) expect(run.body).toBe(`${run.leafPath}#${run.retries}`);
    else expect(run.body).toBeNull();
    for (const body of run.bodies) {
      const returned = run.error === null && body.path === run.leafPath && body.attempt === run.retries;
      expect({ body: `${body.path}#${body.attempt}`, discards: body.discards, reads: body.reads }).toEqual({ body: `${body.path}#${body.attempt}`, discards: returned ? 0 : 1, reads: returned ? 1 : 0 });
    }
  });
});
