// A route without hooks pays nothing: neither hook stage is in its chain. A route with hooks gets
// the request stage at its root, and per leaf only what that leaf needs.
import { EVERY_ROUTING_HEADER } from '../../runtime/pipeline/options.ts';
import { describe, expect, it, vi } from 'vitest';
import { BUILT_IN_CHECKS } from '../../runtime/pipeline/guardrails/check-registry.ts';
import { planConfig } from '../../compiler/config/plan.ts';
import type { PlanLeaf, PlanNode, RoutePlan } from '../../runtime/core/plan.ts';
import { buildRouter, defaultServices } from '../../runtime/inference/routers.ts';
import { InferenceTransport } from '../../runtime/inference/transport.ts';
import { newRequestRecord, type RequestRecord } from '../../runtime/core/request-record.ts';
import { bufferedResponse } from '../../runtime/pipeline/answers.ts';
import { newExchange } from '../../runtime/pipeline/new-exchange.ts';
import { gatewayOptions } from '../../runtime/pipeline/options.ts';
import { defaultProviders } from '../../runtime/providers/registry.ts';
import { CircuitBreakers, MemoryBreakerStore } from '../../runtime/router/breaker.ts';
import { attemptHookStage, hookStage } from '../../runtime/pipeline/guardrails/hook-stage.ts';
import { routeJudgesText } from '../../runtime/pipeline/guardrails/judges-text.ts';

const leaf = { provider: 'openai', api_key: 'sk-test' };
const CHECK = { id: 'g', deny: true, 'default.wordCount': { maxWords: 3 } };

/** A chat request with `body`, as the HTTP handler hands it to a router. */
function chatExchange(plan: RoutePlan, body: object, record: RequestRecord) {
  return newExchange({
    source: 'http', handler: 'inference.chat', operationId: 'createChatCompletion', method: 'POST', upstreamPath: '/chat/completions', pathname: '/v1/chat/completions',
    rawBody: Buffer.from(JSON.stringify(body)), options: gatewayOptions({}, { traceId: 't', metadata: {}, requestTimeoutMs: null, forwardHeaders: [], cacheForceRefresh: false, cacheNamespace: null }, { forwardedHeaders: [], checkHeaders: [], optionReaders: null, routingHeaders: EVERY_ROUTING_HEADER, adapterSetHeaders: new Set() }),
    plan, caller: null, record, signal: new AbortController().signal, readJson: () => Promise.resolve(body),
  });
}

function leaves(node: PlanNode): PlanLeaf[] {
  return node.kind === 'leaf' ? [node] : node.targets.flatMap(leaves);
}

