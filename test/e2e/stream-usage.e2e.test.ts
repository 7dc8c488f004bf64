// A vendor-shaped stream whose client did not ask for usage (the vendor SDK's default) is logged with
// the provider's own usage, not an estimate, where the provider takes stream_options.include_usage
// (schema/providers.json asks_stream_usage): the gateway asks for the usage chunk and keeps it, and
// the `usage: null` members it brings, out of the client's stream. Not for the vendor at a custom
// host (any server), nor under strict vendor compliance; a client that asked gets its chunk as sent.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { startCloudaMock, CLOUDA_MOCK_KEY } from '../mocks/clouda/index.ts';
import type { MockServer } from '../mocks/http/mock-server.ts';
import { until } from '../jobs/harness.ts';
import { serveConfigs, type ServedConfigs } from './serve-in-process.ts';

const GATEWAY_KEY = 'gw-stream-usage-e2e';
const MODEL = 'vendor-chat-1';

let served: ServedConfigs;
let mock: VendorMock;
let clouda: MockServer;

beforeAll(async () => {
  mock = await startVendorMock({ label: 'stream-usage' });
  clouda = await startCloudaMock({ label: 'stream-usage-clouda', deployments: { chat: MODEL } });
  // The vendor at "its own" base URL: the mock, as GATEWAY_VENDOR_BASE_URL says (read when the gateway builds its providers).
  const before = process.env.GATEWAY_VENDOR_BASE_URL;
  process.env.GATEWAY_VENDOR_BASE_URL = mock.baseURL;
  try {
    served = await serveConfigs('stream-usage', GATEWAY_KEY, {
      vllm: { provider: 'vllm', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL },
      groq: { provider: 'groq', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL },
      own: { provider: 'openai', api_key: VENDOR_MOCK_KEY },
      elsewhere: { provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL },
      strict: { provider: 'vllm', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL, strict_vendor_compliance: true },
      cached: { provider: 'vllm', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL, cache: { mode: 'simple' } },
      'clouda-new': { provider: 'clouda', api_key: CLOUDA_MOCK_KEY, custom_host: `${clouda.url}/openai`, deployment_id: 'chat', api_version: '2024-10-21' },
      'clouda-old': { provider: 'clouda', api_key: CLOUDA_MOCK_KEY, custom_host: `${clouda.url}/openai`, deployment_id: 'chat', api_version: '2024-06-01' },
    });
  } finally {
    if (before === undefined) delete process.env.GATEWAY_VENDOR_BASE_URL;
    else process.env.GATEWAY_VENDOR_BASE_URL = before;
  }
});

afterAll(async () => {
  await served?.close();
  await mock?.close();
  await clouda?.close();
});

function sdk(config: string, trace: string): OpenAI {
  return new OpenAI({
    baseURL: `${served.gateway.url}/v1`, apiKey: 'unused', maxRetries: 0,
    defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': config, 'x-gateway-trace-id': trace },
  });
}

async function logged(trace: string): Promise<any> {
  const read = async () => (await (await fetch(`${served.gateway.url}/v1/logs?trace_id=${trace}`, { headers: { 'x-gateway-api-key': GATEWAY_KEY } })).json() as any).data as any[];
  return (await until(read, (records) => records.length === 1, 10_000, `the record of ${trace}`))[0];
}

/** What the mock received for the request with this question. */
function sent(question: string, from: { requests: { body: string; json?: unknown }[] } = mock): Record<string, unknown> {
  const found = from.requests.filter((r) => r.body.includes(question));
  expect(found).toHaveLength(1);
  return found[0].json as Record<string, unknown>;
}

/** The provider's usage for the question, from the same request unstreamed. */
async function unstreamedUsage(question: string): Promise<OpenAI.CompletionUsage> {
  const answer = await sdk('elsewhere', `json-${question}`).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: question }] });
  return answer.usage!;
}

