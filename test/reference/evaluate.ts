// The reference evaluator: routing semantics written straight from SPEC §2.1 and ARCHITECTURE §5,
// over the RAW config object. It shares no code with compiler/config or runtime/router on purpose:
// the conformance suite and the properties hold the compiled router to it, so the two cannot drift.
//
// Everything is scripted and synchronous: the upstream answer of each leaf try, which circuits are
// open when the request starts, and the random draws. Decisions the spec leaves open, as taken here:
//   - A target is "open" for fallback/loadbalance when every leaf under it has an open circuit. The
//     circuit state is the one at the start of the request: a strategy decides when it is entered,
//     before any leaf below it runs, and no node is entered twice in one request.
//   - `single` and `conditional` never skip open circuits; neither do retries of one leaf.
//   - Fallback uses the target's own `on_status_codes` when it has them, else the strategy's, else
//     "any non-2xx". Timeouts count as 408, connection errors as 502 (gateway errors).
//   - Loadbalance randomness contract, shared with runtime/router/weighted-pick.ts: exactly ONE
//     `random()` draw per pick. Candidates are the targets of positive weight whose subtree is not
//     all-open (all positive-weight targets when every one is open); with r the draw and T the sum
//     of candidate weights, the pick is the first candidate i (in target order) with
//     r·T < w_0 + … + w_i over candidates, the last candidate when rounding leaves r·T past the end.
//     (weighted-pick.ts subtracts instead of summing; for integer or dyadic weights both are exact.)
//   - Query fields read own properties only; on arrays only index segments. A missing field is
//     $eq to nothing (not even null), so it is $ne and $nin everything. $gt/$gte/$lt/$lte compare
//     number with number or string with string, nothing else. $in matches the value, or any element
//     of an array value. $regex matches strings only, with no flags. Equality is deep JSON equality.

import { RE2JS } from 're2js';

export type Scripted = number | 'timeout' | 'connection error' | { status: number; headers?: Record<string, string> };

/** Per leaf path, the answer of each try (index = retry number); past the end the last repeats; absent paths answer 200. */
export type UpstreamScript = Readonly<Record<string, readonly Scripted[]>>;

export interface RoutingRequest {
  metadata?: Record<string, string>;
  params?: unknown;
  /** The request path; DEFAULT_PATHNAME when not given (every request has one). */
  pathname?: string;
  /** x-gateway-request-timeout: wins over the config's request_timeout. */
  timeoutOverrideMs?: number | null;
}

export interface Scenario {
  config: unknown;
  request?: RoutingRequest;
  upstream?: UpstreamScript;
  /** Leaf paths whose circuit is open when the request starts (each must have a cb_config, own or inherited). */
  open?: readonly string[];
  /** The loadbalance draws, consumed in order (cycled when exhausted). */
  random?: readonly number[];
}

export const DEFAULT_PATHNAME = '/v1/chat/completions';
/** Cap on a wait the provider asks for with retry-after headers; the harness configures the same. */
export const RETRY_AFTER_CAP_MS = 60_000;
/** The clock of every scenario (retry-after HTTP dates are relative to it). */
export const SCENARIO_NOW_MS = Date.UTC(2030, 0, 1, 12, 0, 0);
export const DEFAULT_RETRY_CODES: readonly number[] = [429, 500, 502, 503, 504];
const MAX_RETRIES = 5;

export interface RoutingResult {
  /** Every leaf try in order; a leaf retried twice appears three times. */
  tried: string[];
  status: number;
  leafPath: string;
  /** Retries spent on the answering leaf. */
  retries: number;
  error: 'request_timeout' | 'provider_unreachable' | null;
  /** Each wait before a retry: the provider's retry-after in ms, or 'backoff' for jittered backoff. */
  waits: (number | 'backoff')[];
  /** random() draws consumed (loadbalance picks). */
  draws: number;
  /** Effective override_params of the answering leaf (merged shallowly root → leaf, child wins). */
  overrideParams: Record<string, unknown>;
}

type Raw = Record<string, unknown>;

interface Effective {
  retry: Raw | null;
  timeoutMs: number | null;
  breaker: Raw | null;
  overrideParams: Record<string, unknown>;
}

