// Until hooks and guardrails run (issue 12), a route that has any is refused with 400
// `hooks_not_supported` and the provider sees nothing; the same config without them routes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, errorOf, startE2E, target } from './harness.ts';

describe('configs with hooks or guardrails', () => {
  let e2e: E2E;
  beforeAll(async () => {
    e2e = await startE2E({
      mocks: 1,
      configs: {
        guarded: { ...target(0), input_guardrails: [{ id: 'g', deny: true, 'default.wordCount': { maxWords: 3 } }] },
        'guarded-target': { strategy: { mode: 'fallback' }, targets: [target(0), target(0, { after_request_hooks: [{ id: 'h', checks: [{ id: 'default.notNull', parameters: {} }] }] })] },
        plain: target(0),
      },
    });
  });
  afterAll(() => e2e?.close());

  const chat = (config: string) => e2e.fetch('/v1/chat/completions', {
    method: 'POST',
    headers: { 'x-gateway-config': config, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'one two three four five' }] }),
  });

  it.each(['guarded', 'guarded-target'])('refuses %s with 400 hooks_not_supported, and the provider sees nothing', async (config) => {
    const before = e2e.mocks[0].requests.length;
    const res = await chat(config);
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe('hooks_not_supported');
    expect(error.message).toMatch(/(input_guardrails|after_request_hooks)/);
    expect(e2e.mocks[0].requests.length).toBe(before);
  });

  it('refuses an inline config with hooks the same way; a misspelt check is a 400 invalid_config with a hint', async () => {
    const inline = JSON.stringify({ provider: 'vendor', api_key: 'k', custom_host: e2e.mocks[0].baseURL, output_guardrails: [{ id: 'o', 'default.notNull': {} }] });
    expect((await errorOf(await chat(inline))).code).toBe('hooks_not_supported');
    const misspelt = JSON.stringify({ provider: 'vendor', api_key: 'k', input_guardrails: [{ id: 'g', 'default.wordcount': { maxWords: 3 } }] });
    const res = await chat(misspelt);
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe('invalid_config');
    expect(error.errors).toEqual([expect.objectContaining({ code: 'CFG_UNKNOWN_CHECK', pointer: '/input_guardrails/0/default.wordcount', hint: 'did you mean "default.wordCount"?' })]);
  });

  it('routes the same config without them', async () => {
    expect((await chat('plain')).status).toBe(200);
  });
});
