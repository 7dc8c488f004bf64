// `simulate` ≡ the reference evaluator: over generated configs, requests, outcome scripts, open
// circuits and loadbalance draws, the dry run tries the same targets in the same order and answers
// with the same target, status, retries and gateway error. The simulation runs the emitted router;
// the reference reads the raw config: two implementations that cannot drift apart unnoticed.
import { describe, expect } from 'vitest';
import { test } from '@fast-check/vitest';
import { checkConfig } from '../../compiler/config/index.ts';
import { REQUEST_TIMEOUT_HEADER } from '../../runtime/core/gateway-headers.ts';
import { InferenceTransport } from '../../runtime/inference/transport.ts';
import { defaultProviders } from '../../runtime/providers/registry.ts';
import type { ScriptedOutcome } from '../../runtime/simulate/outcome-script.ts';
import { metadataHeader, simulate } from '../../runtime/simulate/simulate.ts';
import { evaluate, type Scenario, type Scripted } from '../reference/evaluate.ts';
import { configArb, propertyTimeoutMs, runs, scenarioArb } from '../routing/arbitraries.ts';

const transport = new InferenceTransport(defaultProviders());
const settings = { retryBaseMs: 1000, retryMaxMs: 60_000, inlineConfigCacheSize: 10 };

/** A chat body the endpoint's validator accepts, keeping every field the scenario's conditions read. */
function chatBody(params: unknown): Record<string, unknown> {
  const p = (params ?? {}) as Record<string, unknown>;
  const messages = Array.isArray(p.messages) && p.messages.length > 0 ? p.messages : [{ role: 'user', content: 'hi' }];
  return { ...p, model: p.model ?? 'x', messages };
}

function outcomeOf(scripted: Scripted): ScriptedOutcome {
  if (scripted === 'timeout') return { kind: 'timeout' };
  if (scripted === 'connection error') return { kind: 'unreachable' };
  if (typeof scripted === 'number') return { kind: 'status', status: scripted, retryAfterSeconds: null };
  const seconds = Number(scripted.headers?.['retry-after']);
  return { kind: 'status', status: scripted.status, retryAfterSeconds: Number.isInteger(seconds) ? seconds : null };
}

async function both(generated: Scenario) {
  // Simulations stand for chat requests: the reference sees the same path and body.
  const scenario: Scenario = { ...generated, request: { ...generated.request, pathname: '/v1/chat/completions', params: chatBody(generated.request?.params) } };
  const checked = checkConfig(scenario.config, 'simulated');
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  const draws = scenario.random ?? [];
  let drawn = 0;
  const timeout = scenario.request?.timeoutOverrideMs;
  const report = await simulate(
    checked.plan,
    {
      path: '/v1/chat/completions',
      body: scenario.request!.params,
      headers: { ...metadataHeader(scenario.request?.metadata ?? {}), ...(timeout == null ? {} : { [REQUEST_TIMEOUT_HEADER]: String(timeout) }) },
      outcomes: new Map(Object.entries(scenario.upstream ?? {}).map(([path, list]) => [path, list.map(outcomeOf)])),
      openCircuits: scenario.open ?? [],
      seed: 1,
    },
    { transport, settings },
    () => draws[drawn++ % draws.length],
  );
  const expected = evaluate(scenario);
  return {
    simulated: { tried: report.attempts.map((a) => a.target), status: report.answer.status, leafPath: report.answer.target, retries: report.answer.retries, error: report.answer.error?.code ?? null },
    reference: { tried: expected.tried, status: expected.status, leafPath: expected.leafPath, retries: expected.retries, error: expected.error },
    report,
  };
}

describe('simulate ≡ reference evaluator', () => {
  test.prop([scenarioArb(configArb())], { numRuns: runs(200) })(
    'tries the same targets in the same order and answers the same',
    async (scenario) => {
      const { simulated, reference, report } = await both(scenario);
      expect(simulated).toEqual(reference);
      // Every try but the last says why the router moved on; the last one answered.
      expect(report.attempts.at(-1)?.then ?? 'answer').toBe('answer');
      expect(report.headers['x-gateway-last-used-option-index']).toBe(reference.leafPath);
    },
    propertyTimeoutMs(),
  );
});
