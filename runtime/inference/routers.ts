// Turns a RoutePlan into a live router: emit its source once, instantiate it with `new Function`
// (never a cache-busting import, which leaks: ARCHITECTURE §8) over a RouterRuntime, and compose
// the stages the plan needs around it (runtime/pipeline/stages.ts).
import { Resolver } from 'node:dns/promises';
import { setFlagsFromString } from 'node:v8';
import { nodeFlagsGiven } from '../../bin/memory-tuning.js';
import { headersSetByEveryAdapter } from '../../compiler/config/adapter-headers.ts';
import { emitRouter } from '../../compiler/config/emit.ts';
import { providerEntry } from '../../compiler/config/providers.ts';
import type { CheckTools } from '../pipeline/guardrails/check.ts';
import { headersReadByChecks } from '../pipeline/guardrails/hook-stage.ts';
import type { OptionReader } from '../providers/header-options.ts';
import { HostPolicy } from '../providers/host-policy.ts';
import { leavesOf, type PlanLeaf, type PlanNode, type RoutePlan } from '../core/plan.ts';
import { silentLogger } from '../core/log.ts';
import { attemptStages, chain, requestStages, stagesReadBody } from '../pipeline/compose.ts';
import type { Exchange } from '../pipeline/exchange.ts';
import { NO_ADAPTER_SET_HEADERS, type RouteHeaderUse, type RoutingHeaderUse } from '../pipeline/options.ts';
import { PromptHolder } from '../pipeline/prompt/prompt-source.ts';
import type { Services } from '../pipeline/services.ts';
import type { Stage } from '../pipeline/stage.ts';
import { STAGES } from '../pipeline/stages.ts';
import type { CircuitBreakers } from '../router/breaker.ts';
import type { Outcome } from '../router/outcome.ts';
import { RouterRuntime, type CompiledRouter } from '../router/router-runtime.ts';
import { sleep } from '../router/abort.ts';
import type { RetryOptions } from '../router/retry.ts';
import { isConnectionError, isUpstreamTimeout } from '../upstream/errors.ts';
import type { InferenceSettings } from './settings.ts';
import type { InferenceTransport } from './transport.ts';
import { MemoryTurnMemory } from '../pipeline/turn-memory/turn-memory.ts';

/** A compiled route, with what it reads of a client's headers (RouteHeaderUse). */
export interface LoadedRouter extends RouteHeaderUse {
  configId: string;
  /** Whether the route parses the request body (override_params, params conditions, a stage that reads it, …). */
  readsBody: boolean;
  /** The plan it was built from (which providers its leaves name: runtime/jobs/provider-apis.ts). */
  plan: RoutePlan;
  /** The request-phase stages around the compiled router: the one entry point for every exchange. */
  run: (x: Exchange) => Promise<Outcome>;
}

/** The upstream side of a router: the real transport, or a simulation's scripted outcomes (runtime/simulate). */
export type RouterTransport = Pick<InferenceTransport, 'call' | 'providerOf'>;

export interface RouterDeps {
  transport: RouterTransport;
  breakers: CircuitBreakers;
  settings: InferenceSettings;
  /** What stages use; defaults suit tests that route without a store. */
  services?: Services;
  /** Defaults to the one ordered list. */
  stages?: readonly Stage[];
  random?: () => number;
  /** Retry waits and jitter; real timers and Math.random by default (a simulation records the waits instead). */
  retryClock?: Pick<RetryOptions, 'sleep' | 'random' | 'now'>;
}

const REAL_CLOCK: Pick<RetryOptions, 'sleep' | 'random' | 'now'> = { sleep, random: Math.random, now: Date.now };

export function defaultServices(): Services {
  return { logger: silentLogger, now: Date.now, costOf: () => null, pricesSpokenMinutes: () => false, recording: true, logBodyBytes: 0, metrics: null, tracing: false, prompts: new PromptHolder(), limits: null, cache: null, checkTools: defaultCheckTools(new HostPolicy()), turns: new MemoryTurnMemory(), resolveTarget: null };
}

/**
 * Check tools over a host policy. Names are resolved by DNS queries of their own (c-ares), with a
 * timeout: the system resolver (getaddrinfo) runs on libuv's four threads, which the gateway's own
 * connections resolve on too, and a name that never answers held one for its whole timeout.
 * `dnsServers`: the servers asked (the system's when null).
 */
export function defaultCheckTools(hostPolicy: HostPolicy, dnsServers: readonly string[] | null = null): CheckTools {
  const resolver = new Resolver({ timeout: CHECK_DNS_TIMEOUT_MS, tries: 1 });
  if (dnsServers !== null) resolver.setServers(dnsServers);
  return {
    hostPolicy,
    now: Date.now,
    resolve: async (hostname) => {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
      const addresses = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
      if (addresses.length === 0) throw v4.status === 'rejected' ? v4.reason : new Error(`${hostname} has no address`);
      return addresses;
    },
  };
}

/** How long one DNS query of a check waits for an answer (it is sent once: c-ares doubles the wait for each retry). */
const CHECK_DNS_TIMEOUT_MS = 1000;

/** Whether this process runs with V8's compilation cache (node --no-compilation-cache turns it off for everything). */
const COMPILATION_CACHE_ON = !nodeFlagsGiven(process.execArgv, process.env).has('--no-compilation-cache');

