// A 2xx stream is passed on once its first event is in: one that opened with an error is that
// error's answer (its status, a failed attempt that retries and fallbacks move past), wherever the
// event's bytes were split; one that opened with anything else is passed on byte for byte; one
// that ended before a whole event is a failed attempt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, errorOf, startE2E, target } from './harness.ts';
import { type RawAnswer, type RawProvider, startRawProvider } from '../mocks/http/raw-provider.ts';

const CHAT = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true };
// Read until the connection closes: the body's end is the provider's close.
const HEAD = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nx-request-id: req-upstream-1\r\nconnection: close\r\n\r\n';
const ERROR_EVENT = `data: ${JSON.stringify({ error: { message: 'the model is overloaded', type: 'server_error', code: 503 } })}\n\n`;
const CHUNK = `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { role: 'assistant', content: 'hello' }, finish_reason: null }] })}\n\n`;

describe('a stream that opens with an error', () => {
  let e2e: E2E;
  let raw: RawProvider;
  let answer: RawAnswer = { bytes: '' };

  beforeAll(async () => {
    raw = await startRawProvider(() => answer);
    e2e = await startE2E({ mocks: 1 });
  });
  afterAll(async () => {
    await e2e?.close();
    await raw?.close();
  });

  const send = (config: Record<string, unknown>, trace?: string) =>
    e2e.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': JSON.stringify(config).replaceAll('{{mock0}}', e2e.mocks[0].baseURL), 'content-type': 'application/json', ...(trace === undefined ? {} : { 'x-gateway-trace-id': trace }) },
      body: JSON.stringify(CHAT),
    });
  const rawTarget = (extra: Record<string, unknown> = {}) => ({ ...target(0), custom_host: raw.baseURL, ...extra });

  it('is answered with the error\'s status and the provider\'s error, also when its bytes come in two pieces', async () => {
    for (const cut of [0, 9, ERROR_EVENT.length - 1]) {
      answer = cut === 0 ? { bytes: HEAD + ERROR_EVENT } : { bytes: HEAD + ERROR_EVENT.slice(0, cut), later: { afterMs: 40, bytes: ERROR_EVENT.slice(cut) } };
      const res = await send(rawTarget(), `opened-with-error-${cut}`);
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('x-request-id')).toBe('req-upstream-1');
      expect((await errorOf(res))).toMatchObject({ message: 'the model is overloaded', provider: 'vendor' });
      const record = await e2e.recordOf(`opened-with-error-${cut}`);
      expect(record.status).toBe(503);
    }
  });

  it('is a failed attempt that the fallback moves past', async () => {
    answer = { bytes: HEAD + ERROR_EVENT.slice(0, 20), later: { afterMs: 30, bytes: ERROR_EVENT.slice(20) + CHUNK } };
    const before = raw.requests;
    const res = await send({ strategy: { mode: 'fallback' }, targets: [rawTarget({ retry: { attempts: 1 } }), target(0)] });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    expect(await res.text()).toContain('data: [DONE]');
    expect(raw.requests - before).toBe(2);
  });

  it('is passed on as it came once the stream is under way: a first chunk split in two, or one after keep-alive comments', async () => {
    for (const opening of [CHUNK, `: keep-alive\n\n${CHUNK}`]) {
      answer = { bytes: HEAD + opening.slice(0, 7), later: { afterMs: 30, bytes: opening.slice(7) + ERROR_EVENT } };
      const res = await send(rawTarget());
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(opening + ERROR_EVENT);
    }
  });

  it('is read past keep-alive comments (a proxy sends them while it works): an error after them is still the error answer', async () => {
    answer = { bytes: `${HEAD}: OPENROUTER PROCESSING\n\n`, later: { afterMs: 30, bytes: `: OPENROUTER PROCESSING\n\n${ERROR_EVENT}` } };
    const res = await send(rawTarget());
    expect(res.status).toBe(503);
    expect(await errorOf(res)).toMatchObject({ message: 'the model is overloaded' });
  });

  it('is a failed attempt when the stream ends before its first event is whole, or without a byte: it answered nothing', async () => {
    for (const body of [ERROR_EVENT.trimEnd(), CHUNK.slice(0, 30), '']) {
      answer = { bytes: HEAD + body };
      const res = await send(rawTarget());
      expect(res.status).toBe(502);
      expect(await errorOf(res)).toMatchObject({ code: 'provider_invalid_response', message: expect.stringMatching(/stream ended (without an event|inside its first event)/) });
      answer = { bytes: HEAD + body };
      const fallback = await send({ strategy: { mode: 'fallback' }, targets: [rawTarget(), target(0)] });
      expect(fallback.status).toBe(200);
      expect(await fallback.text()).toContain('data: [DONE]');
    }
  });
});