describe('hook stages', () => {
  const services = defaultServices();

  it('are not in the chain of a route without hooks', () => {
    const plan = planConfig({ strategy: { mode: 'fallback' }, targets: [leaf, leaf] }, 'plain');
    expect(hookStage.prepare(plan.root, services, plan)).toBeNull();
    for (const target of leaves(plan.root)) expect(attemptHookStage.prepare(target, services, plan)).toBeNull();
  });

  it('run at the root of a route with hooks, and per leaf as the leaf needs', () => {
    const plan = planConfig({ strategy: { mode: 'fallback' }, targets: [{ ...leaf, output_guardrails: [CHECK] }, leaf] }, 'guarded');
    expect(hookStage.prepare(plan.root, services, plan)).toBeTypeOf('function');
    const [guarded, plain] = leaves(plan.root);
    expect(attemptHookStage.prepare(guarded, services, plan)).toBeTypeOf('function');
    // The other target only resets the previous try's results: it has no checks of its own.
    expect(attemptHookStage.prepare(plain, services, plan)).toBeTypeOf('function');
  });

  it('prepare a long list of checks once for every leaf that inherits it, and again for a leaf with its own', () => {
    const contains = BUILT_IN_CHECKS['default.contains'];
    const prepare = vi.spyOn(contains, 'prepare');
    try {
      // Long enough to be one constant of the emitted router, which the leaves share (a short one is written into each).
      const blocklist = { id: 'blocklist', 'default.contains': { words: ['secret', ...Array.from({ length: 40 }, (_, i) => `blocked-${i}`)], operator: 'none' } };
      const own = { id: 'own', 'default.contains': { words: ['other'], operator: 'none' } };
      const config = { output_guardrails: [blocklist], strategy: { mode: 'loadbalance' }, targets: [...Array.from({ length: 50 }, () => leaf), { ...leaf, output_guardrails: [own] }] };
      const plan = planConfig(config, 'shared-hooks');
      const transport = new InferenceTransport(defaultProviders(), () => Promise.resolve(bufferedResponse(200, { 'content-type': 'application/json' }, Buffer.from('{"choices":[]}'))));
      buildRouter(plan, { transport, breakers: new CircuitBreakers(new MemoryBreakerStore(), Date.now), settings: { retryBaseMs: 1, retryMaxMs: 1, inlineConfigCacheSize: 1 } });
      expect(prepare.mock.calls.map(([parameters]) => (parameters.words as string[])[0]).sort()).toEqual(['other', 'secret']);
    } finally {
      prepare.mockRestore();
    }
  });

  it('do not run the root\'s input guardrails again on a leaf that inherited them', async () => {
    const plan = planConfig({ input_guardrails: [CHECK], strategy: { mode: 'fallback' }, targets: [leaf, leaf] }, 'inherited');
    const transport = new InferenceTransport(defaultProviders(), () => Promise.resolve(bufferedResponse(200, { 'content-type': 'application/json' }, Buffer.from('{"choices":[]}'))));
    const router = buildRouter(plan, { transport, breakers: new CircuitBreakers(new MemoryBreakerStore(), Date.now), settings: { retryBaseMs: 1, retryMaxMs: 1, inlineConfigCacheSize: 1 } });
    const record = newRequestRecord('t', 'POST', '/v1/chat/completions');
    const outcome = await router.run(chatExchange(plan, { model: 'm', messages: [{ role: 'user', content: 'one two' }] }, record));
    expect(outcome.status).toBe(200);
    expect(record.hookResults?.beforeRequestHooks.map((h) => h.id)).toEqual(['g']);
  });

  it('say a route judges text when any of its targets has a check that reads or rewrites text, and not for checks of what is around it', () => {
    const judges = (config: Record<string, unknown>) => routeJudgesText(planConfig(config, `judges-${JSON.stringify(config).length}`).root);
    expect(judges(leaf)).toBe(false);
    expect(judges({ ...leaf, input_guardrails: [{ id: 'm', deny: true, 'default.modelWhitelist': { models: ['m'] } }] })).toBe(false);
    expect(judges({ strategy: { mode: 'fallback' }, targets: [leaf, { ...leaf, output_guardrails: [CHECK] }] })).toBe(true);
    expect(judges({ ...leaf, output_guardrails: [{ id: 'pii', 'default.piiRedact': {} }] })).toBe(true);
    expect(judges({ ...leaf, before_request_hooks: [{ id: 'r', type: 'guardrail', checks: [{ id: 'default.regexMatch', parameters: { rule: 'x' } }] }] })).toBe(true);
  });

  describe('an answer of several choices (n > 1)', () => {
    /** A route whose provider answers `answer` (JSON, or SSE when `stream`), run once; its outcome, record and the bytes a client would get. */
    async function answered(guardrails: unknown[], answer: string, stream: boolean) {
      const plan = planConfig({ ...leaf, output_guardrails: guardrails }, `choices-${guardrails.length}-${stream}`);
      const contentType = stream ? 'text/event-stream' : 'application/json';
      const transport = new InferenceTransport(defaultProviders(), () => Promise.resolve(bufferedResponse(200, { 'content-type': contentType }, Buffer.from(answer))));
      const router = buildRouter(plan, { transport, breakers: new CircuitBreakers(new MemoryBreakerStore(), Date.now), settings: { retryBaseMs: 1, retryMaxMs: 1, inlineConfigCacheSize: 1 } });
      const record = newRequestRecord('t', 'POST', '/v1/chat/completions');
      const outcome = await router.run(chatExchange(plan, { model: 'm', n: 2, stream, messages: [{ role: 'user', content: 'hi' }] }, record));
      return { outcome, record, bytes: outcome.response === null ? '' : (await outcome.response.readAll()).toString() };
    }
    const json = (first: string, second: string) => JSON.stringify({ id: 'c', object: 'chat.completion', model: 'm', choices: [first, second].map((content, index) => ({ index, message: { role: 'assistant', content }, finish_reason: 'stop' })) });
    const sse = (first: string, second: string) => `${[first, second].flatMap((content, index) => content.split(' ').map((word, at) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{ index, delta: { content: at === 0 ? word : ` ${word}` }, finish_reason: null }] })}\n\n`)).join('')}data: [DONE]\n\n`;
    const DENY = { id: 'no-secret', deny: true, 'default.contains': { words: ['secret'], operator: 'none' } };

    it.each([false, true])('judges every choice: a deny rule that only the second choice breaks denies the answer (stream: %s)', async (stream) => {
      const make = stream ? sse : json;
      const denied = await answered([DENY], make('all clear', 'the secret is out'), stream);
      expect(denied.outcome.status).toBe(446);
      expect(denied.bytes).toContain('denied_by_guardrail');
      const check = denied.record.hookResults!.afterRequestHooks[0]!.checks[0]!;
      expect(check.verdict).toBe(false);
      expect(check.explanation).toMatch(/^choice 1: /);
      const kept = await answered([DENY], make('all clear', 'still clear'), stream);
      expect(kept.outcome.status).toBe(200);
    });

    it('redacts every choice of a held stream, not only the first', async () => {
      const { outcome, bytes } = await answered([{ id: 'pii', 'default.piiRedact': {} }], sse('write to jane.doe@example.com', 'or to john.roe@example.com'), true);
      expect(outcome.status).toBe(200);
      expect(bytes).not.toContain('@example.com');
      expect(bytes).toContain('[EMAIL]');
    });
  });
});
