// What hooks and guardrails cost the gateway per request, measured in this process on routers built
// as `gateway serve` builds them (the compiled router and its stage chain), over a transport that
// answers from memory: the pipeline's own CPU, without the HTTP server, the network or the load
// generator, whose noise on a shared 2-core VM is larger than the few microseconds measured here.
// Interleaved rounds of the same route without hooks and with three cheap checks (wordCount,
// regexMatch, characterCount) on its input and on its output; the median per route.
import { randomUUID } from 'node:crypto';
import { planConfig } from '../compiler/config/plan.ts';
import { newRequestRecord } from '../runtime/core/request-record.ts';
import { buildRouter, defaultServices, type LoadedRouter } from '../runtime/inference/routers.ts';
import { InferenceTransport } from '../runtime/inference/transport.ts';
import { bufferedResponse } from '../runtime/pipeline/answers.ts';
import { newExchange } from '../runtime/pipeline/new-exchange.ts';
import { gatewayOptions } from '../runtime/pipeline/options.ts';
import { defaultProviders } from '../runtime/providers/registry.ts';
import { CircuitBreakers, MemoryBreakerStore } from '../runtime/router/breaker.ts';
import { COMPLETION } from './mock-answers.ts';
import { GUARDRAILS, singleConfig } from './scenarios.ts';

export interface HooksResult {
  /** Pipeline CPU per request of the route without hooks. */
  plainMicros: number;
  /** The same route with three cheap checks on input and output. */
  guardedMicros: number;
  addedMicros: number;
  requestsPerRound: number;
  rounds: number;
}

const BODY = Buffer.from(JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello to the benchmark in a few short words.' }] }));

export async function hooksBench(rounds = 5, requestsPerRound = 10_000): Promise<HooksResult> {
  const mock = 'http://127.0.0.1:9';
  const plain = routerFor({ ...singleConfig(mock) });
  const guarded = routerFor({ ...singleConfig(mock), ...GUARDRAILS });
  const runs: Array<[LoadedRouter, number[]]> = [[plain, []], [guarded, []]];
  for (const [router] of runs) for (let i = 0; i < requestsPerRound / 2; i++) await once(router);
  for (let round = 0; round < rounds; round++) {
    for (const [router, micros] of runs) {
      const started = process.cpuUsage();
      for (let i = 0; i < requestsPerRound; i++) await once(router);
      const used = process.cpuUsage(started);
      micros.push((used.user + used.system) / requestsPerRound);
    }
  }
  const plainMicros = median(runs[0][1]);
  const guardedMicros = median(runs[1][1]);
  return { plainMicros, guardedMicros, addedMicros: guardedMicros - plainMicros, requestsPerRound, rounds };
}

function routerFor(config: Record<string, unknown>): LoadedRouter {
  const answer = () => bufferedResponse(200, { 'content-type': 'application/json', 'content-length': String(COMPLETION.length) }, COMPLETION);
  const transport = new InferenceTransport(defaultProviders(), () => Promise.resolve(answer()));
  const breakers = new CircuitBreakers(new MemoryBreakerStore(), Date.now);
  return buildRouter(planConfig(config, 'bench'), { transport, breakers, settings: { retryBaseMs: 1, retryMaxMs: 50, inlineConfigCacheSize: 10 }, services: { ...defaultServices(), recording: true } });
}

async function once(router: LoadedRouter): Promise<void> {
  const record = newRequestRecord(randomUUID(), 'POST', '/v1/chat/completions');
  const parsed = { traceId: record.traceId, metadata: {}, requestTimeoutMs: null, forwardHeaders: [], cacheForceRefresh: false, cacheNamespace: null };
  const x = newExchange({
    source: 'http', handler: 'inference.chat', operationId: 'createChatCompletion', method: 'POST', upstreamPath: '/chat/completions', pathname: '/v1/chat/completions',
    rawBody: BODY, options: gatewayOptions({ 'content-type': 'application/json' }, parsed, router.forwardedHeaders, router.checkHeaders),
    plan: router.plan, caller: null, record, signal: new AbortController().signal, readJson: () => Promise.resolve(JSON.parse(BODY.toString('utf8'))),
  });
  const outcome = await router.run(x);
  await outcome.response!.readAll();
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
