// A user pattern can no longer freeze the gateway: the inline config of the attack report
// (`^(a+)+$`, which backtracks exponentially in JavaScript) against 32 × "a" + "!" is answered at
// once, and a pattern that needs backtracking is refused as a config error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, errorOf, startE2E, target } from './harness.ts';

describe('patterns from clients', () => {
  let e2e: E2E;

  beforeAll(async () => {
    e2e = await startE2E({ mocks: 1 });
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it('match in linear time: the catastrophic pattern answers in milliseconds', async () => {
    const config = JSON.stringify({
      strategy: { mode: 'conditional', conditions: [{ query: { 'params.model': { $regex: '^(a+)+$' } }, then: 'a' }], default: 'a' },
      targets: [{ name: 'a', ...target(0) }],
    }).replaceAll('{{mock0}}', e2e.mocks[0].baseURL);
    for (const n of [32, 5000]) {
      const started = performance.now();
      const res = await e2e.fetch('/v1/chat/completions', {
        method: 'POST', headers: { 'x-gateway-config': config, 'content-type': 'application/json' },
        body: JSON.stringify({ model: `${'a'.repeat(n)}!`, messages: [{ role: 'user', content: 'hi' }] }),
      });
      await res.arrayBuffer();
      expect(res.status).toBe(200);
      expect(performance.now() - started).toBeLessThan(1000);
    }
  });

  it("match in linear time in a jsonSchema guardrail's schema too: a client's text against the catastrophic pattern answers in milliseconds", async () => {
    const schema = { type: 'object', properties: { x: { type: 'string', pattern: '^(a+)+$' } }, patternProperties: { '^(b+)+$': { type: 'string' } } };
    const config = JSON.stringify({ ...target(0), input_guardrails: [{ id: 'shape', deny: true, 'default.jsonSchema': { schema } }] }).replaceAll('{{mock0}}', e2e.mocks[0].baseURL);
    const cases: Array<[string, number]> = [
      [JSON.stringify({ x: `${'a'.repeat(32)}!` }), 446],
      [JSON.stringify({ x: 'a'.repeat(5000) }), 200],
      [JSON.stringify({ [`${'b'.repeat(32)}!`]: 1, x: 'aa' }), 200],
      [JSON.stringify({ [`${'b'.repeat(32)}`]: 1, x: 'aa' }), 446],
    ];
    for (const [content, status] of cases) {
      const started = performance.now();
      const res = await e2e.fetch('/v1/chat/completions', {
        method: 'POST', headers: { 'x-gateway-config': config, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content }] }),
      });
      await res.arrayBuffer();
      expect(res.status, content.slice(0, 60)).toBe(status);
      expect(performance.now() - started).toBeLessThan(1000);
    }
  });

  it("refuses a jsonSchema guardrail whose schema's pattern needs backtracking, saying so", async () => {
    const config = JSON.stringify({ ...target(0), input_guardrails: [{ 'default.jsonSchema': { schema: { type: 'string', pattern: '^(a)\\1$' } } }] });
    const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': config, 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.errors).toEqual(expect.arrayContaining([expect.objectContaining({
      code: 'CFG_INVALID_CHECK_SCHEMA',
      pointer: '/input_guardrails/0/default.jsonSchema/schema',
      message: 'default.jsonSchema: in the schema, the pattern "^(a)\\\\1$" needs what the linear-time engine (RE2 syntax) does not run: invalid escape sequence: `\\1`.',
      hint: expect.stringContaining('RE2 syntax'),
    })]));
  });

  it('refuses a pattern that needs backtracking, with its own code and pointer', async () => {
    const config = JSON.stringify({
      strategy: { mode: 'conditional', conditions: [{ query: { 'params.model': { $regex: '^(a)\\1$' } }, then: 'a' }], default: 'a' },
      targets: [{ name: 'a', ...target(0) }],
    });
    const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': config, 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe('invalid_config');
    expect(error.errors).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'CFG_REGEX_UNSUPPORTED', pointer: '/strategy/conditions/0/query/params.model/$regex' })]));
  });
});