const ROOT: Effective = { retry: null, timeoutMs: null, breaker: null, overrideParams: {} };

function own(raw: Raw, key: string): boolean {
  return Object.hasOwn(raw, key);
}

function isObject(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function inherit(raw: Raw, parent: Effective): Effective {
  const overrides: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(parent.overrideParams)) Object.defineProperty(overrides, k, { value: v, enumerable: true, writable: true, configurable: true });
  if (own(raw, 'override_params') && isObject(raw.override_params)) {
    for (const [k, v] of Object.entries(raw.override_params)) Object.defineProperty(overrides, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return {
    retry: own(raw, 'retry') ? (raw.retry as Raw) : parent.retry,
    timeoutMs: own(raw, 'request_timeout') ? (raw.request_timeout as number) : parent.timeoutMs,
    breaker: own(raw, 'cb_config') ? (raw.cb_config as Raw) : parent.breaker,
    overrideParams: overrides,
  };
}

function children(raw: Raw): Raw[] {
  return raw.targets as Raw[];
}

function childPath(path: string, index: number): string {
  return `${path}.targets[${index}]`;
}

export interface LeafInfo {
  path: string;
  name: string | null;
  hasBreaker: boolean;
  /** Effective cb_config (own or inherited), null when none. */
  breaker: { failureThreshold: number; cooldownMs: number; failureStatusCodes: readonly number[] | null } | null;
  /** Effective request_timeout (own or inherited), null when none. */
  timeoutMs: number | null;
  /** Retries allowed after the first try (effective `retry.attempts`, at most 5; 0 without retry). */
  retryAttempts: number;
  /** Statuses that trigger a retry (effective `retry.on_status_codes`, else the defaults). */
  retryCodes: readonly number[];
}

/** Every leaf of a config with its effective settings, in tree order (for generators and tests). */
export function leavesOf(config: unknown): LeafInfo[] {
  const out: LeafInfo[] = [];
  const walk = (raw: Raw, path: string, parent: Effective): void => {
    const eff = inherit(raw, parent);
    if (own(raw, 'strategy')) {
      children(raw).forEach((child, i) => walk(child, childPath(path, i), eff));
      return;
    }
    out.push({
      path,
      name: typeof raw.name === 'string' ? raw.name : null,
      hasBreaker: eff.breaker !== null,
      breaker: eff.breaker && {
        failureThreshold: eff.breaker.failure_threshold as number,
        cooldownMs: eff.breaker.cooldown_interval as number,
        failureStatusCodes: Array.isArray(eff.breaker.failure_status_codes) ? (eff.breaker.failure_status_codes as number[]) : null,
      },
      timeoutMs: eff.timeoutMs,
      retryAttempts: eff.retry ? Math.min(MAX_RETRIES, eff.retry.attempts as number) : 0,
      retryCodes: eff.retry && Array.isArray(eff.retry.on_status_codes) ? (eff.retry.on_status_codes as number[]) : DEFAULT_RETRY_CODES,
    });
  };
  walk(config as Raw, 'config', ROOT);
  return out;
}

interface Answer {
  status: number;
  leafPath: string;
  retries: number;
  error: RoutingResult['error'];
  overrideParams: Record<string, unknown>;
}

export function evaluate(scenario: Scenario): RoutingResult {
  const config = scenario.config as Raw;
  const request = scenario.request ?? {};
  const open = new Set(scenario.open ?? []);
  const draws = scenario.random ?? [];
  const tried: string[] = [];
  const waits: (number | 'backoff')[] = [];
  let drawn = 0;

  const breakerLeaves = new Set(leavesOf(config).filter((l) => l.hasBreaker).map((l) => l.path));
  for (const path of open) {
    if (!breakerLeaves.has(path)) throw new Error(`scenario opens ${path}, which is not a leaf with a circuit breaker`);
  }

  const random = (): number => {
    if (draws.length === 0) throw new Error('scenario needs random draws for a loadbalance pick');
    return draws[drawn++ % draws.length];
  };

  const allOpen = (raw: Raw, path: string, parent: Effective): boolean => {
    const eff = inherit(raw, parent);
    if (!own(raw, 'strategy')) return eff.breaker !== null && open.has(path);
    return children(raw).every((child, i) => allOpen(child, childPath(path, i), eff));
  };

  const route = (raw: Raw, path: string, parent: Effective): Answer => {
    const eff = inherit(raw, parent);
    if (!own(raw, 'strategy')) return attemptLeaf(path, eff);
    const strategy = raw.strategy as Raw;
    const targets = children(raw);
    const go = (i: number): Answer => route(targets[i], childPath(path, i), eff);
    switch (strategy.mode) {
      case 'single':
        return go(0);
      case 'loadbalance': {
        const weightOf = (t: Raw): number => (typeof t.weight === 'number' ? t.weight : 1);
        const positive = targets.map((t, i) => i).filter((i) => weightOf(targets[i]) > 0);
        let candidates = positive.filter((i) => !allOpen(targets[i], childPath(path, i), eff));
        if (candidates.length === 0) candidates = positive;
        const total = candidates.reduce((sum, i) => sum + weightOf(targets[i]), 0);
        const point = random() * total;
        let reached = 0;
        for (const i of candidates) {
          reached += weightOf(targets[i]);
          if (point < reached) return go(i);
        }
        return go(candidates[candidates.length - 1]);
      }
      case 'fallback': {
        const all = targets.map((_, i) => i);
        const usable = all.filter((i) => !allOpen(targets[i], childPath(path, i), eff));
        const order = usable.length > 0 ? usable : all;
        let last: Answer | null = null;
        for (const i of order) {
          last = go(i);
          const codes = (Array.isArray(targets[i].on_status_codes) ? targets[i].on_status_codes : strategy.on_status_codes) as number[] | undefined;
          const moveOn = Array.isArray(codes) ? codes.includes(last.status) : !(last.status >= 200 && last.status <= 299);
          if (!moveOn) return last;
        }
        return last as Answer;
      }
      case 'conditional': {
        const byName = (name: unknown): number => targets.findIndex((t) => t.name === name);
        for (const condition of strategy.conditions as Raw[]) {
          if (queryHolds(condition.query as Raw, request)) return go(byName(condition.then));
        }
        return go(byName(strategy.default));
      }
      default:
        throw new Error(`unknown strategy mode ${String(strategy.mode)}`);
    }
  };

  const attemptLeaf = (path: string, eff: Effective): Answer => {
    const retry = eff.retry;
    const budget = retry ? Math.min(MAX_RETRIES, retry.attempts as number) : 0;
    const retryOn = retry && Array.isArray(retry.on_status_codes) ? (retry.on_status_codes as number[]) : DEFAULT_RETRY_CODES;
    for (let attempt = 0; ; attempt++) {
      tried.push(path);
      const script = scripted(scenario.upstream, path, attempt);
      let status: number;
      let error: RoutingResult['error'] = null;
      let headers: Record<string, string> = {};
      if (script === 'timeout') {
        if ((request.timeoutOverrideMs ?? eff.timeoutMs) == null) throw new Error(`${path} is scripted to time out but has no request timeout`);
        status = 408;
        error = 'request_timeout';
      } else if (script === 'connection error') {
        status = 502;
        error = 'provider_unreachable';
      } else if (typeof script === 'number') {
        status = script;
      } else {
        status = script.status;
        headers = script.headers ?? {};
      }
      if (attempt < budget && retryOn.includes(status)) {
        const asked = retry!.use_retry_after_headers === true && error === null ? retryAfterMs(headers) : null;
        waits.push(asked ?? 'backoff');
        continue;
      }
      return { status, leafPath: path, retries: attempt, error, overrideParams: eff.overrideParams };
    }
  };

  const answer = route(config, 'config', ROOT);
  return { tried, status: answer.status, leafPath: answer.leafPath, retries: answer.retries, error: answer.error, waits, draws: drawn, overrideParams: answer.overrideParams };
}

/** The status a scripted answer stands for: timeouts are 408, connection errors 502. */
export function scriptedStatus(answer: Scripted): number {
  if (answer === 'timeout') return 408;
  if (answer === 'connection error') return 502;
  return typeof answer === 'number' ? answer : answer.status;
}

/** The scripted answer of one try of a leaf. */
export function scripted(upstream: UpstreamScript | undefined, path: string, attempt: number): Scripted {
  const list = upstream && Object.hasOwn(upstream, path) ? upstream[path] : undefined;
  if (!list || list.length === 0) return 200;
  return list[Math.min(attempt, list.length - 1)];
}

/** retry-after-ms (milliseconds), then retry-after (delta-seconds or an HTTP date); null when absent or unreadable. */
function retryAfterMs(headers: Record<string, string>): number | null {
  const header = (name: string): string | undefined => {
    for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v.trim();
    return undefined;
  };
  const decimal = /^\d+(\.\d+)?$/;
  const ms = header('retry-after-ms');
  if (ms !== undefined && decimal.test(ms)) return Math.min(Number(ms), RETRY_AFTER_CAP_MS);
  const after = header('retry-after');
  if (after === undefined) return null;
  if (decimal.test(after)) return Math.min(Number(after) * 1000, RETRY_AFTER_CAP_MS);
  const at = Date.parse(after);
  if (Number.isNaN(at) || at < SCENARIO_NOW_MS) return null;
  return Math.min(at - SCENARIO_NOW_MS, RETRY_AFTER_CAP_MS);
}

// ---- conditional queries ----

function queryHolds(query: Raw, request: RoutingRequest): boolean {
  return Object.entries(query).every(([key, value]) => {
    if (key === '$and') return (value as Raw[]).every((q) => queryHolds(q, request));
    if (key === '$or') return (value as Raw[]).some((q) => queryHolds(q, request));
    const actual = fieldValue(key, request);
    if (isObject(value) && Object.keys(value).some((k) => k.startsWith('$'))) {
      return Object.entries(value).every(([operator, operand]) => compare(operator, actual, operand));
    }
    return compare('$eq', actual, value);
  });
}

const MISSING = Symbol('missing');

function fieldValue(key: string, request: RoutingRequest): unknown {
  if (key === 'url.pathname') return request.pathname ?? DEFAULT_PATHNAME;
  const [root, ...rest] = key.split('.');
  // x-gateway-metadata is one level of strings: the rest of the name is one key, dots and all.
  const path = root === 'metadata' ? [rest.join('.')] : rest;
  let current: unknown = root === 'metadata' ? request.metadata : request.params;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, segment)) return MISSING;
    if (Array.isArray(current) && segment === 'length') return MISSING;
    current = (current as Raw)[segment];
  }
  return current === undefined ? MISSING : current;
}

