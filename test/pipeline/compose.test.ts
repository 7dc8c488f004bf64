// The chain of stages is composed when a router is built: outermost first, the attempt phase once per
// try of each leaf (inside retries and fallback), and a stage whose prepare returns null is not in
// the chain at all: it is never called and costs nothing.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { planConfig } from '../../compiler/config/plan.ts';
import { buildRouter, defaultServices } from '../../runtime/inference/routers.ts';
import { InferenceTransport } from '../../runtime/inference/transport.ts';
import type { Exchange } from '../../runtime/pipeline/exchange.ts';
import { newExchange } from '../../runtime/pipeline/new-exchange.ts';
import { gatewayOptions } from '../../runtime/pipeline/options.ts';
import type { Stage } from '../../runtime/pipeline/stage.ts';
import { CircuitBreakers, MemoryBreakerStore } from '../../runtime/router/breaker.ts';
import { defaultProviders } from '../../runtime/providers/registry.ts';
import { newRequestRecord } from '../../runtime/core/request-record.ts';
import type { UpstreamRequest, UpstreamResponse } from '../../runtime/upstream/types.ts';
import { Limits } from '../../runtime/pipeline/limits/limits.ts';
import { MemoryCounters } from '../../runtime/pipeline/limits/memory-counters.ts';
import { UsageAlerts } from '../../runtime/pipeline/limits/usage-alerts.ts';
import { silentLogger } from '../../runtime/core/log.ts';

function answer(status: number): UpstreamResponse {
  const body = Buffer.from(JSON.stringify(status < 300 ? { id: 'x', object: 'chat.completion', model: 'm', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } } : { error: { message: 'no' } }));
  return { status, headers: { 'content-type': 'application/json' }, forwardTo: async (res: ServerResponse) => void res.end(body), readAll: async () => body, discard() {} };
}

/** A router over a scripted upstream: `statuses` answer the calls in order. */
function routerFor(config: Record<string, unknown>, stages: readonly Stage[] | undefined, statuses: number[], recording = true, limits: Limits | null = null) {
  const sent: UpstreamRequest[] = [];
  const transport = new InferenceTransport(defaultProviders(), async (req) => {
    sent.push(req);
    return answer(statuses[sent.length - 1] ?? 200);
  });
  const plan = planConfig(config, 'compose-test');
  const router = buildRouter(plan, { transport, breakers: new CircuitBreakers(new MemoryBreakerStore(), Date.now), settings: { retryBaseMs: 0, retryMaxMs: 0, inlineConfigCacheSize: 10 }, stages, services: { ...defaultServices(), recording, limits } });
  return { router, sent };
}

function exchangeFor(router: ReturnType<typeof routerFor>['router']): Exchange {
  const record = newRequestRecord(randomUUID(), 'POST', '/v1/chat/completions');
  const parsed = { traceId: record.traceId, metadata: {}, requestTimeoutMs: null, forwardHeaders: [], cacheForceRefresh: false, cacheNamespace: null };
  const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
  return newExchange({
    source: 'http', handler: 'inference.chat', operationId: 'createChatCompletion', method: 'POST', upstreamPath: '/chat/completions', pathname: '/v1/chat/completions',
    rawBody: Buffer.from(JSON.stringify(body)), options: gatewayOptions({ 'content-type': 'application/json' }, parsed, router),
    plan: router.plan, caller: null, record, signal: new AbortController().signal, readJson: async () => body,
  });
}

/** A stage that notes when it runs; `claims` decides per node whether prepare returns a function. */
function noting(name: string, phase: Stage['phase'], calls: string[], claims: (path: string) => boolean = () => true): Stage & { prepared: string[] } {
  const prepared: string[] = [];
  return {
    name,
    phase,
    prepared,
    prepare(node) {
      prepared.push(node.path);
      if (!claims(node.path)) return null;
      return async (x, next) => {
        calls.push(`${name}>${node.path}`);
        const outcome = await next(x);
        calls.push(`${name}<${outcome.status}`);
        return outcome;
      };
    },
  };
}

const leaf = { provider: 'openai', api_key: 'sk-test', custom_host: 'http://127.0.0.1:9' };

