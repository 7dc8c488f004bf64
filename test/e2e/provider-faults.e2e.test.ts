// A provider that answers garbage is a failed attempt, never something the gateway relays as if it
// were an answer: it is retried and falls back like any 5xx, and alone it is 502 with a stable code.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, errorOf, startE2E, target } from './harness.ts';
import { httpAnswer, type RawProvider, startRawProvider } from '../mocks/http/raw-provider.ts';

const CHAT = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

describe('a provider that answers with a status HTTP does not have', () => {
  let e2e: E2E;
  let raw: RawProvider;

  beforeAll(async () => {
    raw = await startRawProvider(() => ({ bytes: httpAnswer(999, '{"id":"odd"}') }));
    e2e = await startE2E({ mocks: 1 });
  });
  afterAll(async () => {
    await e2e?.close();
    await raw?.close();
  });

  function config(targets: unknown[], strategy?: unknown): string {
    return JSON.stringify(strategy === undefined ? targets[0] : { strategy, targets }).replaceAll('{{mock0}}', e2e.mocks[0].baseURL).replaceAll('{{raw}}', raw.baseURL);
  }

  it('is answered 502 provider_invalid_response, not relayed', async () => {
    const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': config([{ ...target(0), custom_host: '{{raw}}' }]), 'content-type': 'application/json' }, body: CHAT });
    expect(res.status).toBe(502);
    expect((await errorOf(res)).code).toBe('provider_invalid_response');
  });

  it('falls back to the next target, and is retried', async () => {
    const before = raw.requests;
    const res = await e2e.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': config([{ ...target(0), custom_host: '{{raw}}', retry: { attempts: 2 } }, target(0)], { mode: 'fallback' }), 'content-type': 'application/json' },
      body: CHAT,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    await res.arrayBuffer();
    expect(raw.requests - before).toBe(3);
  });
});

