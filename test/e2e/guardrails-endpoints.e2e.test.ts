// A route whose checks judge text sees the text of every request it serves, whatever the endpoint:
// the Responses API is emulated over chat completions there (not forwarded, where the checks would
// read no text), so input and output guardrails judge and redact it as they do a chat; a batch on it
// is run by the gateway, each line through the route, not forwarded to the provider's Batch API
// unjudged; an image's prompt and the text a speech request speaks are judged and redacted. A route
// whose checks read only what is around the text keeps forwarding. A pass-through request or answer
// is in the provider's own shape, where no check can tell the text: checks that read text fail on it
// unjudged, so a deny rule denies it rather than passing it as "".
import OpenAI, { toFile } from 'openai';
import { until } from '../jobs/harness.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { serveConfigs, type ServedConfigs } from './serve-in-process.ts';

const KEY = 'gw-guardrails-endpoints';
const NO_SECRET = { id: 'no-secret', deny: true, 'default.contains': { words: ['secret'], operator: 'none' } };

let served: ServedConfigs;
let mock: VendorMock;

beforeAll(async () => {
  mock = await startVendorMock({ label: 'gr' });
  const target = { provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL };
  served = await serveConfigs('guardrails-endpoints', KEY, {
    input: { ...target, input_guardrails: [NO_SECRET] },
    output: { ...target, output_guardrails: [NO_SECRET] },
    pii: { ...target, output_guardrails: [{ id: 'pii', 'default.piiRedact': {} }] },
    'pii-in': { ...target, input_guardrails: [{ id: 'pii', 'default.piiRedact': {} }] },
    soft: { ...target, output_guardrails: [{ id: 'short', 'default.wordCount': { maxWords: 3 } }] },
    models: { ...target, input_guardrails: [{ id: 'models', deny: true, 'default.modelWhitelist': { models: ['gpt-4o-mini'] } }] },
    overridden: { ...target, override_params: { temperature: 0 } },
  });
});

afterAll(async () => {
  await served?.close();
  await mock?.close();
});