describe('stage composition', () => {
  it('runs request-phase stages outermost first around the router, once per request', async () => {
    const calls: string[] = [];
    const { router } = routerFor(leaf, [noting('a', 'request', calls), noting('b', 'request', calls)], [200]);
    const outcome = await router.run(exchangeFor(router));
    outcome.response?.discard();
    expect(outcome.status).toBe(200);
    expect(calls).toEqual(['a>config', 'b>config', 'b<200', 'a<200']);
  });

  it('runs attempt-phase stages around every try of every leaf: inside retries and fallback', async () => {
    const calls: string[] = [];
    const config = { strategy: { mode: 'fallback' }, targets: [{ ...leaf, retry: { attempts: 2, on_status_codes: [503] } }, leaf] };
    const { router, sent } = routerFor(config, [noting('meter', 'attempt', calls)], [503, 503, 503, 200]);
    const outcome = await router.run(exchangeFor(router));
    outcome.response?.discard();
    expect(sent).toHaveLength(4);
    expect(calls).toEqual([
      'meter>config.targets[0]', 'meter<503', 'meter>config.targets[0]', 'meter<503', 'meter>config.targets[0]', 'meter<503',
      'meter>config.targets[1]', 'meter<200',
    ]);
  });

  it('leaves a node no stage claims without a wrapper: the stage is prepared at build time and never called', async () => {
    const calls: string[] = [];
    const config = { strategy: { mode: 'fallback' }, targets: [leaf, { ...leaf, custom_host: 'http://127.0.0.1:10' }] };
    const picky = noting('picky', 'attempt', calls, (path) => path === 'config.targets[1]');
    const never = noting('never', 'request', calls, () => false);
    const { router } = routerFor(config, [never, picky], [500, 200]);
    expect(picky.prepared).toEqual(['config.targets[0]', 'config.targets[1]']);
    expect(never.prepared).toEqual(['config']);
    const outcome = await router.run(exchangeFor(router));
    outcome.response?.discard();
    expect(calls).toEqual(['picky>config.targets[1]', 'picky<200']);
  });

  it('makes the route read its body when a stage says it reads it at some node', () => {
    const reads: Stage = { name: 'reads', phase: 'request', readsBody: (node) => node.kind === 'leaf', prepare: () => null };
    expect(routerFor(leaf, [], []).router.readsBody).toBe(false);
    expect(routerFor(leaf, [reads], []).router.readsBody).toBe(true);
  });

  it('lets a stage answer without calling the router: the provider is never called', async () => {
    const refuse: Stage = {
      name: 'refuse',
      phase: 'request',
      prepare: () => async () => ({ status: 446, leafPath: '', provider: '', retries: 0, response: answer(446), error: null, headers: { 'x-test': 'refused' } }),
    };
    const { router, sent } = routerFor(leaf, [refuse], [200]);
    const outcome = await router.run(exchangeFor(router));
    expect(outcome).toMatchObject({ status: 446, headers: { 'x-test': 'refused' } });
    expect(sent).toHaveLength(0);
  });

  it('with the default stages, fills the record when something consumes records, and leaves it alone (no log stage, no metering) when nothing does', async () => {
    const on = routerFor(leaf, undefined, [200]);
    const recorded = exchangeFor(on.router);
    const answered = await on.router.run(recorded);
    await answered.response!.readAll();
    expect(recorded.record).toMatchObject({ configId: 'compose-test', targetPath: 'config', provider: 'vendor', modelRequested: 'm', usage: { inputTokens: 3, outputTokens: 2 } });

    const off = routerFor(leaf, undefined, [200], false);
    const silent = exchangeFor(off.router);
    const outcome = await off.router.run(silent);
    await outcome.response!.readAll();
    expect(silent.record).toMatchObject({ configId: null, targetPath: null, provider: null, modelRequested: null, usage: null });
  });

  it('with limits kept but nothing recording, meters the answer only when a policy charges it', async () => {
    const limits = new Limits({ counters: new MemoryCounters(), now: Date.now, logger: silentLogger, metrics: null, alerts: new UsageAlerts(silentLogger, null, null) });
    const off = routerFor(leaf, undefined, [200, 200], false, limits);
    const unmatched = exchangeFor(off.router);
    const first = await off.router.run(unmatched);
    await first.response!.readAll();
    expect(unmatched.record).toMatchObject({ configId: null, provider: null, modelRequested: null, usage: null });

    limits.use([], [{ id: 'tokens', name: null, type: 'tokens', creditLimit: 1000, alertThreshold: null, periodicReset: null, conditions: [], groupBy: [], workspaceId: 'w', organisationId: 'o', createdAt: '', lastUpdatedAt: '' }]);
    const charged = exchangeFor(off.router);
    const second = await off.router.run(charged);
    await second.response!.readAll();
    expect(charged.record).toMatchObject({ configId: 'compose-test', provider: 'vendor', modelRequested: 'm', usage: { inputTokens: 3, outputTokens: 2 } });
  });
});

