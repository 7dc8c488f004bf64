// One provider conformance suite, run against every family's mock through the real gateway with
// the vendor SDK as the client: the same chat request gives the same normalised answer, streams
// are vendor-shaped chunks ending with `data: [DONE]`, usage is reported, provider errors keep
// their status and come back in the gateway's body naming the provider, refused credentials too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type OpenAI from 'openai';
import { FAMILIES, type Family, type FamilyMock } from './families.ts';
import { sseFrames, startProviderGateway, type ProviderGateway } from './gateway.ts';

const MODEL = 'conformance-model';
const MESSAGES = [
  { role: 'system' as const, content: 'You are terse.' },
  { role: 'user' as const, content: 'compare the providers please' },
];

let gw: ProviderGateway;
const started = new Map<string, FamilyMock>();

beforeAll(async () => {
  gw = await startProviderGateway();
  for (const family of FAMILIES) started.set(family.provider, await family.start(`conf-${family.provider}`));
});
afterAll(async () => {
  await gw.close();
  await Promise.all([...started.values()].map((f) => f.mock.close()));
});

/** What must be equal across families: the shape and the meaning, not ids, models or timestamps. */
function normalised(completion: OpenAI.Chat.Completions.ChatCompletion): unknown {
  return {
    object: completion.object,
    idType: typeof completion.id,
    createdType: typeof completion.created,
    modelType: typeof completion.model,
    choices: completion.choices.map((c) => ({ index: c.index, role: c.message.role, contentType: typeof c.message.content, finish: c.finish_reason })),
    usage: { keys: Object.keys(completion.usage ?? {}).filter((k) => k.endsWith('_tokens')).sort(), adds: completion.usage!.prompt_tokens + completion.usage!.completion_tokens === completion.usage!.total_tokens },
  };
}

const shapes = new Map<string, unknown>();