describe('a stream whose client asked for no usage', () => {
  for (const config of ['vllm', 'groq', 'own'] as const) {
    it(`${config}: the provider is asked for the usage chunk, the client never sees it, and the log records the provider's count`, async () => {
      const question = `how long is a ${config} piece of string`;
      const chunks: OpenAI.ChatCompletionChunk[] = [];
      let text = '';
      for await (const chunk of await sdk(config, `stream-${config}`).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: question }], stream: true })) {
        chunks.push(chunk);
        text += chunk.choices[0]?.delta.content ?? '';
      }
      expect(sent(question).stream_options).toEqual({ include_usage: true });
      // The chunks as a client that did not ask gets them: each has a choice, none a usage member.
      expect(chunks.length).toBeGreaterThan(2);
      for (const chunk of chunks) {
        expect(chunk.choices.length).toBe(1);
        expect('usage' in chunk).toBe(false);
      }
      expect(text.length).toBeGreaterThan(0);
      const usage = await unstreamedUsage(question);
      const record = await logged(`stream-${config}`);
      expect(record.usage).toMatchObject({ input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens, total_tokens: usage.total_tokens, estimated: false });
    });
  }

  it('legacy completions: the same', async () => {
    const prompt = 'say something about completions';
    const pieces: OpenAI.Completion[] = [];
    for await (const piece of await sdk('vllm', 'completions').completions.create({ model: 'vendor-instruct-1', prompt, stream: true })) pieces.push(piece);
    expect(sent(prompt).stream_options).toEqual({ include_usage: true });
    for (const piece of pieces) {
      expect(piece.choices.length).toBe(1);
      expect('usage' in piece).toBe(false);
    }
    const record = await logged('completions');
    expect(record.usage.estimated).toBe(false);
    expect(record.usage.input_tokens).toBeGreaterThan(0);
    expect(record.usage.output_tokens).toBe(pieces.length - 1);
  });

  it('other stream options are kept beside the one the gateway adds', async () => {
    const question = 'keep my other stream options';
    const body = { model: MODEL, messages: [{ role: 'user', content: question }], stream: true, stream_options: { include_usage: false, include_obfuscation: false } };
    const response = await fetch(`${served.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'vllm', 'x-gateway-trace-id': 'options' },
      body: JSON.stringify(body),
    });
    const stream = await response.text();
    expect(sent(question).stream_options).toEqual({ include_usage: true, include_obfuscation: false });
    expect(stream).not.toContain('"usage"');
    expect(stream.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect((await logged('options')).usage.estimated).toBe(false);
  });

  for (const config of ['elsewhere', 'strict'] as const) {
    it(`${config}: the request goes as the client sent it, and the log estimates`, async () => {
      const question = `leave this ${config} request alone`;
      const chunks: OpenAI.ChatCompletionChunk[] = [];
      for await (const chunk of await sdk(config, `as-sent-${config}`).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: question }], stream: true })) chunks.push(chunk);
      expect(sent(question).stream_options).toBeUndefined();
      expect(chunks.length).toBeGreaterThan(2);
      expect((await logged(`as-sent-${config}`)).usage.estimated).toBe(true);
    });
  }
});

describe('a stream whose client asked for usage', () => {
  it('gets the usage chunk and the null usage members, with the request sent as it came', async () => {
    const question = 'I want my usage';
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of await sdk('vllm', 'asked').chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: question }], stream: true, stream_options: { include_usage: true } })) chunks.push(chunk);
    expect(sent(question).stream_options).toEqual({ include_usage: true });
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    const record = await logged('asked');
    expect(record.usage).toMatchObject({ input_tokens: last.usage!.prompt_tokens, output_tokens: last.usage!.completion_tokens, estimated: false });
  });
});

describe('a cached stream', () => {
  it('a hit of a stream stored without its usage chunk is logged with the usage the provider reported for it, not an estimate', async () => {
    const question = 'cache this streamed answer';
    const ask = async (trace: string): Promise<string> => {
      const response = await fetch(`${served.gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'cached', 'x-gateway-trace-id': trace },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: question }], stream: true }),
      });
      expect(response.status).toBe(200);
      await response.text();
      return response.headers.get('x-gateway-cache-status')!;
    };
    expect(await ask('cached-miss')).toBe('MISS');
    const miss = await logged('cached-miss');
    expect(miss.usage.estimated).toBe(false);
    // The entry is stored once the stream completed; the next request hits it.
    await until(async () => ask(`cached-try-${Date.now()}`), (status) => status === 'HIT', 5_000, 'a cache hit');
    expect(await ask('cached-hit')).toBe('HIT');
    const hit = await logged('cached-hit');
    expect(hit.usage).toEqual(miss.usage);
    expect(hit.cost_usd).toBe(miss.cost_usd === null ? null : 0);
    expect(sent(question).stream_options).toEqual({ include_usage: true });
  });
});

describe('cloud A', () => {
  it('a resource deployment on an api-version that takes stream_options is asked for the usage chunk, which the client never sees', async () => {
    const question = 'how does cloud A count';
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of await sdk('clouda-new', 'clouda-new').chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: question }], stream: true })) chunks.push(chunk);
    expect(sent(question, clouda).stream_options).toEqual({ include_usage: true });
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.choices.length).toBe(1);
      expect('usage' in chunk).toBe(false);
    }
    const record = await logged('clouda-new');
    expect(record.usage.estimated).toBe(false);
    expect(record.usage.output_tokens).toBe(chunks.length - 2);
  });

  it('an earlier api-version, which refuses the option, gets the request as sent, and the log estimates', async () => {
    const question = 'how does old cloud A count';
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of await sdk('clouda-old', 'clouda-old').chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: question }], stream: true })) chunks.push(chunk);
    expect(sent(question, clouda).stream_options).toBeUndefined();
    expect(chunks.length).toBeGreaterThan(2);
    expect((await logged('clouda-old')).usage.estimated).toBe(true);
  });
});
