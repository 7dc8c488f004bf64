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
