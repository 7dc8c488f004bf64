// What is loaded: going direct to the mock, through the floor proxy, and through the gateway with
// each saved config the issue names. Every scenario sends the same chat request body.

import type { LoadTarget } from './load.ts';

export const GATEWAY_KEY = 'gw-bench-key';
export const VENDOR_KEY = 'sk-bench';
const CHAT_PATH = '/v1/chat/completions';
const CHAT_BODY = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] });
const STREAM_BODY = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }], stream: true });

export interface Urls {
  mock: string;
  floor: string;
  gateway: string;
  /** A second gateway with the request log and metrics off: its routes claim no stage. Null when no scenario needs it. */
  bare: string | null;
  /** A third gateway counting limits in Redis (BENCH_REDIS_URL, default the local one). Null when no scenario needs it. */
  redis: string | null;
  /** A second mock on the gateway's core: a node:http server answering from memory. Null when no scenario needs it. */
  responder: string | null;
}

/**
 * `bare`: the gateway with the request log and metrics off (GATEWAY_REQUEST_LOG=off, GATEWAY_METRICS=off); `redis`: the gateway with REDIS_URL;
 * `responder`: the mock's own server placed where the gateway runs.
 */
export type Via = 'direct' | 'floor' | 'gateway' | 'bare' | 'redis' | 'responder';

export interface Scenario {
  id: string;
  label: string;
  via: Via;
  streaming: boolean;
  /** The floor run this one is compared against (null for the floor and direct runs themselves). */
  floor: string | null;
  /** The direct run its added latency is measured over. */
  direct: string | null;
  /**
   * A run that shows the most any Node server could do for this scenario on the same core (added to
   * the selection with it): for a cache hit, a node:http server answering from memory.
   */
  ceiling?: string;
  target(urls: Urls): LoadTarget;
  /** Which target must have answered (x-gateway-last-used-option-index); checked before loading. */
  expectLeaf?: RegExp;
}

/** Saved configs, written to the gateway's --configs folder; `mock` is the mock's origin. */
export function savedConfigs(mock: string): Record<string, unknown> {
  const target = (extra: Record<string, unknown> = {}, path = '/v1') => ({ provider: 'vendor', api_key: VENDOR_KEY, custom_host: `${mock}${path}`, ...extra });
  return {
    'bench-single': singleConfig(mock),
    // The same route as bench-single; a rate-limits policy on `config` matches this one only.
    'bench-limited': singleConfig(mock),
    // The same route with three cheap checks on the input and on the output (issue 12's budget); none fails on the bench's prompt and answer.
    'bench-guarded': { ...singleConfig(mock), ...GUARDRAILS },
    // The same route with a simple cache: its HIT and its store-every-answer (REFRESH) paths.
    'bench-cached': { ...singleConfig(mock), cache: { mode: 'simple', max_age: 86_400 } },
    'bench-fallback': { strategy: { mode: 'fallback' }, targets: [target({ api_key: 'sk-a' }), target({ api_key: 'sk-b' }), target({ api_key: 'sk-c' })] },
    'bench-fallback-503': { strategy: { mode: 'fallback' }, targets: [target({}, '/fail503/v1'), target()] },
    'bench-loadbalance': {
      strategy: { mode: 'loadbalance' },
      targets: [target({ api_key: 'sk-1' }), target({ api_key: 'sk-2' }), target({ api_key: 'sk-3', weight: 2 }), target({ api_key: 'sk-4' })],
    },
    'bench-conditional': {
      strategy: {
        mode: 'conditional',
        conditions: [
          { query: { 'metadata.tier': { $in: ['free', 'trial'] } }, then: 'small' },
          { query: { $and: [{ 'metadata.tier': 'pro' }, { 'metadata.region': { $ne: 'cn' } }] }, then: 'large' },
        ],
        default: 'small',
      },
      targets: [target({ name: 'small', api_key: 'sk-small' }), target({ name: 'large', api_key: 'sk-large' })],
    },
  };
}

