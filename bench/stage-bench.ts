// What the stages cost the gateway per request, measured in this process on routers built as
// `gateway serve` builds them (the compiled router and its stage chain), over a transport that
// answers from memory: the pipeline's own CPU, without the HTTP server, the network or the load
// generator, whose noise on a shared 2-core VM is larger than the few microseconds measured here.
// Interleaved rounds of the single route as it is, with three cheap checks (wordCount, regexMatch,
// characterCount) on its input and on its output, and with a simple cache, once storing every
// answer (force refresh: the miss path) and once answering from it (a hit); the median per route.
import { randomUUID } from 'node:crypto';
import { planConfig } from '../compiler/config/plan.ts';
import { newRequestRecord } from '../runtime/core/request-record.ts';
import { buildRouter, defaultServices, type LoadedRouter } from '../runtime/inference/routers.ts';
import { InferenceTransport } from '../runtime/inference/transport.ts';
import { bufferedResponse } from '../runtime/pipeline/answers.ts';
import { cacheSettingsFromEnv } from '../runtime/pipeline/cache/cache-settings.ts';
import { MemoryResponseCache } from '../runtime/pipeline/cache/memory-cache.ts';
import { newExchange } from '../runtime/pipeline/new-exchange.ts';
import { gatewayOptions } from '../runtime/pipeline/options.ts';
import { defaultProviders } from '../runtime/providers/registry.ts';
import { CircuitBreakers, MemoryBreakerStore } from '../runtime/router/breaker.ts';
import { COMPLETION } from './mock-answers.ts';
import { GUARDRAILS, singleConfig } from './scenarios.ts';

export interface StageCosts {
  /** Pipeline CPU per request of the single route, no stage but the log's. */
  plainMicros: number;
  /** The same route with three cheap checks on input and output. */
  guardedMicros: number;
  /** The same route with a simple cache, every answer stored (x-gateway-cache-force-refresh): the miss path. */
  cacheMissMicros: number;
  /** The same route answered from its cache. */
  cacheHitMicros: number;
  requestsPerRound: number;
  rounds: number;
}

const BODY = Buffer.from(JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello to the benchmark in a few short words.' }] }));

export async function stageBench(rounds = 5, requestsPerRound = 10_000): Promise<StageCosts> {
  const mock = 'http://127.0.0.1:9';
  const cached = { ...singleConfig(mock), cache: { mode: 'simple', max_age: 86_400 } };
  const runs: Array<{ router: LoadedRouter; refresh: boolean; micros: number[] }> = [
    { router: routerFor(singleConfig(mock)), refresh: false, micros: [] },
    { router: routerFor({ ...singleConfig(mock), ...GUARDRAILS }), refresh: false, micros: [] },
    { router: routerFor(cached), refresh: true, micros: [] },
    { router: routerFor(cached), refresh: false, micros: [] },
  ];
  for (const run of runs) for (let i = 0; i < requestsPerRound / 2; i++) await once(run.router, run.refresh);
  // Each route does what it is here to measure (a cache that never stored would make its path look cheap).
  const seen = await Promise.all(runs.map((run) => once(run.router, run.refresh)));
  const expected = ['DISABLED', 'DISABLED', 'REFRESH', 'HIT'];
  if (seen.join() !== expected.join()) throw new Error(`stage bench: cache statuses ${seen.join(', ')}, expected ${expected.join(', ')}`);
  for (let round = 0; round < rounds; round++) {
    for (const run of runs) {
      const started = process.cpuUsage();
      for (let i = 0; i < requestsPerRound; i++) await once(run.router, run.refresh);
      const used = process.cpuUsage(started);
      run.micros.push((used.user + used.system) / requestsPerRound);
    }
  }
  const [plain, guarded, miss, hit] = runs.map((run) => median(run.micros));
  return { plainMicros: plain, guardedMicros: guarded, cacheMissMicros: miss, cacheHitMicros: hit, requestsPerRound, rounds };
}

function routerFor(config: Record<string, unknown>): LoadedRouter {
  const answer = () => bufferedResponse(200, { 'content-type': 'application/json', 'content-length': String(COMPLETION.length) }, COMPLETION);
  const transport = new InferenceTransport(defaultProviders(), () => Promise.resolve(answer()));
  const breakers = new CircuitBreakers(new MemoryBreakerStore(), Date.now);
  const settings = cacheSettingsFromEnv({});
  // Each router its own memory cache, as one gateway's routes share one (the hit route finds the entry its first request stored).
  const cache = { store: new MemoryResponseCache(settings.maxBytes), settings, semantic: null };
  return buildRouter(planConfig(config, 'bench'), { transport, breakers, settings: { retryBaseMs: 1, retryMaxMs: 50, inlineConfigCacheSize: 10 }, services: { ...defaultServices(), recording: true, cache } });
}

/** One request through the router, its answer read whole; returns the record's cache status. */
async function once(router: LoadedRouter, refresh: boolean): Promise<string | null> {
  const record = newRequestRecord(randomUUID(), 'POST', '/v1/chat/completions');
  const parsed = { traceId: record.traceId, metadata: {}, requestTimeoutMs: null, forwardHeaders: [], cacheForceRefresh: refresh, cacheNamespace: null };
  const x = newExchange({
    source: 'http', handler: 'inference.chat', operationId: 'createChatCompletion', method: 'POST', upstreamPath: '/chat/completions', pathname: '/v1/chat/completions',
    rawBody: BODY, options: gatewayOptions({ 'content-type': 'application/json' }, parsed, router),
    plan: router.plan, caller: null, record, signal: new AbortController().signal, readJson: () => Promise.resolve(JSON.parse(BODY.toString('utf8'))),
  });
  const outcome = await router.run(x);
  await outcome.response!.readAll();
  return record.cacheStatus;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