const client = (config: string): OpenAI => new OpenAI({ baseURL: `${served.gateway.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': KEY, 'x-gateway-config': config } });
const responsesAtMock = (): number => mock.requests.filter((r) => r.path.endsWith('/responses')).length;

describe('the Responses API on a route whose checks judge text', () => {
  it('judges the input as a chat\'s: a deny rule denies it, and the provider sees nothing', async () => {
    const before = mock.requests.length;
    const error = await client('input').responses.create({ model: 'gpt-4o-mini', input: 'the secret is out', store: false }).then(() => null, (e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(446);
    expect(mock.requests.length).toBe(before);
    const ok = await client('input').responses.create({ model: 'gpt-4o-mini', input: 'all clear', store: false });
    expect(ok.output_text).toBe('[gr] all clear');
  });

  it('judges the answer, streamed or not, and redacts it', async () => {
    const denied = await client('output').responses.create({ model: 'gpt-4o-mini', input: 'tell the secret', store: false }).then(() => null, (e: unknown) => e);
    expect((denied as InstanceType<typeof OpenAI.APIError>).status).toBe(446);
    // Streamed, the chat stream is held and judged whole; denied, nothing of it reaches the client: the response fails.
    const events: Array<{ type: string; response?: { status: string; error: { code: string } | null } }> = [];
    for await (const event of await client('output').responses.create({ model: 'gpt-4o-mini', input: 'tell the secret', store: false, stream: true })) events.push(event as never);
    expect(events.map((event) => event.type)).toEqual(['response.created', 'response.in_progress', 'response.failed']);
    expect(events.at(-1)!.response).toMatchObject({ status: 'failed', error: { code: 'denied_by_guardrail' } });
    const redacted = await client('pii').responses.create({ model: 'gpt-4o-mini', input: 'write to jane.doe@example.com', store: false });
    expect(redacted.output_text).toBe('[gr] write to [EMAIL]');
    const stream = await client('pii').responses.create({ model: 'gpt-4o-mini', input: 'write to jane.doe@example.com', stream: true, store: false });
    let text = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toBe('[gr] write to [EMAIL]');
  });

  it('answers as a chat would after its hooks: 246 with hook_results when one failed, 200 with them when all passed; a stream that flows is judged at its end, for the log', async () => {
    const traceId = `flowing-response-${Date.now()}`;
    const ask = (input: string, stream: boolean) => fetch(`${served.gateway.url}/v1/responses`, {
      method: 'POST', headers: { 'x-gateway-api-key': KEY, 'x-gateway-config': 'soft', 'content-type': 'application/json', 'x-gateway-trace-id': stream ? traceId : `${traceId}-json` },
      body: JSON.stringify({ model: 'gpt-4o-mini', input, stream, store: false }),
    });
    const failed = await ask('say a good many words', false);
    expect(failed.status).toBe(246);
    const body = (await failed.json()) as { object: string; hook_results: { after_request_hooks: Array<{ id: string; verdict: boolean }> } };
    expect(body.object).toBe('response');
    expect(body.hook_results.after_request_hooks).toMatchObject([{ id: 'short', verdict: false }]);
    const passed = await ask('hi', false);
    expect(passed.status).toBe(200);
    expect(((await passed.json()) as { hook_results: { after_request_hooks: Array<{ verdict: boolean }> } }).hook_results.after_request_hooks).toMatchObject([{ verdict: true }]);
    // The chat's stream flows to the client as it comes (a check that neither denies nor rewrites
    // holds nothing back), so its status was sent before the answer was judged, as a chat stream's is.
    const streamed = await ask('say a good many words', true);
    expect(streamed.status).toBe(200);
    expect(await streamed.text()).toContain('event: response.completed');
    const record = await until(async () => {
      const res = await fetch(`${served.gateway.url}/v1/logs?trace_id=${traceId}`, { headers: { 'x-gateway-api-key': KEY } });
      return ((await res.json()) as { data: Array<{ hook_results?: { after_request_hooks: unknown[] } }> }).data[0];
    }, (found) => found?.hook_results !== undefined, 5_000, 'the stream\'s record');
    expect(record!.hook_results!.after_request_hooks).toMatchObject([{ id: 'short', verdict: false }]);
  });

  it('is emulated there, and still forwarded on a route whose checks read only the request around the text', async () => {
    const forwarded = responsesAtMock();
    await client('pii').responses.create({ model: 'gpt-4o-mini', input: 'hello', store: false });
    expect(responsesAtMock()).toBe(forwarded);
    await client('models').responses.create({ model: 'gpt-4o-mini', input: 'hello', store: false });
    expect(responsesAtMock()).toBe(forwarded + 1);
  });
});

describe('a batch on a route whose checks judge text', () => {
  it('is run by the gateway, each line judged, not forwarded to the provider\'s Batch API', async () => {
    const sdk = client('output');
    const line = (id: string, content: string) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content }] } });
    const file = await sdk.files.create({ file: await toFile(Buffer.from(`${line('clear', 'all clear')}\n${line('told', 'the secret is out')}\n`), 'lines.jsonl'), purpose: 'batch' });
    const forwardedBefore = mock.requests.filter((r) => r.method === 'POST' && r.path === '/v1/batches').length;
    const batch = await sdk.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(batch.id).toMatch(/^batch_gw/);
    expect(mock.requests.filter((r) => r.method === 'POST' && r.path === '/v1/batches').length).toBe(forwardedBefore);
    const done = await until(() => sdk.batches.retrieve(batch.id), (b) => ['completed', 'failed'].includes(b.status), 20_000, 'the batch');
    const answers = new Map<string, number>();
    for (const id of [done.output_file_id, done.error_file_id]) {
      if (id === null || id === undefined) continue;
      for (const text of (await (await sdk.files.content(id)).text()).split('\n').filter(Boolean)) {
        const parsed = JSON.parse(text) as { custom_id: string; response: { status_code: number } | null };
        answers.set(parsed.custom_id, parsed.response?.status_code ?? 0);
      }
    }
    expect(Object.fromEntries(answers)).toEqual({ clear: 200, told: 446 });
  });
});

describe('images and speech on a route whose checks judge text', () => {
  it('judges an image\'s prompt and the text a speech request speaks: a deny rule denies them, the provider sees nothing', async () => {
    const before = mock.requests.length;
    const image = await client('input').images.generate({ model: 'gpt-image-1', prompt: 'draw the secret plan' }).then(() => null, (e: unknown) => e);
    expect((image as InstanceType<typeof OpenAI.APIError>).status).toBe(446);
    const speech = await client('input').audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'read the secret aloud' }).then(() => null, (e: unknown) => e);
    expect((speech as InstanceType<typeof OpenAI.APIError>).status).toBe(446);
    expect(mock.requests.length).toBe(before);
    await client('input').images.generate({ model: 'gpt-image-1', prompt: 'draw a cat' });
    expect(mock.requests.length).toBe(before + 1);
  });

  it('redacts them before the provider sees them', async () => {
    await client('pii-in').images.generate({ model: 'gpt-image-1', prompt: 'a card for jane.doe@example.com' });
    expect((mock.requests.at(-1)!.json as { prompt: string }).prompt).toBe('a card for [EMAIL]');
    await (await client('pii-in').audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'mail jane.doe@example.com' })).arrayBuffer();
    expect((mock.requests.at(-1)!.json as { input: string }).input).toBe('mail [EMAIL]');
  });
});

describe('transcriptions and translations on a route whose output checks judge text', () => {
  // The mock "hears" the file's name: `[gr] transcript of <name> (<bytes> bytes)`.
  const clip = (name: string) => toFile(Buffer.alloc(32000), name);

  it('judges the text they answer: a deny rule denies it (446, or an error event ending a stream), a passing one answers as it came', async () => {
    for (const transcribe of [(file: Awaited<ReturnType<typeof clip>>) => client('output').audio.transcriptions.create({ model: 'whisper-1', file }), (file: Awaited<ReturnType<typeof clip>>) => client('output').audio.translations.create({ model: 'whisper-1', file })]) {
      const denied = await transcribe(await clip('secret.wav')).then(() => null, (e: unknown) => e);
      expect((denied as InstanceType<typeof OpenAI.APIError>).status).toBe(446);
      expect((await transcribe(await clip('clip.wav'))).text).toMatch(/^\[gr\] (transcript|translation) of clip\.wav/);
    }
    const stream = await client('output').audio.transcriptions.create({ model: 'gpt-4o-transcribe', file: await clip('secret.wav'), stream: true });
    const streamed = await (async () => {
      for await (const _ of stream) { /* read to the end */ }
    })().then(() => null, (e: unknown) => e);
    expect(String(streamed)).toContain('denied the request');
    // A speech answer is audio, not judged: the same route speaks it.
    expect((await (await client('output').audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'no secrets here' })).arrayBuffer()).byteLength).toBeGreaterThan(0);
  });

  it('judges a transcript stream that flows at its end, for the log; a JSON one failing a check that does not deny answers 246 with hook_results', async () => {
    const soft = client('soft');
    const { data, response } = await soft.audio.transcriptions.create({ model: 'whisper-1', file: await clip('clip.wav') }).withResponse();
    expect(response.status).toBe(246);
    expect((data as unknown as { hook_results: { after_request_hooks: unknown[] } }).hook_results.after_request_hooks).toMatchObject([{ id: 'short', verdict: false }]);
    const traceId = `flowing-transcript-${Date.now()}`;
    const stream = await new OpenAI({ baseURL: `${served.gateway.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': KEY, 'x-gateway-config': 'soft', 'x-gateway-trace-id': traceId } })
      .audio.transcriptions.create({ model: 'gpt-4o-transcribe', file: await clip('clip.wav'), stream: true });
    let text = '';
    for await (const event of stream) if (event.type === 'transcript.text.delta') text += event.delta;
    expect(text).toBe('[gr] transcript of clip.wav (32000 bytes)');
    const record = await until(async () => {
      const res = await fetch(`${served.gateway.url}/v1/logs?trace_id=${traceId}`, { headers: { 'x-gateway-api-key': KEY } });
      return ((await res.json()) as { data: Array<{ hook_results?: { after_request_hooks: unknown[] } }> }).data[0];
    }, (found) => found?.hook_results !== undefined, 5_000, 'the stream\'s record');
    expect(record!.hook_results!.after_request_hooks).toMatchObject([{ id: 'short', verdict: false, checks: [{ id: 'default.wordCount', verdict: false }] }]);
  });

  it('redacts the text in every format, with its segments, and drops the word timings and log probabilities that spell it', async () => {
    const email = 'jane.doe@example.com';
    const pii = client('pii');
    const json = await pii.audio.transcriptions.create({ model: 'gpt-4o-transcribe', file: await clip(`${email}.wav`), include: ['logprobs'] });
    expect(json.text).toBe('[gr] transcript of [EMAIL] (32000 bytes)');
    expect(json.logprobs).toBeUndefined();
    const text = await pii.audio.transcriptions.create({ model: 'whisper-1', file: await clip(`${email}.wav`), response_format: 'text' });
    expect(String(text).trim()).toBe('[gr] transcript of [EMAIL] (32000 bytes)');
    const verbose = await pii.audio.transcriptions.create({ model: 'whisper-1', file: await clip(`${email}.wav`), response_format: 'verbose_json', timestamp_granularities: ['word'] });
    expect(JSON.stringify(verbose)).not.toContain(email);
    expect(verbose.segments![0]).toMatchObject({ text: verbose.text, tokens: [] });
    expect(verbose.words).toBeUndefined();
    const stream = await pii.audio.transcriptions.create({ model: 'gpt-4o-transcribe', file: await clip(`${email}.wav`), stream: true, include: ['logprobs'] });
    const events: unknown[] = [];
    for await (const event of stream) events.push(event);
    expect(JSON.stringify(events)).not.toContain(email);
    expect(events.at(-1)).toMatchObject({ type: 'transcript.text.done', text: '[gr] transcript of [EMAIL] (32000 bytes)' });
    // Nothing to redact: the answer as the provider sent it, log probabilities included.
    const plain = await pii.audio.transcriptions.create({ model: 'gpt-4o-transcribe', file: await clip('clip.wav'), include: ['logprobs'] });
    expect(plain.logprobs?.length).toBeGreaterThan(0);
  });
});

