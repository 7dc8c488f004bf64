// The provider fuzzer: a provider that misbehaves on command (stalls, resets, garbage, huge lines,
// broken framing, statuses HTTP does not have), chosen per request by fast-check, behind a fallback
// to a healthy mock. Whatever it does: the gateway answers (no hang), never with a 500, every error
// body is well formed, the event loop never stalls past 100 ms, and memory stays bounded.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, startE2E, target } from '../e2e/harness.ts';
import { httpAnswer, type RawAnswer, type RawProvider, startRawProvider } from '../mocks/http/raw-provider.ts';
import { liveHeap } from './request-fuzz.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 80);
// A stalled provider holds a case for the 300 ms headers timeout (an eighth of the cases), and some
// fall back after it: `npm run fuzz -- --runs N` must not time out for the number of cases alone.
const CASE_BUDGET_MS = 250;
const CHAT = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

const misbehaviour: fc.Arbitrary<RawAnswer> = fc.oneof(
  fc.constant<RawAnswer>({ stall: true }),
  fc.integer({ min: 0, max: 120 }).map((n): RawAnswer => ({ bytes: httpAnswer(200, '{"id":"chatcmpl-1","object":"chat.completion","choices":[]}').slice(0, n) })),
  fc.string({ maxLength: 200 }).map((junk): RawAnswer => ({ bytes: junk })),
  fc.constantFrom(99, 600, 999, 0).map((status): RawAnswer => ({ bytes: httpAnswer(status, '{}') })),
  fc.constant<RawAnswer>({ bytes: `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: ${'x'.repeat(1024 * 1024)}` }),
  fc.constant<RawAnswer>({ bytes: 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nZZZ\r\n' }),
  fc.constant<RawAnswer>({ bytes: httpAnswer(200, '<html>oops</html>') }),
  fc.constant<RawAnswer>({ bytes: httpAnswer(200, '{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}') }),
);

describe('a misbehaving provider', () => {
  let e2e: E2E;
  let raw: RawProvider;
  let next: RawAnswer = { stall: true };

  beforeAll(async () => {
    raw = await startRawProvider(() => next);
    e2e = await startE2E({ mocks: 1, env: { GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS: '300', GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS: '300' } });
  });
  afterAll(async () => {
    await e2e?.close();
    await raw?.close();
  });

  it(`cannot hang, crash, stall or bloat the gateway (${RUNS} cases)`, { timeout: Math.max(120_000, RUNS * CASE_BUDGET_MS) }, async () => {
    const fallback = JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ ...target(0), custom_host: raw.baseURL }, target(0)] }).replaceAll('{{mock0}}', e2e.mocks[0].baseURL);
    const alone = JSON.stringify({ ...target(0), custom_host: raw.baseURL });
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const heapBefore = liveHeap();
    await fc.assert(
      fc.asyncProperty(misbehaviour, fc.boolean(), fc.boolean(), async (answer, withFallback, stream) => {
        next = answer;
        const body = stream ? CHAT.replace('}', ',"stream":true}') : CHAT;
        const res = await e2e.fetch('/v1/chat/completions', {
          method: 'POST', signal: AbortSignal.timeout(10_000),
          headers: { 'x-gateway-config': withFallback ? fallback : alone, 'content-type': 'application/json' }, body,
        });
        const text = await res.text().catch(() => '');
        expect(res.status, text.slice(0, 200)).not.toBe(500);
        if (res.status >= 400 && (res.headers.get('content-type') ?? '').startsWith('application/json')) {
          expect(JSON.parse(text)).toMatchObject({ error: { message: expect.any(String), type: expect.any(String) } });
        }
        if (withFallback && !stream) expect([200, 502, 504, 408]).toContain(res.status);
      }),
      { numRuns: RUNS, verbose: 1 },
    );
    delay.disable();
    expect(delay.max / 1e6, 'longest event-loop stall, ms').toBeLessThan(100);
    expect((liveHeap() - heapBefore) / 2 ** 20, 'live heap growth, MB').toBeLessThan(64);
    expect((await fetch(`${e2e.gateway.url}/v1/health`)).status).toBe(200);
  });
});