const CHEAP_CHECKS = {
  'default.wordCount': { minWords: 1, maxWords: 2000 },
  'default.regexMatch': { rule: '(?i)ignore (all )?previous instructions', not: true },
  'default.characterCount': { maxCharacters: 20_000 },
};
/** Three cheap checks on the input and on the output, denying: issue 12's speed budget. */
export const GUARDRAILS = {
  input_guardrails: [{ id: 'bench-input', deny: true, ...CHEAP_CHECKS }],
  output_guardrails: [{ id: 'bench-output', deny: true, ...CHEAP_CHECKS }],
};

/**
 * A requests policy that matches every request to bench-limited and never refuses one (a billion a
 * minute): what a route under one matching policy pays, on each gateway that runs a limited scenario.
 */
export async function createLimitPolicy(gatewayUrl: string): Promise<void> {
  const response = await fetch(new URL('/v1/policies/rate-limits', gatewayUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': GATEWAY_KEY },
    body: JSON.stringify({ type: 'requests', unit: 'rpm', value: 1e9, conditions: [{ key: 'config', value: 'bench-limited' }], group_by: [{ key: 'api_key' }] }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST /v1/policies/rate-limits: ${response.status} ${text.slice(0, 300)}`);
}

/** Saved through the API once the gateway runs: a config that names a stored virtual key. */
export const VIRTUAL_KEY_CONFIG = 'bench-virtual-key';

/**
 * Stores a virtual key holding the vendor credential and the mock's URL (POST /v1/virtual-keys),
 * then a config `{"virtual_key": id}` under VIRTUAL_KEY_CONFIG (POST /v1/configs): requests that
 * name it resolve their credential and host from the in-memory key ring on every call.
 */
export async function createVirtualKeyConfig(urls: Urls): Promise<void> {
  const headers = { 'content-type': 'application/json', 'x-gateway-api-key': GATEWAY_KEY };
  const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(new URL(path, urls.gateway), { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const key = await post('/v1/virtual-keys', { provider: 'vendor', name: 'bench', api_key: VENDOR_KEY, custom_host: `${urls.mock}/v1` });
  await post('/v1/configs', { id: VIRTUAL_KEY_CONFIG, config: { virtual_key: key.id } });
}

export function singleConfig(mock: string): Record<string, unknown> {
  return { provider: 'vendor', api_key: VENDOR_KEY, custom_host: `${mock}/v1` };
}

function direct(urls: Urls, body = CHAT_BODY): LoadTarget {
  return { url: urls.mock, method: 'POST', path: CHAT_PATH, headers: { 'content-type': 'application/json', authorization: `Bearer ${VENDOR_KEY}` }, body };
}

function floor(urls: Urls, body = CHAT_BODY): LoadTarget {
  return { ...direct(urls, body), url: urls.floor };
}

function gateway(urls: Urls, config: string, extra: Record<string, string> = {}, body = CHAT_BODY): LoadTarget {
  return {
    url: urls.gateway,
    method: 'POST',
    path: CHAT_PATH,
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': config, ...extra },
    body,
  };
}

const JSON_RUN = { streaming: false, floor: 'floor', direct: 'direct' } as const;
const SSE_RUN = { streaming: true, floor: 'floor-stream', direct: 'direct-stream' } as const;

export const SCENARIOS: readonly Scenario[] = [
  { id: 'direct', label: 'direct to mock', via: 'direct', streaming: false, floor: null, direct: null, target: (u) => direct(u) },
  { id: 'floor', label: 'floor proxy', via: 'floor', streaming: false, floor: null, direct: 'direct', target: (u) => floor(u) },
  { id: 'single', label: 'single', via: 'gateway', ...JSON_RUN, target: (u) => gateway(u, 'bench-single'), expectLeaf: /^config$/ },
  {
    id: 'single-bare', label: 'single, no stage (log+metrics off)', via: 'bare', ...JSON_RUN,
    target: (u) => gateway({ ...u, gateway: u.bare! }, 'bench-single'), expectLeaf: /^config$/,
  },
  { id: 'limited', label: 'single, 1 rate-limit policy (memory)', via: 'gateway', ...JSON_RUN, target: (u) => gateway(u, 'bench-limited'), expectLeaf: /^config$/ },
  {
    id: 'single-redis', label: 'single, gateway with Redis', via: 'redis', ...JSON_RUN,
    target: (u) => gateway({ ...u, gateway: u.redis! }, 'bench-single'), expectLeaf: /^config$/,
  },
  {
    id: 'limited-redis', label: 'single, 1 rate-limit policy (Redis)', via: 'redis', ...JSON_RUN,
    target: (u) => gateway({ ...u, gateway: u.redis! }, 'bench-limited'), expectLeaf: /^config$/,
  },
  { id: 'guarded', label: 'single, 3 checks on input and output', via: 'gateway', ...JSON_RUN, target: (u) => gateway(u, 'bench-guarded'), expectLeaf: /^config$/ },
  {
    id: 'cache-hit', label: 'single, simple cache HIT', via: 'gateway', ...JSON_RUN, ceiling: 'responder',
    target: (u) => gateway(u, 'bench-cached'), expectLeaf: /^config$/,
  },
  {
    // What a hit costs without the request log and metrics, which every hit still pays for above.
    id: 'cache-hit-bare', label: 'single, simple cache HIT, log+metrics off', via: 'bare', ...JSON_RUN, ceiling: 'responder',
    target: (u) => gateway({ ...u, gateway: u.bare! }, 'bench-cached'), expectLeaf: /^config$/,
  },
  {
    // The ceiling of a hit: the mock's server (one writeHead, one end of a fixed answer) on the
    // gateway's core, answering the same requests with no routing, no cache lookup and no log.
    id: 'responder', label: 'node:http answering from memory (ceiling of a HIT)', via: 'responder', ...JSON_RUN,
    target: (u) => ({ ...direct(u), url: u.responder! }),
  },
  {
    // Force refresh skips the lookup and stores every answer: the miss path, less one Map lookup.
    id: 'cache-refresh', label: 'single, simple cache, every answer stored (REFRESH)', via: 'gateway', ...JSON_RUN,
    target: (u) => gateway(u, 'bench-cached', { 'x-gateway-cache-force-refresh': 'true' }), expectLeaf: /^config$/,
  },
  { id: 'fallback', label: 'fallback ×3, 1st ok', via: 'gateway', ...JSON_RUN, target: (u) => gateway(u, 'bench-fallback'), expectLeaf: /^config\.targets\[0\]$/ },
  { id: 'fallback-503', label: 'fallback, 1st 503', via: 'gateway', ...JSON_RUN, target: (u) => gateway(u, 'bench-fallback-503'), expectLeaf: /^config\.targets\[1\]$/ },
  { id: 'loadbalance', label: 'loadbalance ×4', via: 'gateway', ...JSON_RUN, target: (u) => gateway(u, 'bench-loadbalance'), expectLeaf: /^config\.targets\[[0-3]\]$/ },
  {
    id: 'conditional', label: 'conditional (metadata)', via: 'gateway', ...JSON_RUN,
    target: (u) => gateway(u, 'bench-conditional', { 'x-gateway-metadata': '{"tier":"pro","region":"eu"}' }), expectLeaf: /^config\.targets\[1\]$/,
  },
  { id: 'inline', label: 'single, inline config', via: 'gateway', ...JSON_RUN, target: (u) => gateway(u, JSON.stringify(singleConfig(u.mock))), expectLeaf: /^config$/ },
  { id: 'virtual-key', label: 'virtual key (config)', via: 'gateway', ...JSON_RUN, target: (u) => gateway(u, VIRTUAL_KEY_CONFIG), expectLeaf: /^config$/ },
  { id: 'direct-stream', label: 'direct to mock, SSE', via: 'direct', streaming: true, floor: null, direct: null, target: (u) => direct(u, STREAM_BODY) },
  { id: 'floor-stream', label: 'floor proxy, SSE', via: 'floor', streaming: true, floor: null, direct: 'direct-stream', target: (u) => floor(u, STREAM_BODY) },
  { id: 'stream', label: 'single, streaming', via: 'gateway', ...SSE_RUN, target: (u) => gateway(u, 'bench-single', {}, STREAM_BODY), expectLeaf: /^config$/ },
];