describe('a provider that never answers', () => {
  let e2e: E2E;
  let stalled: RawProvider;
  /** Sends a stream's headers and first event, then nothing, the socket kept open. */
  let pausing: RawProvider;
  /** Sends a stream's headers, then nothing, the socket kept open. */
  let silent: RawProvider;

  beforeAll(async () => {
    stalled = await startRawProvider(() => ({ stall: true }));
    const event = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'thinking' }, finish_reason: null }] })}\n\n`;
    pausing = await startRawProvider(() => ({ bytes: `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n${Buffer.byteLength(event).toString(16)}\r\n${event}\r\n`, keepOpen: true }));
    silent = await startRawProvider(() => ({ bytes: 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n', keepOpen: true }));
    // The server defaults are 60 s; short ones keep the test fast and show they are settings.
    e2e = await startE2E({ mocks: 1, env: { GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS: '300', GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS: '300' } });
  });
  afterAll(async () => {
    await e2e?.close();
    await stalled?.close();
    await pausing?.close();
    await silent?.close();
  });

  it('times out without a request_timeout, and the fallback answers', async () => {
    const config = JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ ...target(0), custom_host: stalled.baseURL }, target(0)] }).replaceAll('{{mock0}}', e2e.mocks[0].baseURL);
    const started = performance.now();
    const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': config, 'content-type': 'application/json' }, body: CHAT });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    await res.arrayBuffer();
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('alone is answered 408 request_timeout, naming the setting that timed out and how to wait longer', async () => {
    const config = JSON.stringify({ ...target(0), custom_host: stalled.baseURL });
    const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': config, 'content-type': 'application/json' }, body: CHAT });
    expect(res.status).toBe(408);
    const error = await errorOf(res);
    expect(error.code).toBe('request_timeout');
    expect(error.message).toBe('The provider did not answer: no response headers within 300 ms (GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS); a config\'s request_timeout (or x-gateway-request-timeout) sets a longer wait.');
    // A limit of the request's own is named as such.
    const own = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': JSON.stringify({ ...target(0), custom_host: stalled.baseURL, request_timeout: 100 }), 'content-type': 'application/json' }, body: CHAT });
    expect(own.status).toBe(408);
    expect((await errorOf(own)).message).toBe('The provider did not answer within 100 ms.');
  });

  it('waits as long as a request_timeout longer than the safety timeout says, not the safety timeout', async () => {
    const started = performance.now();
    const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': JSON.stringify({ ...target(0), custom_host: stalled.baseURL, request_timeout: 1500 }), 'content-type': 'application/json' }, body: CHAT });
    expect(res.status).toBe(408);
    expect((await errorOf(res)).message).toBe('The provider did not answer within 1500 ms.');
    // Cut at 300 ms (undici checks its timers about once a second, so at up to ~1.3 s) before the fix.
    expect(performance.now() - started).toBeGreaterThanOrEqual(1450);
  });

  it('moves past a stream that sends its headers and then nothing: the idle timeout before its first byte fails the attempt, and the fallback answers', async () => {
    const stream = JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const config = JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ ...target(0), custom_host: silent.baseURL }, target(0)] }).replaceAll('{{mock0}}', e2e.mocks[0].baseURL);
    const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': config, 'content-type': 'application/json' }, body: stream });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    expect(await res.text()).toContain('data: [DONE]');
    const alone = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': JSON.stringify({ ...target(0), custom_host: silent.baseURL }), 'content-type': 'application/json' }, body: stream });
    expect(alone.status).toBe(502);
    expect((await errorOf(alone)).message).toContain('GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS');
    const own = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': JSON.stringify({ ...target(0), custom_host: silent.baseURL, request_timeout: 200 }), 'content-type': 'application/json' }, body: stream });
    expect(own.status).toBe(408);
    expect((await errorOf(own)).message).toBe('The provider did not answer within 200 ms.');
  });

  it('lets a stream pause as long as its request_timeout allows, past the idle timeout between chunks', async () => {
    const started = performance.now();
    const body = JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'think first' }] });
    const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': JSON.stringify({ ...target(0), custom_host: pausing.baseURL, request_timeout: 1500 }), 'content-type': 'application/json' }, body });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('thinking');
    expect(performance.now() - started).toBeGreaterThanOrEqual(1450);
  });
});

describe('a provider whose answer breaks', () => {
  let e2e: E2E;
  const providers: RawProvider[] = [];
  const gzipped = gzipSync(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', choices: [] }));
  const broken: Record<string, () => string | Buffer> = {
    'HTML': () => httpAnswer(200, '<html><body>Bad gateway</body></html>').replace('application/json', 'text/html'),
    'invalid JSON': () => httpAnswer(200, '{"id": "chatcmpl-1", "choices": ['),
    'a body cut short (5,000 bytes declared, 37 sent)': () => httpAnswer(200, '{"id":"chatcmpl-1","object":"chat.co', 5000),
    'broken chunked encoding': () => 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n10\r\n{"id":"chatcmpl-\r\nZZ\r\n',
    // The gateway asks for accept-encoding: identity; this one compresses anyway.
    'a gzip body it was not asked for': () => Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ncontent-length: ${gzipped.length}\r\n\r\n`), gzipped]),
  };

  beforeAll(async () => {
    e2e = await startE2E({ mocks: 1 });
  });
  afterAll(async () => {
    await e2e?.close();
    await Promise.all(providers.map((p) => p.close()));
  });

  for (const [name, answer] of Object.entries(broken)) {
    it(`falls back past ${name}, and alone answers 502 provider_invalid_response (never a 200 with a cut body)`, async () => {
      const raw = await startRawProvider(() => ({ bytes: answer() }));
      providers.push(raw);
      const fallback = JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ ...target(0), custom_host: raw.baseURL }, target(0)] }).replaceAll('{{mock0}}', e2e.mocks[0].baseURL);
      const ok = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': fallback, 'content-type': 'application/json' }, body: CHAT });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
      expect(((await ok.json()) as { object: string }).object).toBe('chat.completion');

      const alone = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': JSON.stringify({ ...target(0), custom_host: raw.baseURL }), 'content-type': 'application/json' }, body: CHAT });
      expect(alone.status).toBe(502);
      const error = await errorOf(alone);
      expect(error.code).toBe('provider_invalid_response');
      if (name.includes('gzip')) expect(error.message).toContain('it is compressed, content-encoding "gzip", though the gateway asked for an uncompressed answer');
    });
  }
});