/**
 * `new Function('rt', 'credentials', body)` without V8's compilation cache. V8 keeps every source it
 * compiled from a string, with its code, until the heap nears its limit (several GB), long after the
 * function is gone: 1,500 distinct 600-target inline configs left 490 MB once their routers were
 * evicted and collected. A router's source is compiled once, so the cache is turned off around this
 * compile only (V8 reads the flag on each compile): `node --no-compilation-cache` for the whole
 * process peaked ~6 MB higher in the benchmark (four interleaved runs each way), since everything
 * else that compiles from strings (regular expressions among them) loses the cache too.
 */
function uncachedFunction(body: string): Function {
  if (!COMPILATION_CACHE_ON) return new Function('rt', 'credentials', body);
  setFlagsFromString('--no-compilation-cache');
  try {
    return new Function('rt', 'credentials', body);
  } finally {
    setFlagsFromString('--compilation-cache');
  }
}

export function buildRouter(plan: RoutePlan, deps: RouterDeps): LoadedRouter {
  const services = deps.services ?? defaultServices();
  const stages = deps.stages ?? STAGES;
  const runtime = new RouterRuntime<Exchange>({
    configId: plan.configId,
    transport: deps.transport.call,
    providerOf: deps.transport.providerOf,
    breakers: deps.breakers,
    retry: { baseDelayMs: deps.settings.retryBaseMs, maxDelayMs: deps.settings.retryMaxMs, ...(deps.retryClock ?? REAL_CLOCK) },
    random: deps.random ?? Math.random,
    isConnectionError,
    isTimeoutError: isUpstreamTimeout,
    wrapAttempt: (leaf: PlanLeaf, tryOnce) => {
      const fns = attemptStages(stages, leaf, plan, services);
      return fns.length === 0 ? null : chain(fns, tryOnce);
    },
  });
  const emitted = emitRouter(plan);
  const createRouter = uncachedFunction(emitted.body) as (rt: RouterRuntime<Exchange>, credentials: readonly string[]) => CompiledRouter<Exchange>;
  const route = createRouter(runtime, emitted.credentials);
  const readsBody = plan.readsBody || stagesReadBody(stages, plan);
  // The router reads params when the plan says so; a stage that rendered the body has set them already.
  // An empty body is parsed too: it is no JSON (400), not a request whose rules read nothing.
  const router: (x: Exchange) => Promise<Outcome> = plan.readsBody ? (x) => (x.params !== undefined || x.rawBody === null ? route(x) : x.json().then(() => route(x))) : route;
  const fns = requestStages(stages, plan, services);
  return { configId: plan.configId, readsBody, plan, forwardedHeaders: forwardedHeaders(plan.root), checkHeaders: headersReadByChecks(plan), optionReaders: optionReaders(plan.root), routingHeaders: routingHeaderUse(plan.root), adapterSetHeaders: adapterSetHeaders(plan.root), run: fns.length === 0 ? router : chain(fns, router) };
}

/** The leaves' providers when every one is named in the config (not a virtual key, a slug or a header's); null otherwise. */
function namedLeaves(root: PlanNode): Array<{ leaf: PlanLeaf; provider: string }> | null {
  const named: Array<{ leaf: PlanLeaf; provider: string }> = [];
  for (const leaf of leavesOf(root)) {
    if (leaf.virtualKey !== null || leaf.provider === null || leaf.provider.startsWith('@')) return null;
    named.push({ leaf, provider: leaf.provider });
  }
  return named;
}

function optionReaders(root: PlanNode): OptionReader[] | null {
  const named = namedLeaves(root);
  if (named === null) return null;
  const readers: OptionReader[] = [];
  for (const { leaf, provider } of named) {
    const family = providerEntry(provider)?.family;
    if (family === undefined) return null;
    // A host the request may give is judged per request; here only the target's own counts.
    readers.push({ family, own: leaf.providerOptions, customHost: leaf.customHost !== null });
  }
  return readers;
}

/** The headers every target's adapter sets itself; none when a target's provider is known only per request. */
function adapterSetHeaders(root: PlanNode): ReadonlySet<string> {
  const named = namedLeaves(root);
  const common = named === null ? [] : headersSetByEveryAdapter(named.map(({ leaf, provider }) => ({ provider, ownKey: leaf.apiKey !== null })));
  return common.length === 0 ? NO_ADAPTER_SET_HEADERS : new Set(common);
}

function routingHeaderUse(root: PlanNode): RoutingHeaderUse {
  const use: RoutingHeaderUse = { provider: false, virtualKey: false, customHost: false };
  const walk = (node: PlanNode): void => {
    if (node.kind === 'strategy') return node.targets.forEach(walk);
    const open = node.provider === null && node.virtualKey === null;
    if (open) use.provider = true;
    if (open && node.apiKey === null) use.virtualKey = true;
    // A stored integration's own custom_host is known only per request: such a target counts as reading it.
    if (node.customHost === null) use.customHost = true;
  };
  walk(root);
  return use;
}

function forwardedHeaders(root: PlanNode): string[] {
  const names = new Set<string>();
  const walk = (node: PlanNode): void => {
    for (const name of node.forwardHeaders) names.add(name);
    if (node.kind === 'strategy') node.targets.forEach(walk);
  };
  walk(root);
  return [...names];
}