describe.each(FAMILIES.map((f) => [f.provider, f] as const))('%s', (_name, family: Family) => {
  const fam = () => started.get(family.provider)!;
  const config = (extra?: Record<string, unknown>) => fam().target(extra);

  it('answers a chat completion in the vendor shape, with usage', async () => {
    const { data, response } = await gw.client(config()).chat.completions.create({ model: MODEL, messages: MESSAGES }).withResponse();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-gateway-provider')).toBe(family.provider);
    expect(data.object).toBe('chat.completion');
    expect(data.choices).toHaveLength(1);
    expect(data.choices[0].message.role).toBe('assistant');
    expect(data.choices[0].message.content).toBe(`[conf-${family.provider}] compare the providers please`);
    expect(data.choices[0].finish_reason).toBe('stop');
    expect(data.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(data.usage!.completion_tokens).toBe(5);
    shapes.set(family.provider, normalised(data));
    expect(normalised(data)).toEqual(shapes.get('vendor') ?? normalised(data));
  });

  it('streams vendor chunks that end with data: [DONE], with usage on request', async () => {
    const res = await gw.post('/v1/chat/completions', config(), { model: MODEL, messages: MESSAGES, stream: true, stream_options: { include_usage: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('content-length')).toBeNull();
    const frames = sseFrames(await res.text());
    expect(frames.at(-1)).toEqual({ event: null, data: '[DONE]' });
    const chunks = frames.slice(0, -1).map((f) => {
      expect(f.event).toBeNull();
      return JSON.parse(f.data) as OpenAI.Chat.Completions.ChatCompletionChunk;
    });
    for (const chunk of chunks) expect(chunk.object).toBe('chat.completion.chunk');
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(`[conf-${family.provider}] compare the providers please`);
    expect(chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter((r) => r !== null)).toEqual(['stop']);
    const usage = chunks.at(-1)!;
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toMatchObject({ completion_tokens: 5 });
    expect(usage.usage!.total_tokens).toBe(usage.usage!.prompt_tokens + usage.usage!.completion_tokens);
  });

  it('streams through the vendor SDK', async () => {
    const stream = await gw.client(config()).chat.completions.create({ model: MODEL, messages: MESSAGES, stream: true });
    let text = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      expect(chunk.usage ?? null).toBeNull();
    }
    expect(text).toBe(`[conf-${family.provider}] compare the providers please`);
    expect(finish).toBe('stop');
  });

  it('reports a length finish when max_tokens cuts the answer', async () => {
    const data = await gw.client(config()).chat.completions.create({ model: MODEL, messages: MESSAGES, max_tokens: 2 });
    expect(data.choices[0].finish_reason).toBe('length');
    expect(data.usage!.completion_tokens).toBe(2);
  });

  it.each([429, 500, 503])('passes a provider %i through with its status, in the gateway body naming the provider', async (status) => {
    fam().mock.script({ path: family.chatPath(MODEL, false), status });
    const error = (await gw.client(config()).chat.completions.create({ model: MODEL, messages: MESSAGES }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(status);
    expect(error.error).toMatchObject({ provider: family.provider, type: expect.any(String), message: expect.any(String) });
    expect(Object.keys(error.error as object)).toEqual(expect.arrayContaining(['message', 'type', 'param', 'code', 'provider']));
  });

  it('maps a refused credential to the provider status, never a success or a silent fallback', async () => {
    const res = await gw.post('/v1/chat/completions', fam().badCredentialTarget(), { model: MODEL, messages: MESSAGES });
    expect(res.status).toBe(fam().authFailureStatus);
    const body = (await res.json()) as { error: Record<string, unknown> };
    // The provider's own words and code, kept; the vendor's own body keeps its own type.
    expect(body.error).toMatchObject({ provider: family.provider, message: expect.any(String), type: expect.any(String) });
    expect(JSON.stringify(body)).not.toContain('not-the-secret');
  });

  it('falls back past a failing target of the family to the next one', async () => {
    fam().mock.script({ path: family.chatPath(MODEL, false), status: 503 });
    const fallback = { strategy: { mode: 'fallback' }, targets: [config(), config()] };
    const { data, response } = await gw.client(fallback).chat.completions.create({ model: MODEL, messages: MESSAGES }).withResponse();
    expect(data.choices[0].message.content).toContain(`[conf-${family.provider}]`);
    expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
  });

  it.runIf(family.streamErrors)('ends a stream with an error event and no [DONE] when the provider reports an error mid-stream', async () => {
    const errorType = { anthropic: 'overloaded_error', cloudb: 'RESOURCE_EXHAUSTED', cloudc: 'throttlingException' }[family.provider]!;
    fam().mock.script({ path: family.chatPath(MODEL, true), streamError: { after: 3, type: errorType, message: 'slow down, mid-stream' } });
    const res = await gw.post('/v1/chat/completions', config(), { model: MODEL, messages: MESSAGES, stream: true });
    expect(res.status).toBe(200);
    const frames = sseFrames(await res.text());
    expect(frames.some((f) => f.data === '[DONE]')).toBe(false);
    const last = frames.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toMatchObject({ error: { message: 'slow down, mid-stream', code: errorType, provider: family.provider } });
  });

  /** Scripts the family's stream to open with a rate-limit error in its own format (429 for every family). */
  const openWithRateLimit = (): void => {
    const path = family.chatPath(MODEL, true);
    if (family.streamErrors) {
      const type = { anthropic: 'rate_limit_error', cloudb: 'RESOURCE_EXHAUSTED', cloudc: 'throttlingException' }[family.provider]!;
      fam().mock.script({ path, streamError: { after: 0, type, message: 'slow down, at the start' } });
    } else {
      // The vendor's own in-band error (no status of its own: its code names it), as compatible servers and proxies send it.
      const error = { message: 'slow down, at the start', type: 'requests', param: null, code: 'rate_limit_exceeded' };
      fam().mock.script({ path, body: `data: ${JSON.stringify({ error })}\n\n`, contentType: 'text/event-stream' });
    }
  };

  it('answers a stream the provider opened with an error as that error: its status, in the gateway body naming the provider', async () => {
    openWithRateLimit();
    const error = (await gw.client(config()).chat.completions.create({ model: MODEL, messages: MESSAGES, stream: true }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(429);
    expect(error.error).toMatchObject({ provider: family.provider, message: 'slow down, at the start' });
  });

  it('retries a stream the provider opened with an error, and falls back past it: nothing had gone out', async () => {
    openWithRateLimit();
    const retried = await gw.post('/v1/chat/completions', config({ retry: { attempts: 1 } }), { model: MODEL, messages: MESSAGES, stream: true });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('x-gateway-retry-attempt-count')).toBe('1');
    expect(sseFrames(await retried.text()).at(-1)).toEqual({ event: null, data: '[DONE]' });
    openWithRateLimit();
    const fallback = { strategy: { mode: 'fallback' }, targets: [config(), config()] };
    const res = await gw.post('/v1/chat/completions', fallback, { model: MODEL, messages: MESSAGES, stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    const frames = sseFrames(await res.text());
    expect(frames.at(-1)).toEqual({ event: null, data: '[DONE]' });
    expect(frames.some((f) => f.event === 'error')).toBe(false);
  });

  it.runIf(family.vendorShaped)('answers a 200 whose body is an error (a proxy\'s failure after it accepted the request) as that error, and falls back past it', async () => {
    const error = { code: 502, message: 'the upstream model is down' };
    fam().mock.script({ path: family.chatPath(MODEL, false), body: JSON.stringify({ error }) });
    const failed = (await gw.client(config()).chat.completions.create({ model: MODEL, messages: MESSAGES }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(failed.status).toBe(502);
    expect(failed.error).toMatchObject({ provider: family.provider, message: 'the upstream model is down', code: '502' });
    fam().mock.script({ path: family.chatPath(MODEL, false), body: JSON.stringify({ error }) });
    const fallback = { strategy: { mode: 'fallback' }, targets: [config(), config()] };
    const { data, response } = await gw.client(fallback).chat.completions.create({ model: MODEL, messages: MESSAGES }).withResponse();
    expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    expect(data.choices[0].message.content).toContain(`[conf-${family.provider}]`);
  });

  it('ends a stream with an error event and no [DONE] when the provider connection breaks', async () => {
    fam().mock.script({ path: family.chatPath(MODEL, true), breakAfter: 2 });
    const res = await gw.post('/v1/chat/completions', config(), { model: MODEL, messages: MESSAGES, stream: true });
    const frames = sseFrames(await res.text());
    expect(frames.some((f) => f.data === '[DONE]')).toBe(false);
    expect(frames.at(-1)!.event).toBe('error');
  });

  it('aborts the provider request when the client goes away mid-stream', async () => {
    const mock = fam().mock;
    mock.script({ path: family.chatPath(MODEL, true), frameDelayMs: 300 });
    const controller = new AbortController();
    const res = await gw.post('/v1/chat/completions', config(), { model: MODEL, messages: MESSAGES, stream: true }, {}, controller.signal);
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    const seen = mock.requests.filter((r) => r.path === family.chatPath(MODEL, true)).at(-1)!;
    expect(await seen.outcome).toBe('client-closed');
  });

  it.runIf(family.tools)('turns a tool call and its answer into the family\'s format and back', async () => {
    const client = gw.client(config());
    const tools = [{ type: 'function' as const, function: { name: 'lookup', description: 'Looks a thing up', parameters: { type: 'object', properties: { query: { type: 'string' } } } } }];
    const first = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'find rivers' }], tools });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    const call = first.choices[0].message.tool_calls![0] as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe('lookup');
    expect(JSON.parse(call.function.arguments)).toEqual({ query: 'find rivers' });
    const second = await client.chat.completions.create({
      model: MODEL,
      tools,
      messages: [{ role: 'user', content: 'find rivers' }, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'Nile' }],
    });
    expect(second.choices[0].message.content).toContain('tool said');
    expect(second.choices[0].message.content).toContain('Nile');

    const stream = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'find lakes' }], tools, stream: true });
    let args = '';
    let name = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta.tool_calls?.[0];
      if (delta?.function?.name) name = delta.function.name;
      args += delta?.function?.arguments ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(name).toBe('lookup');
    expect(JSON.parse(args)).toEqual({ query: 'find lakes' });
    expect(finish).toBe('tool_calls');
  });
});