// Answers the gateway passes on as they come (images, speech, a chat stream) carry the provider's
// status, written with their first byte: a body that fails before it is a failed attempt, retried,
// fallen back past, and alone answered as an error.
describe('a passed-through answer whose body breaks', () => {
  let e2e: E2E;
  let raw: RawProvider & { keepOpen?: boolean };
  let answer = '';

  beforeAll(async () => {
    raw = await startRawProvider(() => ({ bytes: answer, keepOpen: raw.keepOpen }));
    e2e = await startE2E({ mocks: 1 });
  });
  afterAll(async () => {
    await e2e?.close();
    await raw?.close();
  });

  const send = (path: string, body: Record<string, unknown>) => e2e.fetch(path, { method: 'POST', headers: { 'x-gateway-config': JSON.stringify({ ...target(0), custom_host: raw.baseURL }), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const requests: Array<[string, string, Record<string, unknown>, string]> = [
    ['an image', '/v1/images/generations', { model: 'gpt-image-1', prompt: 'hi' }, 'application/json'],
    ['speech', '/v1/audio/speech', { model: 'tts-1', voice: 'alloy', input: 'hi' }, 'audio/mpeg'],
    ['a chat stream', '/v1/chat/completions', { ...JSON.parse(CHAT), stream: true }, 'text/event-stream'],
  ];

  for (const [name, path, body, type] of requests) {
    it(`is 502 with the gateway's headers when ${name} breaks before its first byte, not a closed connection`, async () => {
      answer = `HTTP/1.1 200 OK\r\ncontent-type: ${type}\r\ncontent-length: 5000\r\n\r\n`;
      const res = await send(path, body);
      expect(res.status).toBe(502);
      expect(res.headers.get('x-gateway-provider')).toBe('vendor');
      expect(res.headers.get('x-gateway-trace-id')).not.toBeNull();
      expect((await errorOf(res)).code).toBe('provider_invalid_response');
    });
  }

  for (const [name, path, body, type] of requests) {
    it(`retries ${name} that breaks before its first byte and falls back past it: the attempt failed before anything went out`, async () => {
      answer = `HTTP/1.1 200 OK\r\ncontent-type: ${type}\r\ncontent-length: 5000\r\n\r\n`;
      const before = raw.requests;
      const res = await e2e.fetch(path, {
        method: 'POST',
        headers: { 'x-gateway-config': JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ ...target(0), custom_host: raw.baseURL, retry: { attempts: 1 } }, target(0)] }).replaceAll('{{mock0}}', e2e.mocks[0].baseURL), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
      expect(raw.requests - before).toBe(2);
    });
  }

  it('keeps the provider\'s status once bytes went out, and cuts the connection: never a short success', async () => {
    answer = `HTTP/1.1 200 OK\r\ncontent-type: audio/mpeg\r\ncontent-length: 5000\r\n\r\n${'x'.repeat(100)}`;
    const res = await send('/v1/audio/speech', { model: 'tts-1', voice: 'alloy', input: 'hi' });
    expect(res.status).toBe(200);
    await expect(res.arrayBuffer()).rejects.toThrow();
  });
  it('is recorded 499 when the client leaves before its first byte: the provider\'s status never went out', async () => {
    raw.keepOpen = true;
    answer = 'HTTP/1.1 200 OK\r\ncontent-type: audio/mpeg\r\ncontent-length: 5000\r\n\r\n';
    const leaving = new AbortController();
    const sent = e2e.fetch('/v1/audio/speech', { method: 'POST', signal: leaving.signal, headers: { 'x-gateway-config': JSON.stringify({ ...target(0), custom_host: raw.baseURL }), 'x-gateway-trace-id': 'left-before-first-byte', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'tts-1', voice: 'alloy', input: 'hi' }) });
    await new Promise((resolve) => setTimeout(resolve, 200));
    leaving.abort();
    await expect(sent).rejects.toThrow();
    expect((await e2e.recordOf('left-before-first-byte')).status).toBe(499);
    raw.keepOpen = false;
  });

  it('charges the prompt of a stream its client left after the provider\'s headers and before its first token: the provider was working on it', async () => {
    raw.keepOpen = true;
    answer = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n';
    const leaving = new AbortController();
    const sent = e2e.fetch('/v1/chat/completions', { method: 'POST', signal: leaving.signal, headers: { 'x-gateway-config': JSON.stringify({ ...target(0), custom_host: raw.baseURL }), 'x-gateway-trace-id': 'left-before-first-token', 'content-type': 'application/json' }, body: JSON.stringify({ ...JSON.parse(CHAT), stream: true }) });
    await new Promise((resolve) => setTimeout(resolve, 200));
    leaving.abort();
    await expect(sent).rejects.toThrow();
    const record = await e2e.recordOf('left-before-first-token');
    expect(record.status).toBe(499);
    expect(record.usage).toMatchObject({ estimated: true, outputTokens: 0 });
    expect(record.usage!.inputTokens).toBeGreaterThan(0);
    raw.keepOpen = false;
  });

});

describe('a provider whose answer breaks off while a stage reads it whole', () => {
  let e2e: E2E;
  let raw: RawProvider;
  const brokenAs = (type: string) => `HTTP/1.1 200 OK\r\ncontent-type: ${type}\r\ntransfer-encoding: chunked\r\n\r\n10\r\n{"text":"a clip \r\nZZ\r\n`;
  let answer = brokenAs('text/event-stream');

  beforeAll(async () => {
    raw = await startRawProvider(() => ({ bytes: answer }));
    e2e = await startE2E({ mocks: 1 });
  });
  afterAll(async () => {
    await e2e?.close();
    await raw?.close();
  });

  const transcription = (): FormData => {
    const form = new FormData();
    form.set('model', 'whisper-1');
    form.set('file', new Blob([Buffer.alloc(64)]), 'clip.wav');
    return form;
  };
  const guarded = (phase: 'input_guardrails' | 'output_guardrails') => JSON.stringify({ ...target(0), custom_host: raw.baseURL, [phase]: [{ id: 'no-secret', deny: true, 'default.contains': { words: ['secret'], operator: 'none' } }] });

  it('is 502 provider_invalid_response, not a 500: a held stream, a transcription judged, or one given hook_results', async () => {
    answer = brokenAs('text/event-stream');
    const held = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': guarded('output_guardrails'), 'content-type': 'application/json' }, body: JSON.stringify({ ...JSON.parse(CHAT), stream: true }) });
    expect(held.status).toBe(502);
    expect((await errorOf(held)).code).toBe('provider_invalid_response');
    answer = brokenAs('application/json');
    for (const phase of ['output_guardrails', 'input_guardrails'] as const) {
      const res = await e2e.fetch('/v1/audio/transcriptions', { method: 'POST', headers: { 'x-gateway-config': guarded(phase) }, body: transcription() });
      expect(res.status, phase).toBe(502);
      expect((await errorOf(res)).message).toContain("The provider's answer broke off");
    }
  });
});

describe('a provider whose answer is larger than the gateway holds', () => {
  let e2e: E2E;
  let raw: RawProvider;
  let streams: RawProvider;
  /** A streamed chat answer of `events` content events of 1,000 characters each. */
  const sse = (events: number): string => {
    const chunk = (delta: unknown, finish: string | null) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const body = Array.from({ length: events }, () => chunk({ content: 'word '.repeat(200) }, null)).join('') + chunk({}, 'stop') + 'data: [DONE]\n\n';
    return `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  };

  beforeAll(async () => {
    raw = await startRawProvider(() => ({ bytes: httpAnswer(200, `{"id":"big","pad":"${'x'.repeat(200_000)}"}`) }));
    // The first request gets a long stream (~230 KB), the second a short one, and so on.
    streams = await startRawProvider((index) => ({ bytes: sse(index % 2 === 0 ? 200 : 2) }));
    e2e = await startE2E({ mocks: 1, env: { GATEWAY_UPSTREAM_MAX_BYTES: '65536' } });
  });
  afterAll(async () => {
    await e2e?.close();
    await raw?.close();
    await streams?.close();
  });

  it('streams a long answer whole past an output check that only reports, which errors as not judged instead of holding it all', async () => {
    const config = JSON.stringify({ ...target(0), custom_host: streams.baseURL, output_guardrails: [{ id: 'words', 'default.wordCount': { maxWords: 1_000_000 } }] });
    const ask = async (traceId: string) => {
      const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': config, 'x-gateway-trace-id': traceId, 'content-type': 'application/json' }, body: JSON.stringify({ ...JSON.parse(CHAT), stream: true }) });
      expect(res.status).toBe(200);
      return { text: await res.text(), record: await e2e.recordOf(traceId) };
    };
    const long = await ask('long-stream-judged');
    expect(long.text.length).toBeGreaterThan(200_000);
    expect(long.text.endsWith('data: [DONE]\n\n')).toBe(true);
    const [unjudged] = long.record.hookResults!.afterRequestHooks[0]!.checks;
    expect(unjudged).toMatchObject({ id: 'default.wordCount', verdict: true, explanation: null, error: expect.stringMatching(/longer than the 65536 bytes the gateway holds to judge it \(GATEWAY_UPSTREAM_MAX_BYTES\); not judged$/) });
    // A stream within the bound is judged as before.
    const short = await ask('short-stream-judged');
    expect(short.record.hookResults!.afterRequestHooks[0]!.checks[0]).toMatchObject({ verdict: true, error: null, explanation: expect.stringContaining('400 words') });
  });

  it('answers 502 provider_response_too_large past GATEWAY_UPSTREAM_MAX_BYTES', async () => {
    const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': JSON.stringify({ ...target(0), custom_host: raw.baseURL }), 'content-type': 'application/json' }, body: CHAT });
    expect(res.status).toBe(502);
    expect((await errorOf(res)).code).toBe('provider_response_too_large');
  });
});

describe('an endless stream through the messages-style adapter', () => {
  let e2e: E2E;
  let endless: RawProvider;

  beforeAll(async () => {
    const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
    endless = await startRawProvider(() => ({
      keepOpen: true,
      // Headers and the first events, then nothing more: the stream never ends.
      bytes: 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n' +
        event('message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [], stop_reason: null, usage: { input_tokens: 3, output_tokens: 0 } } }) +
        event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
        event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } }),
    }));
    e2e = await startE2E({ mocks: 1 });
  });
  afterAll(async () => {
    await e2e?.close();
    await endless?.close();
  });

  it('gives the client its headers and the first chunk at once, without waiting for the end', async () => {
    const config = JSON.stringify({ provider: 'anthropic', api_key: 'k', custom_host: endless.baseURL });
    const controller = new AbortController();
    const started = performance.now();
    const res = await e2e.fetch('/v1/chat/completions', {
      method: 'POST', signal: controller.signal,
      headers: { 'x-gateway-config': config, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-x', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('Hello')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString('utf8');
    }
    expect(text).toContain('"content":"Hello"');
    expect(performance.now() - started).toBeLessThan(3000);
    controller.abort();
  });
});

describe('a broken answer through the messages-style adapter (which transforms it)', () => {
  let e2e: E2E;
  const providers: RawProvider[] = [];

  beforeAll(async () => {
    e2e = await startE2E({ mocks: 1 });
  });
  afterAll(async () => {
    await e2e?.close();
    await Promise.all(providers.map((p) => p.close()));
  });

  for (const [name, bytes] of [
    ['invalid JSON', httpAnswer(200, '{"id": "msg_1", "content": [')],
    ['text', httpAnswer(200, 'upstream says hello').replace('application/json', 'text/plain')],
    ['a body cut short', httpAnswer(200, '{"id":"msg_1","type":"message"', 4000)],
  ] as const) {
    it(`is a failed attempt on ${name}: 502 alone, the fallback answers otherwise`, async () => {
      const raw = await startRawProvider(() => ({ bytes }));
      providers.push(raw);
      const messages = { provider: 'anthropic', api_key: 'k', custom_host: raw.baseURL };
      const alone = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': JSON.stringify(messages), 'content-type': 'application/json' }, body: CHAT });
      expect(alone.status).toBe(502);
      expect((await errorOf(alone)).code).toBe('provider_invalid_response');
      const fallback = JSON.stringify({ strategy: { mode: 'fallback' }, targets: [messages, target(0)] }).replaceAll('{{mock0}}', e2e.mocks[0].baseURL);
      const ok = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': fallback, 'content-type': 'application/json' }, body: CHAT });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
      await ok.arrayBuffer();
    });
  }

  it('is a failed attempt when its stream breaks inside its first event: nothing was mapped or sent yet, so the fallback answers', async () => {
    const start = 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","con';
    const raw = await startRawProvider(() => ({ bytes: `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n${start}` }));
    providers.push(raw);
    const messages = { provider: 'anthropic', api_key: 'k', custom_host: raw.baseURL };
    const streamed = JSON.stringify({ ...JSON.parse(CHAT), stream: true, max_tokens: 16 });
    const fallback = JSON.stringify({ strategy: { mode: 'fallback' }, targets: [messages, target(0)] }).replaceAll('{{mock0}}', e2e.mocks[0].baseURL);
    const ok = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': fallback, 'content-type': 'application/json' }, body: streamed });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    expect(await ok.text()).toContain('data: [DONE]');
  });
});