describe('the pass-through on a route whose checks judge text', () => {
  const passOn = (config: string, path: string, init: { method?: string; body?: string | Buffer; contentType?: string } = {}) => fetch(`${served.gateway.url}${path}`, {
    method: init.method ?? 'POST',
    headers: { 'x-gateway-api-key': KEY, 'x-gateway-config': config, ...(init.contentType === undefined ? {} : { 'content-type': init.contentType }) },
    body: init.body,
  });
  type Denied = { error: { code: string }; hook_results: Record<string, Array<{ verdict: boolean; checks: Array<{ verdict: boolean; explanation: string | null }> }>> };

  it('fails an input check that reads text on a body it cannot read (a deny rule denies it; the provider sees nothing), and passes a request without a body', async () => {
    const before = mock.requests.length;
    for (const [body, contentType] of [[JSON.stringify({ role: 'user', content: 'the secret' }), 'application/json'], [JSON.stringify({ role: 'user', content: 'all clear' }), 'application/json'], [Buffer.from([0, 1, 2, 0xff]), 'application/octet-stream']] as const) {
      const denied = await passOn('input', '/v1/threads/t1/messages', { body, contentType });
      expect(denied.status).toBe(446);
      const answer = (await denied.json()) as Denied;
      expect(answer.error.code).toBe('denied_by_guardrail');
      expect(answer.hook_results.before_request_hooks[0].checks[0]).toMatchObject({ verdict: false, explanation: expect.stringContaining('pass-through request') });
    }
    expect(mock.requests.length).toBe(before);
    const listed = await passOn('input', '/v1/assistants', { method: 'GET' });
    expect(listed.status).toBe(200);
    expect(mock.requests.at(-1)!.path).toBe('/v1/assistants');
  });

  it('fails a transformer that cannot rewrite it: its hook answers 246 when it does not deny', async () => {
    const res = await passOn('pii-in', '/v1/threads/t1/messages', { body: JSON.stringify({ role: 'user', content: 'hi' }), contentType: 'application/json' });
    expect(res.status).toBe(246);
    const answer = (await res.json()) as Denied;
    expect(answer.hook_results.before_request_hooks[0].checks[0]).toMatchObject({ verdict: false, explanation: expect.stringContaining('not judged') });
  });

  it('fails an output check that reads text on the answer: a deny rule denies it after the provider answered', async () => {
    const before = mock.requests.length;
    const res = await passOn('output', '/v1/assistants', { method: 'GET' });
    expect(res.status).toBe(446);
    const answer = (await res.json()) as Denied;
    expect(answer.hook_results.after_request_hooks[0].checks[0]).toMatchObject({ verdict: false, explanation: expect.stringContaining('pass-through answer') });
    expect(mock.requests.length).toBe(before + 1);
  });

  it('forwards a body the gateway cannot parse as sent on a route that reads parameters, instead of refusing it as invalid JSON', async () => {
    const bytes = Buffer.from([0x7b, 0, 1, 2, 0xff, 0x7d]);
    const res = await passOn('overridden', '/v1/uploads/u1/parts', { body: bytes, contentType: 'application/octet-stream' });
    expect(res.status).toBe(200);
    expect(mock.requests.at(-1)!.bodyBytes.equals(bytes)).toBe(true);
  });
});
