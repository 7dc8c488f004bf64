// The vendor mock must speak the protocol the official SDK expects, or every end-to-end test built
// on it proves nothing. The SDK is the client here; it parses the mock's JSON and SSE itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI, { toFile } from 'openai';
import { request } from 'undici';
import { startVendorMock, speechBytes, VENDOR_MOCK_KEY } from './vendor/index.ts';
import type { VendorMock } from './vendor/index.ts';

let mock: VendorMock;
let sdk: OpenAI;

beforeAll(async () => {
  mock = await startVendorMock({ label: 'mock-a' });
  sdk = new OpenAI({ apiKey: VENDOR_MOCK_KEY, baseURL: mock.baseURL, maxRetries: 0 });
});

afterAll(async () => {
  await mock.close();
});

describe('vendor mock through the official SDK', () => {
  it('answers a chat completion with the instance label and the prompt', async () => {
    const completion = await sdk.chat.completions.create({
      model: 'vendor-chat-1',
      messages: [{ role: 'user', content: 'tell me a story' }],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('vendor-chat-1');
    expect(completion.choices[0].message).toMatchObject({ role: 'assistant', content: '[mock-a] tell me a story' });
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({ completion_tokens: 5, total_tokens: completion.usage!.prompt_tokens + 5 });
  });

  it('streams chat chunks that the SDK reassembles, with a usage chunk on request', async () => {
    const stream = await sdk.chat.completions.create({
      model: 'vendor-chat-1',
      messages: [{ role: 'user', content: 'one two three' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let usage: unknown = null;
    let roles = 0;
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      for (const choice of chunk.choices) {
        if (choice.delta.role === 'assistant') roles += 1;
        text += choice.delta.content ?? '';
        finish = choice.finish_reason ?? finish;
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(roles).toBe(1);
    expect(text).toBe('[mock-a] one two three');
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ completion_tokens: 4 });
  });

  it('lists each token\'s log probability on request, in the answer and in each streamed chunk', async () => {
    const completion = await sdk.chat.completions.create({ model: 'vendor-chat-1', messages: [{ role: 'user', content: 'one two' }], logprobs: true, top_logprobs: 1 });
    const tokens = completion.choices[0].logprobs!.content!;
    expect(tokens.map((t) => t.token).join('')).toBe(completion.choices[0].message.content);
    expect(tokens[0]!.top_logprobs).toEqual([{ token: tokens[0]!.token, logprob: tokens[0]!.logprob, bytes: tokens[0]!.bytes }]);
    const stream = await sdk.chat.completions.create({ model: 'vendor-chat-1', messages: [{ role: 'user', content: 'one two' }], logprobs: true, stream: true });
    let streamed = '';
    for await (const chunk of stream) for (const entry of chunk.choices[0]?.logprobs?.content ?? []) streamed += entry.token;
    expect(streamed).toBe(completion.choices[0].message.content);
    expect((await sdk.chat.completions.create({ model: 'vendor-chat-1', messages: [{ role: 'user', content: 'one' }] })).choices[0].logprobs).toBeNull();
    await expect(sdk.chat.completions.create({ model: 'vendor-chat-1', messages: [{ role: 'user', content: 'one' }], top_logprobs: 2 })).rejects.toMatchObject({ status: 400, param: 'top_logprobs' });
  });

  it('stops at max_tokens with finish_reason length', async () => {
    const completion = await sdk.chat.completions.create({
      model: 'vendor-chat-1',
      messages: [{ role: 'user', content: 'a b c d e f' }],
      max_tokens: 3,
    });
    expect(completion.choices[0].message.content).toBe('[mock-a] a b');
    expect(completion.choices[0].finish_reason).toBe('length');
  });

  it('serves text completions, streamed and not', async () => {
    const plain = await sdk.completions.create({ model: 'vendor-instruct-1', prompt: 'say this', echo: true, logprobs: 1 });
    expect(plain.object).toBe('text_completion');
    expect(plain.choices[0].text).toBe('say this[mock-a] say this');
    expect(plain.choices[0].logprobs?.tokens).toEqual(['[mock-a]', ' say', ' this']);
    const stream = await sdk.completions.create({ model: 'vendor-instruct-1', prompt: 'x y', stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
    expect(text).toBe('[mock-a] x y');
  });

  it('returns deterministic unit embeddings in float and base64', async () => {
    const floats = await sdk.embeddings.create({ model: 'vendor-embed-1', input: ['alpha', 'beta'], encoding_format: 'float' });
    expect(floats.data).toHaveLength(2);
    const first = floats.data[0].embedding;
    expect(first).toHaveLength(16);
    expect(Math.hypot(...first)).toBeCloseTo(1, 5);
    // The SDK asks for base64 by default and decodes it; it must land on the same vector.
    const decoded = await sdk.embeddings.create({ model: 'vendor-embed-1', input: 'alpha' });
    expect(decoded.data[0].embedding).toEqual(first);
  });

  it('lists and retrieves models', async () => {
    const ids: string[] = [];
    for await (const model of sdk.models.list()) ids.push(model.id);
    expect(ids).toContain('vendor-chat-1');
    expect((await sdk.models.retrieve('vendor-chat-1')).owned_by).toBe('vendor');
    await expect(sdk.models.retrieve('nope')).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
  });

  it('returns binary speech audio byte for byte', async () => {
    const response = await sdk.audio.speech.create({ model: 'vendor-tts-1', voice: 'alloy', input: 'hello there' });
    expect(response.headers.get('content-type')).toBe('audio/mpeg');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.equals(speechBytes('hello there', 'mp3'))).toBe(true);
  });

  it('transcribes a multipart upload', async () => {
    const file = await toFile(Buffer.alloc(32000, 7), 'clip.wav', { type: 'audio/wav' });
    const result = await sdk.audio.transcriptions.create({ model: 'vendor-stt-1', file });
    expect(result.text).toBe('[mock-a] transcript of clip.wav (32000 bytes)');
  });

  it('translates, and gives segments, words, log probabilities and a transcript stream on request', async () => {
    const file = await toFile(Buffer.alloc(32000), 'clip.wav');
    expect((await sdk.audio.translations.create({ model: 'vendor-stt-1', file })).text).toBe('[mock-a] translation of clip.wav (32000 bytes)');
    const verbose = await sdk.audio.transcriptions.create({ model: 'vendor-stt-1', file, response_format: 'verbose_json', timestamp_granularities: ['word'] });
    expect(verbose.segments![0]!.text).toBe(verbose.text);
    expect(verbose.words!.map((w) => w.word).join(' ')).toBe(verbose.text);
    const withLogprobs = await sdk.audio.transcriptions.create({ model: 'gpt-4o-transcribe', file, include: ['logprobs'] });
    expect(withLogprobs.logprobs!.map((l) => l.token).join('')).toBe(withLogprobs.text);
    const stream = await sdk.audio.transcriptions.create({ model: 'gpt-4o-transcribe', file, stream: true });
    let deltas = '';
    let done = '';
    for await (const event of stream) {
      if (event.type === 'transcript.text.delta') deltas += event.delta;
      if (event.type === 'transcript.text.done') done = event.text;
    }
    expect(deltas).toBe('[mock-a] transcript of clip.wav (32000 bytes)');
    expect(done).toBe(deltas);
  });

  it('counts a Responses input through the SDK, and refuses what the count takes no part in', async () => {
    const counted = await sdk.responses.inputTokens.count({
      model: 'gpt-4o-mini',
      input: [{ role: 'user', content: 'two words' }, { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' }, { type: 'function_call_output', call_id: 'c1', output: 'one' }],
      tools: [{ type: 'function', name: 'f', description: 'Does it', parameters: {}, strict: false }],
    });
    expect(counted).toEqual({ object: 'response.input_tokens', input_tokens: 5 + 4 + 4 + 5 });
    for (const [extra, param] of [[{ max_output_tokens: 5 }, 'max_output_tokens'], [{ input: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] }, 'input[0].content[0].type'], [{ tools: [{ type: 'function', name: 'f', parameters: {}, defer_loading: true }] }, 'tools[0].defer_loading']] as const) {
      const refused = await sdk.responses.inputTokens.count({ model: 'gpt-4o-mini', input: 'Hi', ...extra } as never).catch((e: unknown) => e);
      expect(refused, param).toBeInstanceOf(OpenAI.BadRequestError);
      expect((refused as { param?: unknown }).param).toBe(param);
    }
  });

  it('generates images', async () => {
    const result = await sdk.images.generate({ model: 'vendor-image-1', prompt: 'a cat', response_format: 'b64_json', n: 2 });
    expect(result.data).toHaveLength(2);
    expect(Buffer.from(result.data![0].b64_json!, 'base64').subarray(1, 4).toString()).toBe('PNG');
  });

  it('rejects a wrong key with the vendor error shape', async () => {
    const bad = new OpenAI({ apiKey: 'sk-wrong-key-123', baseURL: mock.baseURL, maxRetries: 0 });
    await expect(bad.models.list()).rejects.toMatchObject({ status: 401, code: 'invalid_api_key', type: 'invalid_request_error' });
  });

  it('surfaces scripted failures with their retry headers', async () => {
    mock.script({ path: '/v1/chat/completions', status: 429, retryAfterMs: 250, times: 2 });
    const call = (): Promise<unknown> =>
      sdk.chat.completions.create({ model: 'vendor-chat-1', messages: [{ role: 'user', content: 'hi' }] });
    for (let i = 0; i < 2; i++) {
      const error = await call().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(OpenAI.RateLimitError);
      expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after-ms')).toBe('250');
    }
    await expect(call()).resolves.toBeTruthy();
  });
});

describe('vendor mock on the wire', () => {
  const auth = { authorization: `Bearer ${VENDOR_MOCK_KEY}` };

  it('sends the vendor headers and its instance label', async () => {
    const res = await request(`${mock.url}/v1/models`, { headers: auth });
    await res.body.dump();
    expect(res.headers['x-mock-instance']).toBe('mock-a');
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(res.headers['vendor-processing-ms']).toMatch(/^\d+$/);
    expect(res.headers['x-ratelimit-remaining-requests']).toMatch(/^\d+$/);
  });

  it('frames SSE exactly as data lines ending with [DONE]', async () => {
    const res = await request(`${mock.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const text = await res.body.text();
    const frames = text.split('\n\n');
    expect(frames.pop()).toBe('');
    expect(frames.every((f) => f.startsWith('data: '))).toBe(true);
    expect(frames.at(-1)).toBe('data: [DONE]');
    expect(JSON.parse(frames[0].slice(6)).choices[0].delta).toEqual({ role: 'assistant', content: '', refusal: null });
  });

  it('echoes unknown paths with method, query, headers and body', async () => {
    const res = await request(`${mock.url}/v1/some/thing?a=1&a=2&b=x`, {
      method: 'PUT',
      headers: { ...auth, 'x-custom': 'Value' },
      body: 'raw body',
    });
    expect(res.statusCode).toBe(200);
    const echoed = (await res.body.json()) as Record<string, unknown>;
    expect(echoed).toMatchObject({ method: 'PUT', path: '/v1/some/thing', query: { a: ['1', '2'], b: 'x' }, body: 'raw body', instance: 'mock-a' });
    expect((echoed.headers as Record<string, string>)['x-custom']).toBe('Value');
  });

  it('answers 400 for a malformed chat body and 405 for a wrong method', async () => {
    const bad = await request(`${mock.url}/v1/chat/completions`, { method: 'POST', headers: auth, body: '{"model":' });
    expect(bad.statusCode).toBe(400);
    expect(((await bad.body.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    const wrong = await request(`${mock.url}/v1/chat/completions`, { headers: auth });
    expect(wrong.statusCode).toBe(405);
    await wrong.body.dump();
    // The service's bound on choices: a float as large as 1e194 is an integer too, and is refused, not generated.
    for (const n of [129, 1.9e194]) {
      const many = await request(`${mock.url}/v1/chat/completions`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o-mini', n, messages: [{ role: 'user', content: 'hi' }] }) });
      expect(many.statusCode, String(n)).toBe(400);
      expect(((await many.body.json()) as { error: { param: string } }).error.param).toBe('n');
    }
  });

  it('streams speech as events with its usage, as the token-billed speech models do, and refuses that for tts-1', async () => {
    const events = await (await sdk.audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'alloy', input: 'hello there', stream_format: 'sse' })).text();
    const parsed = events.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)));
    const audio = Buffer.concat(parsed.filter((e) => e.type === 'speech.audio.delta').map((e) => Buffer.from(e.audio, 'base64')));
    expect(audio.equals(speechBytes('hello there', 'mp3'))).toBe(true);
    expect(parsed.at(-1)).toMatchObject({ type: 'speech.audio.done', usage: { input_tokens: 3 } });
    await expect(sdk.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'hello', stream_format: 'sse' })).rejects.toMatchObject({ status: 400 });
  });

  it('hangs up, delays, and breaks streams when scripted', async () => {
    mock.script({ hangUp: true });
    await expect(request(`${mock.url}/v1/models`, { headers: auth })).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });

    mock.script({ delayMs: 150 });
    const started = Date.now();
    const slow = await request(`${mock.url}/v1/models`, { headers: auth });
    await slow.body.dump();
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);

    mock.script({ breakAfter: 2 });
    const broken = await request(`${mock.url}/v1/chat/completions`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'a b c d' }], stream: true }),
    });
    expect(broken.statusCode).toBe(200);
    await expect(broken.body.text()).rejects.toThrow();
    expect(await mock.requests.at(-1)!.outcome).toBe('mock-destroyed');
  });
});