describe('a body with override_params', () => {
  it('is serialised once per request for a target, however many times it is tried, and per distinct overrides', async () => {
    const target = { provider: 'openai', api_key: 'sk-test', override_params: { temperature: 0.25 }, retry: { attempts: 2, on_status_codes: [503] } };
    const other = { provider: 'openai', api_key: 'sk-test', override_params: { temperature: 0.75 } };
    const { router, sent } = routerFor({ strategy: { mode: 'fallback' }, targets: [target, other] }, undefined, [503, 503, 503, 200]);
    const outcome = await router.run(exchangeFor(router));
    expect(outcome.status).toBe(200);
    expect(sent).toHaveLength(4);
    const bodies = sent.map((request) => request.body!);
    // The three tries of the first target send the same bytes (one serialisation); the fallback its own.
    expect(bodies[1]).toBe(bodies[0]);
    expect(bodies[2]).toBe(bodies[0]);
    expect(bodies[3]).not.toBe(bodies[0]);
    expect(JSON.parse(bodies[0].toString())).toMatchObject({ model: 'm', temperature: 0.25 });
    expect(JSON.parse(bodies[3].toString())).toMatchObject({ model: 'm', temperature: 0.75 });
  });

  it('keeps only the last overrides\' body: a fallback over targets with overrides of their own never piles up copies', async () => {
    const targets = [0.1, 0.2, 0.3].map((temperature) => ({ provider: 'openai', api_key: 'sk-test', override_params: { temperature } }));
    const { router, sent } = routerFor({ strategy: { mode: 'fallback' }, targets }, undefined, [503, 503, 200]);
    const exchange = exchangeFor(router);
    const outcome = await router.run(exchange);
    expect(outcome.status).toBe(200);
    const bodies = sent.map((request) => request.body!);
    expect(new Set(bodies).size).toBe(3);
    expect(bodies.map((body) => (JSON.parse(body.toString()) as { temperature: number }).temperature)).toEqual([0.1, 0.2, 0.3]);
  });
});

describe('a body a provider maps to its own format', () => {
  const families: Array<[string, Record<string, unknown>]> = [
    ['anthropic', { provider: 'anthropic', api_key: 'sk-test' }],
    ['cloudb', { provider: 'cloudb', api_key: 'token', cloudb_region: 'us-central1', cloudb_project_id: 'p' }],
    ['cloudc (signed)', { provider: 'cloudc', cloudc_region: 'us-east-1', cloudc_access_key_id: 'AKID', cloudc_secret_access_key: 'secret' }],
  ];
  for (const [family, target] of families) {
    it(`is mapped once for every try that sends it: ${family}`, async () => {
      const retried = { ...target, retry: { attempts: 2, on_status_codes: [503] } };
      const { router, sent } = routerFor({ strategy: { mode: 'fallback' }, targets: [retried, target] }, undefined, [503, 503, 503, 503]);
      await router.run(exchangeFor(router));
      expect(sent).toHaveLength(4);
      // Four tries over two targets of one family: one mapping, the same bytes each time.
      for (const request of sent) expect(request.body).toBe(sent[0]!.body);
      expect(JSON.stringify(JSON.parse(sent[0]!.body!.toString()))).toContain('"hi"');
    });
  }

  it('is mapped again for a body with other overrides, and the signature covers the bytes sent', async () => {
    const signing = { provider: 'cloudc', cloudc_region: 'us-east-1', cloudc_access_key_id: 'AKID', cloudc_secret_access_key: 'secret' };
    const { router, sent } = routerFor({ strategy: { mode: 'fallback' }, targets: [{ ...signing, override_params: { temperature: 0.5 } }, signing] }, undefined, [503, 200]);
    await router.run(exchangeFor(router));
    expect(sent).toHaveLength(2);
    expect(sent[1]!.body).not.toBe(sent[0]!.body);
    expect((JSON.parse(sent[0]!.body!.toString()) as { inferenceConfig?: { temperature?: number } }).inferenceConfig?.temperature).toBe(0.5);
    expect((JSON.parse(sent[1]!.body!.toString()) as { inferenceConfig?: { temperature?: number } }).inferenceConfig?.temperature).toBeUndefined();
    const signatures = sent.map((request) => /Signature=([0-9a-f]+)/.exec(String(request.headers.authorization))![1]);
    expect(signatures[1]).not.toBe(signatures[0]);
  });
});