function compare(operator: string, actual: unknown, operand: unknown): boolean {
  const present = actual !== MISSING;
  switch (operator) {
    case '$eq':
      return present && sameJson(actual, operand);
    case '$ne':
      return !(present && sameJson(actual, operand));
    case '$gt':
      return comparable(actual, operand) && (actual as number) > (operand as number);
    case '$gte':
      return comparable(actual, operand) && (actual as number) >= (operand as number);
    case '$lt':
      return comparable(actual, operand) && (actual as number) < (operand as number);
    case '$lte':
      return comparable(actual, operand) && (actual as number) <= (operand as number);
    case '$in':
      return present && inList(actual, operand as unknown[]);
    case '$nin':
      return !(present && inList(actual, operand as unknown[]));
    case '$regex':
      // Patterns have RE2's semantics (the gateway runs them on a linear-time engine).
      return typeof actual === 'string' && RE2JS.compile(operand as string).matcher(actual).find();
    default:
      throw new Error(`unknown operator ${operator}`);
  }
}

function comparable(a: unknown, b: unknown): boolean {
  return (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
}

function inList(actual: unknown, list: unknown[]): boolean {
  const candidates = Array.isArray(actual) ? [actual, ...actual] : [actual];
  return candidates.some((candidate) => list.some((entry) => sameJson(candidate, entry)));
}

/** Deep JSON equality, key order ignored: compares canonical serialisations. */
function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}
