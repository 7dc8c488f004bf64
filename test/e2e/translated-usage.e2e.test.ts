// Providers' prompt caches through translated families: a vendor-shaped request marks a breakpoint
// with cache_control, the messages API gets it on the block and cloud C as a cachePoint after it;
// the provider's cache reads come back as the vendor's prompt_tokens_details.cached_tokens (prompt
// tokens counting every input token), streamed and not, and the log prices them at the catalog's
// cached-input price. Cloud B has no breakpoints: the mark is dropped, its implicit cache reported.
// And a translated stream whose client asked for no usage chunk is logged with the usage its
// provider reported, not an estimate.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelCatalog } from '../../runtime/telemetry/model-catalog.ts';
import { startCloudbMock, CLOUDB_PROJECT, CLOUDB_REGION, type CloudbMock } from '../mocks/cloudb/index.ts';
import { startCloudcMock, CLOUDC_ACCESS_KEY_ID, CLOUDC_REGION, CLOUDC_SECRET_ACCESS_KEY } from '../mocks/cloudc/index.ts';
import type { MockServer } from '../mocks/http/mock-server.ts';
import { startMessagesMock, MESSAGES_MOCK_KEY } from '../mocks/messages/index.ts';
import { until } from '../jobs/harness.ts';
import { EventStreamDecoder } from '../../runtime/providers/cloudc/event-stream.ts';
import { serveConfigs, type ServedConfigs } from './serve-in-process.ts';

const GATEWAY_KEY = 'gw-prompt-caching-e2e';
/** Models the built-in catalog prices with a cached-input price, one per family. */
const MODELS = { messages: 'claude-sonnet-4-0', cloudc: 'anthropic.claude-3-7-sonnet-20250219-v1:0', cloudb: 'gemini-2.0-flash' } as const;
type Family = keyof typeof MODELS;
const SYSTEM = 'You are a careful assistant who answers in one short sentence. '.repeat(40);

let served: ServedConfigs;
let messages: MockServer;
let cloudb: CloudbMock;
let cloudc: MockServer;
const catalog = ModelCatalog.load();

beforeAll(async () => {
  [messages, cloudb, cloudc] = await Promise.all([startMessagesMock({ label: 'messages' }), startCloudbMock({ label: 'cloudb' }), startCloudcMock({ label: 'cloudc' })]);
  served = await serveConfigs('translated-usage', GATEWAY_KEY, {
    messages: { provider: 'anthropic', api_key: MESSAGES_MOCK_KEY, custom_host: messages.baseURL },
    cloudc: { provider: 'cloudc', custom_host: cloudc.url, cloudc_region: CLOUDC_REGION, cloudc_access_key_id: CLOUDC_ACCESS_KEY_ID, cloudc_secret_access_key: CLOUDC_SECRET_ACCESS_KEY },
    cloudb: { provider: 'cloudb', custom_host: `${cloudb.url}/v1`, cloudb_region: CLOUDB_REGION, cloudb_service_account_json: cloudb.serviceAccount },
    'cloudb-strict': { provider: 'cloudb', custom_host: `${cloudb.url}/v1`, cloudb_region: CLOUDB_REGION, cloudb_service_account_json: cloudb.serviceAccount, strict_vendor_compliance: true },
  });
});

afterAll(async () => {
  await served?.close();
  await Promise.all([messages, cloudb, cloudc].map((m) => m?.close()));
});

function sdk(family: Family | 'cloudb-strict', trace: string): OpenAI {
  return new OpenAI({
    baseURL: `${served.gateway.url}/v1`, apiKey: 'unused', maxRetries: 0,
    defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': family, 'x-gateway-trace-id': trace },
  });
}

/** A system prompt whose text part carries a breakpoint, then the question. */
function marked(question: string): OpenAI.ChatCompletionMessageParam[] {
  const system = [{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral' } }] as unknown as OpenAI.ChatCompletionContentPartText[];
  return [{ role: 'system', content: system }, { role: 'user', content: question }];
}

async function ask(family: Family, trace: string, question: string, stream: boolean): Promise<OpenAI.CompletionUsage> {
  const client = sdk(family, trace);
  if (!stream) return (await client.chat.completions.create({ model: MODELS[family], messages: marked(question) })).usage!;
  let usage: OpenAI.CompletionUsage | null = null;
  for await (const chunk of await client.chat.completions.create({ model: MODELS[family], messages: marked(question), stream: true, stream_options: { include_usage: true } })) usage = chunk.usage ?? usage;
  return usage!;
}

async function logged(trace: string): Promise<any> {
  const read = async () => (await (await fetch(`${served.gateway.url}/v1/logs?trace_id=${trace}`, { headers: { 'x-gateway-api-key': GATEWAY_KEY } })).json() as any).data as any[];
  return (await until(read, (records) => records.length === 1, 10_000, `the record of ${trace}`))[0];
}

describe('prompt caching through the translated families', () => {
  for (const family of ['messages', 'cloudc', 'cloudb'] as const) {
    for (const stream of [false, true]) {
      it(`${family}${stream ? ', streamed' : ''}: the second request reads the system prompt from the cache, reported and priced as cached input`, async () => {
        const tag = `${family}-${stream ? 'stream' : 'json'}`;
        // The question differs per case so each case's conversation starts uncached (the system prompt
        // is shared: for cloud B the implicit cache keys on the whole prefix, for the others the mark ends at the system prompt).
        const first = await ask(family, `${tag}-1`, `first ${tag}`, stream);
        const second = await ask(family, `${tag}-2`, `second ${tag}`, stream);
        const cachedBefore = first.prompt_tokens_details?.cached_tokens ?? 0;
        const cached = second.prompt_tokens_details?.cached_tokens ?? 0;
        expect(cached).toBeGreaterThan(200);
        expect(second.prompt_tokens).toBeGreaterThan(cached);
        expect(second.total_tokens).toBe(second.prompt_tokens + second.completion_tokens);
        if (family !== 'cloudb' && !stream) expect(cachedBefore).toBe(0);
        const record = await logged(`${tag}-2`);
        expect(record.usage).toMatchObject({ input_tokens: second.prompt_tokens, cached_input_tokens: cached, output_tokens: second.completion_tokens, estimated: false });
        const pricing = catalog.find(MODELS[family])!.pricing!;
        const expected = ((second.prompt_tokens - cached) * pricing.input_per_million + cached * pricing.cached_input_per_million! + second.completion_tokens * pricing.output_per_million) / 1e6;
        expect(record.cost_usd).toBeCloseTo(expected, 12);
        expect(record.cost_usd).toBeLessThan((second.prompt_tokens * pricing.input_per_million + second.completion_tokens * pricing.output_per_million) / 1e6);
      });
    }
  }

  describe('the messages API\'s own /v1/messages, passed through as it is', () => {
    const call = (trace: string, question: string, stream: boolean) => fetch(`${served.gateway.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'messages', 'x-gateway-trace-id': trace, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODELS.messages, max_tokens: 64, stream, system: [{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral' } }], messages: [{ role: 'user', content: question }] }),
    });
    /** The API's usage as the answer carries it: the JSON's, or message_start's with message_delta's output. */
    async function usageOf(res: Response, stream: boolean): Promise<{ input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number }> {
      if (!stream) return ((await res.json()) as any).usage;
      const events = (await res.text()).split('\n\n').filter((e) => e.includes('data: ')).map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)));
      return { ...events.find((e) => e.type === 'message_start').message.usage, output_tokens: events.find((e) => e.type === 'message_delta').usage.output_tokens };
    }

    for (const stream of [false, true]) {
      it(`${stream ? 'streamed' : 'JSON'}: logged with its usage (cache reads and writes counted as input), its model and its cost, as a translated chat is`, async () => {
        const tag = `passthrough-messages-${stream}`;
        await usageOf(await call(`${tag}-1`, `first ${tag}`, stream), stream);
        const res = await call(`${tag}-2`, `second ${tag}`, stream);
        expect(res.status).toBe(200);
        const usage = await usageOf(res, stream);
        expect(usage.cache_read_input_tokens).toBeGreaterThan(200);
        const input = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
        const record = await logged(`${tag}-2`);
        expect(record).toMatchObject({ route_kind: 'passthrough', provider: 'anthropic', model_requested: MODELS.messages, model_answered: MODELS.messages, stream });
        expect(record.usage).toMatchObject({ input_tokens: input, cached_input_tokens: usage.cache_read_input_tokens, output_tokens: usage.output_tokens, estimated: false });
        const pricing = catalog.find(MODELS.messages)!.pricing!;
        const expected = ((input - usage.cache_read_input_tokens) * pricing.input_per_million + usage.cache_read_input_tokens * pricing.cached_input_per_million! + usage.output_tokens * pricing.output_per_million) / 1e6;
        expect(record.cost_usd).toBeCloseTo(expected, 12);
      });
    }

    it('a stream cut before its output was counted: the input message_start counted, the output estimated from the text that came', async () => {
      messages.script({ path: '/v1/messages', breakAfter: 4 });
      const res = await call('passthrough-messages-cut', 'cut me short please', true);
      await res.text().catch(() => '');
      const record = await logged('passthrough-messages-cut');
      expect(record.usage.estimated).toBe(true);
      expect(record.usage.input_tokens).toBeGreaterThan(200);
      expect(record.usage.output_tokens).toBeGreaterThan(0);
      expect(record.cost_usd).toBeGreaterThan(0);
    });

    it(':predict on a text embedding model (its embeddings): logged with its predictions\' token counts summed as input, and the model its path names', async () => {
      const path = `/v1/projects/${CLOUDB_PROJECT}/locations/${CLOUDB_REGION}/publishers/google/models/text-embedding-mock:predict`;
      const res = await fetch(`${served.gateway.url}${path}`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'cloudb', 'x-gateway-trace-id': 'passthrough-cloudb-predict', 'content-type': 'application/json' },
        body: JSON.stringify({ instances: [{ content: 'one two three' }, { content: 'four five six seven eight' }] }),
      });
      expect(res.status).toBe(200);
      const predictions = ((await res.json()) as any).predictions as Array<{ embeddings: { statistics: { token_count: number } } }>;
      const tokens = predictions.reduce((n, p) => n + p.embeddings.statistics.token_count, 0);
      expect(tokens).toBeGreaterThan(0);
      const record = await logged('passthrough-cloudb-predict');
      expect(record).toMatchObject({ route_kind: 'passthrough', provider: 'cloudb', model_requested: 'text-embedding-mock', model_answered: 'text-embedding-mock', stream: false });
      expect(record.usage).toMatchObject({ input_tokens: tokens, output_tokens: 0, total_tokens: tokens, estimated: false });
      // The catalog prices gemini-embedding-001 by its tokens; a model it does not list is not priced.
      expect(record.cost_usd).toBeNull();
      const priced = await fetch(`${served.gateway.url}${path.replace('text-embedding-mock', 'gemini-embedding-001')}`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'cloudb', 'x-gateway-trace-id': 'passthrough-cloudb-gemini-embedding', 'content-type': 'application/json' },
        body: JSON.stringify({ instances: [{ content: 'one two three four' }] }),
      });
      const counted = (((await priced.json()) as any).predictions[0].embeddings.statistics.token_count) as number;
      expect((await logged('passthrough-cloudb-gemini-embedding')).cost_usd).toBeCloseTo((counted * 0.15) / 1_000_000, 12);
      // The older models bill the characters the answer's metadata counts (white space excluded).
      const byCharacters = await fetch(`${served.gateway.url}${path.replace('text-embedding-mock', 'text-embedding-005')}`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'cloudb', 'x-gateway-trace-id': 'passthrough-cloudb-text-embedding-005', 'content-type': 'application/json' },
        body: JSON.stringify({ instances: [{ content: 'one two three four' }, { content: 'héllo wörld' }] }),
      });
      const characters = (((await byCharacters.json()) as any).metadata.billableCharacterCount) as number;
      expect(characters).toBe(15 + 10);
      const charged = await logged('passthrough-cloudb-text-embedding-005');
      expect(charged.usage).toMatchObject({ input_characters: characters, estimated: false });
      expect(charged.usage.input_tokens).toBeGreaterThan(0);
      expect(charged.cost_usd).toBeCloseTo((characters * 0.025) / 1_000_000, 15);
      // Another model's :predict (a video model's) answers in its own shape: not metered.
      const video = await fetch(`${served.gateway.url}${path.replace('text-embedding-mock', 'veo-mock')}`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'cloudb', 'x-gateway-trace-id': 'passthrough-cloudb-veo', 'content-type': 'application/json' },
        body: JSON.stringify({ instances: [{ prompt: 'a lighthouse' }] }),
      });
      await video.arrayBuffer();
      expect(await logged('passthrough-cloudb-veo')).toMatchObject({ model_requested: 'veo-mock', usage: null });
    });

    it(':predict on an Imagen model (its image generation): logged with the images it answered, priced per image; a withheld image is not one', async () => {
      const imagen = (trace: string, prompt: string, parameters: object) => fetch(`${served.gateway.url}/v1/projects/${CLOUDB_PROJECT}/locations/${CLOUDB_REGION}/publishers/google/models/imagen-3.0-generate-002:predict`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'cloudb', 'x-gateway-trace-id': trace, 'content-type': 'application/json' },
        body: JSON.stringify({ instances: [{ prompt }], parameters }),
      });
      const drawn = await imagen('passthrough-cloudb-imagen', 'a lighthouse at dusk', { sampleCount: 3 });
      expect(((await drawn.json()) as any).predictions.filter((p: any) => p.bytesBase64Encoded !== undefined)).toHaveLength(3);
      const record = await logged('passthrough-cloudb-imagen');
      expect(record).toMatchObject({ route_kind: 'passthrough', provider: 'cloudb', model_requested: 'imagen-3.0-generate-002', model_answered: 'imagen-3.0-generate-002' });
      expect(record.usage).toMatchObject({ input_tokens: 0, output_tokens: 0, images: 3, estimated: false });
      expect(record.cost_usd).toBeCloseTo(3 * 0.04, 10);
      // Stored: each image a storage URI. Withheld by the service's filter: none billed.
      await (await imagen('passthrough-cloudb-imagen-stored', 'a lighthouse', { sampleCount: 2, storageUri: 'gs://bucket/out' })).arrayBuffer();
      expect((await logged('passthrough-cloudb-imagen-stored')).usage).toMatchObject({ images: 2 });
      await (await imagen('passthrough-cloudb-imagen-withheld', 'something forbidden', { sampleCount: 2 })).arrayBuffer();
      const withheld = await logged('passthrough-cloudb-imagen-withheld');
      expect(withheld.usage).toMatchObject({ images: 0 });
      expect(withheld.cost_usd).toBe(0);
    });

    it('its token count and other paths stay unmetered: they generate nothing', async () => {
      const res = await fetch(`${served.gateway.url}/v1/models`, { headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'messages', 'x-gateway-trace-id': 'passthrough-messages-models' } });
      await res.arrayBuffer();
      expect((await logged('passthrough-messages-models')).usage).toBeNull();
    });
  });

  describe('cloud B\'s own generateContent, passed through as it is', () => {
    const MODEL_PATH = `/v1/projects/${CLOUDB_PROJECT}/locations/${CLOUDB_REGION}/publishers/google/models/${MODELS.cloudb}`;
    const call = (trace: string, verb: string, question: string) => fetch(`${served.gateway.url}${MODEL_PATH}:${verb}`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'cloudb', 'x-gateway-trace-id': trace, 'content-type': 'application/json' },
      body: JSON.stringify({ systemInstruction: { parts: [{ text: SYSTEM }] }, contents: [{ role: 'user', parts: [{ text: question }] }] }),
    });
    type UsageMetadata = { promptTokenCount: number; cachedContentTokenCount?: number; candidatesTokenCount: number };
    /** The usageMetadata the answer carries: the JSON's, the last event's, or the JSON array's last answer's. */
    async function usageOf(res: Response, verb: string): Promise<UsageMetadata> {
      if (!verb.includes('alt=sse')) {
        const body = (await res.json()) as any;
        return (Array.isArray(body) ? body.at(-1) : body).usageMetadata;
      }
      const events = (await res.text()).split('\r\n\r\n').filter((e) => e.startsWith('data: ')).map((e) => JSON.parse(e.slice(6)));
      return events.at(-1).usageMetadata;
    }

    for (const verb of ['generateContent', 'streamGenerateContent?alt=sse', 'streamGenerateContent']) {
      it(`${verb}: logged with its usage (implicit cache reads as input), the model its path names, and its cost, as a translated chat is`, async () => {
        const tag = `passthrough-cloudb-${verb}`;
        await usageOf(await call(`${tag}-1`, verb, `first ${tag}`), verb);
        const res = await call(`${tag}-2`, verb, `second ${tag}`);
        expect(res.status).toBe(200);
        const usage = await usageOf(res, verb);
        const cached = usage.cachedContentTokenCount ?? 0;
        expect(cached).toBeGreaterThan(200);
        const record = await logged(`${tag}-2`);
        expect(record).toMatchObject({ route_kind: 'passthrough', provider: 'cloudb', model_requested: MODELS.cloudb, model_answered: MODELS.cloudb, stream: verb.includes('alt=sse') });
        expect(record.usage).toMatchObject({ input_tokens: usage.promptTokenCount, cached_input_tokens: cached, output_tokens: usage.candidatesTokenCount, estimated: false });
        const pricing = catalog.find(MODELS.cloudb)!.pricing!;
        const expected = ((usage.promptTokenCount - cached) * pricing.input_per_million + cached * pricing.cached_input_per_million! + usage.candidatesTokenCount * pricing.output_per_million) / 1e6;
        expect(record.cost_usd).toBeCloseTo(expected, 12);
      });
    }

    it('a stream cut before a candidate finished is estimated: the request\'s input and the text that came', async () => {
      cloudb.script({ path: `${MODEL_PATH}:streamGenerateContent`, breakAfter: 1 });
      const res = await call('passthrough-cloudb-cut', 'streamGenerateContent?alt=sse', 'cut me short please');
      await res.text().catch(() => '');
      const record = await logged('passthrough-cloudb-cut');
      expect(record.usage.estimated).toBe(true);
      expect(record.usage.input_tokens).toBeGreaterThan(200);
      expect(record.cost_usd).toBeGreaterThan(0);
    });

    it('its token count and other paths stay unmetered: they generate nothing', async () => {
      const res = await call('passthrough-cloudb-count', 'countTokens', 'how many');
      await res.arrayBuffer();
      const record = await logged('passthrough-cloudb-count');
      expect(record).toMatchObject({ route_kind: 'passthrough', provider: 'cloudb', usage: null });
    });
  });

  describe('cloud C\'s own converse and a Claude model\'s invoke, passed through as they are (signed by the gateway)', () => {
    const call = (trace: string, verb: string, question: string) => fetch(`${served.gateway.url}/v1/model/${encodeURIComponent(MODELS.cloudc)}/${verb}`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'cloudc', 'x-gateway-trace-id': trace, 'content-type': 'application/json' },
      body: JSON.stringify({ system: [{ text: SYSTEM }, { cachePoint: { type: 'default' } }], messages: [{ role: 'user', content: [{ text: question }] }] }),
    });
    type ConverseUsage = { inputTokens: number; outputTokens: number; cacheReadInputTokens?: number; cacheWriteInputTokens?: number };
    /** The usage the answer carries: the JSON's, or the event stream's metadata event's. */
    async function usageOf(res: Response, verb: string): Promise<ConverseUsage> {
      if (verb === 'converse') return ((await res.json()) as any).usage;
      const messages = new EventStreamDecoder().push(Buffer.from(await res.arrayBuffer()));
      const metadata = messages.find((m) => m.headers[':event-type'] === 'metadata')!;
      return JSON.parse(metadata.payload.toString()).usage;
    }

    for (const verb of ['converse', 'converse-stream']) {
      it(`${verb}: logged with its usage (cache reads and writes counted as input), the model its path names (as requested and as answered: a converse answer names none), and its cost, as a translated chat is`, async () => {
        const tag = `passthrough-cloudc-${verb}`;
        await usageOf(await call(`${tag}-1`, verb, `first ${tag}`), verb);
        const res = await call(`${tag}-2`, verb, `second ${tag}`);
        expect(res.status).toBe(200);
        const usage = await usageOf(res, verb);
        const read = usage.cacheReadInputTokens ?? 0;
        expect(read).toBeGreaterThan(200);
        const input = usage.inputTokens + read + (usage.cacheWriteInputTokens ?? 0);
        const record = await logged(`${tag}-2`);
        expect(record).toMatchObject({ route_kind: 'passthrough', provider: 'cloudc', model_requested: MODELS.cloudc, model_answered: MODELS.cloudc, stream: verb === 'converse-stream' });
        expect(record.usage).toMatchObject({ input_tokens: input, cached_input_tokens: read, output_tokens: usage.outputTokens, estimated: false });
        const pricing = catalog.find(MODELS.cloudc)!.pricing!;
        const expected = ((input - read) * pricing.input_per_million + read * pricing.cached_input_per_million! + usage.outputTokens * pricing.output_per_million) / 1e6;
        expect(record.cost_usd).toBeCloseTo(expected, 12);
      });
    }

    for (const verb of ['invoke', 'invoke-with-response-stream']) {
      it(`a Claude model's ${verb} (the messages API's body and answer): logged with the usage and model its answer reports, and its cost`, async () => {
        const tag = `passthrough-cloudc-${verb}`;
        const res = await fetch(`${served.gateway.url}/v1/model/${encodeURIComponent(MODELS.cloudc)}/${verb}`, {
          method: 'POST',
          headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'cloudc', 'x-gateway-trace-id': tag, 'content-type': 'application/json' },
          body: JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, system: 'Answer briefly.', messages: [{ role: 'user', content: 'how are you today' }] }),
        });
        expect(res.status).toBe(200);
        let usage: { input_tokens: number; output_tokens: number };
        let model: string;
        if (verb === 'invoke') ({ usage, model } = (await res.json()) as { usage: typeof usage; model: string });
        else {
          const events = new EventStreamDecoder().push(Buffer.from(await res.arrayBuffer())).map((m) => JSON.parse(Buffer.from(JSON.parse(m.payload.toString()).bytes, 'base64').toString()));
          const start = events.find((e) => e.type === 'message_start').message;
          ({ model } = start);
          usage = { input_tokens: start.usage.input_tokens, output_tokens: events.find((e) => e.type === 'message_delta').usage.output_tokens };
        }
        const record = await logged(tag);
        expect(record).toMatchObject({ route_kind: 'passthrough', provider: 'cloudc', model_requested: MODELS.cloudc, model_answered: model, stream: verb !== 'invoke' });
        expect(record.usage).toMatchObject({ input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, estimated: false });
        const pricing = catalog.find(model)!.pricing!;
        expect(record.cost_usd).toBeCloseTo((usage.input_tokens * pricing.input_per_million + usage.output_tokens * pricing.output_per_million) / 1e6, 12);
      });
    }

    const invokeTitan = (trace: string, verb: string) => fetch(`${served.gateway.url}/v1/model/amazon.titan-text-express-v1/${verb}`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'cloudc', 'x-gateway-trace-id': trace, 'content-type': 'application/json' },
      body: JSON.stringify({ inputText: 'name three rivers of europe', textGenerationConfig: { maxTokenCount: 64 } }),
    });

    for (const verb of ['invoke', 'invoke-with-response-stream']) {
      it(`another model's ${verb} (its vendor's own format): logged with the counts the service reports beside it, and the model its path names`, async () => {
        const tag = `passthrough-cloudc-titan-${verb}`;
        const res = await invokeTitan(tag, verb);
        expect(res.status).toBe(200);
        let reported: { input: number; output: number };
        if (verb === 'invoke') {
          await res.arrayBuffer();
          reported = { input: Number(res.headers.get('x-amzn-bedrock-input-token-count')), output: Number(res.headers.get('x-amzn-bedrock-output-token-count')) };
        } else {
          const chunks = new EventStreamDecoder().push(Buffer.from(await res.arrayBuffer())).map((m) => JSON.parse(Buffer.from(JSON.parse(m.payload.toString()).bytes, 'base64').toString()));
          const metrics = chunks.at(-1)['amazon-bedrock-invocationMetrics'];
          reported = { input: metrics.inputTokenCount, output: metrics.outputTokenCount };
        }
        expect(reported.input).toBeGreaterThan(0);
        const record = await logged(tag);
        expect(record).toMatchObject({ route_kind: 'passthrough', provider: 'cloudc', model_requested: 'amazon.titan-text-express-v1', model_answered: 'amazon.titan-text-express-v1', stream: verb !== 'invoke' });
        expect(record.usage).toMatchObject({ input_tokens: reported.input, output_tokens: reported.output, estimated: false });
      });
    }

    it('another model\'s invoke stream cut before its last chunk is estimated: the request\'s input and the text its chunks carried', async () => {
      cloudc.script({ path: '/model/amazon.titan-text-express-v1/invoke-with-response-stream', breakAfter: 2 });
      const res = await invokeTitan('passthrough-cloudc-titan-cut', 'invoke-with-response-stream');
      await res.arrayBuffer().catch(() => null);
      const record = await logged('passthrough-cloudc-titan-cut');
      expect(record.usage).toMatchObject({ estimated: true });
      expect(record.usage.input_tokens).toBeGreaterThan(0);
      expect(record.usage.output_tokens).toBeGreaterThan(0);
    });

    it('another model\'s invoke whose answer reports no counts (some vendors\' models): no usage', async () => {
      const res = await fetch(`${served.gateway.url}/v1/model/vendorx.chat-mock-v1%3A0/invoke`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'cloudc', 'x-gateway-trace-id': 'passthrough-cloudc-other-invoke', 'content-type': 'application/json' },
        body: JSON.stringify({ inputText: 'hi' }),
      });
      await res.arrayBuffer();
      expect(await logged('passthrough-cloudc-other-invoke')).toMatchObject({ model_requested: 'vendorx.chat-mock-v1:0', usage: null });
    });

    it('a stream cut before its metadata is estimated: the request\'s input and the text that came', async () => {
      cloudc.script({ path: `/model/${encodeURIComponent(MODELS.cloudc)}/converse-stream`, breakAfter: 3 });
      const res = await call('passthrough-cloudc-cut', 'converse-stream', 'cut me short please');
      await res.arrayBuffer().catch(() => null);
      const record = await logged('passthrough-cloudc-cut');
      expect(record.usage.estimated).toBe(true);
      expect(record.usage.input_tokens).toBeGreaterThan(200);
      expect(record.cost_usd).toBeGreaterThan(0);
    });
  });

  it('sends the mark where each family wants it: on the messages API\'s block, as cloud C\'s cachePoint after it; cloud B gets none', async () => {
    await ask('messages', 'placement-messages', 'where does it go', false);
    expect(messages.requests.at(-1)!.json).toMatchObject({ system: [{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral' } }] });
    await ask('cloudc', 'placement-cloudc', 'where does it go', false);
    expect((cloudc.requests.at(-1)!.json as any).system).toEqual([{ text: SYSTEM }, { cachePoint: { type: 'default' } }]);
    await ask('cloudb', 'placement-cloudb', 'where does it go', false);
    expect(JSON.stringify(cloudb.requests.at(-1)!.json)).not.toMatch(/cache_?[cC]ontrol|cachePoint/);
  });

  // Writes for 5 minutes and for an hour, streamed and not.
  const writes = [
    { family: 'messages', ttl: '1h', stream: false }, { family: 'messages', ttl: '5m', stream: true }, { family: 'messages', ttl: undefined, stream: false },
    { family: 'cloudc', ttl: undefined, stream: false }, { family: 'cloudc', ttl: '5m', stream: true }, { family: 'cloudc', ttl: '1h', stream: true },
  ] as const;
  for (const { family, ttl, stream } of writes) {
    it(`${family}, ${ttl ?? 'no'} TTL${stream ? ', streamed' : ''}: the first request writes the prefix, named as cache_creation_tokens and priced at the cache-write price`, async () => {
      const tag = `write-${family}-${ttl}-${stream}`;
      const mark = ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl };
      const question = [{ role: 'user', content: [{ type: 'text', text: `A fresh long context for ${tag}. `.repeat(30), cache_control: mark }, { type: 'text', text: 'Summarise it.' }] }] as unknown as OpenAI.ChatCompletionMessageParam[];
      const client = sdk(family, `${tag}-1`);
      let usage: OpenAI.CompletionUsage | null = null;
      if (stream) for await (const chunk of await client.chat.completions.create({ model: MODELS[family], messages: question, stream: true, stream_options: { include_usage: true } })) usage = chunk.usage ?? usage;
      else usage = (await client.chat.completions.create({ model: MODELS[family], messages: question })).usage!;
      const details = usage!.prompt_tokens_details as { cached_tokens: number; cache_creation_tokens?: number; cache_creation_1h_tokens?: number };
      expect(details.cached_tokens).toBe(0);
      const written = details.cache_creation_tokens!;
      expect(written).toBeGreaterThan(100);
      expect(usage!.prompt_tokens).toBeGreaterThan(written);
      const hour = ttl === '1h' ? written : 0;
      expect(details.cache_creation_1h_tokens ?? 0).toBe(hour);
      const record = await logged(`${tag}-1`);
      expect(record.usage).toMatchObject({ input_tokens: usage!.prompt_tokens, cached_input_tokens: 0, cache_creation_input_tokens: written, cache_creation_1h_input_tokens: hour, estimated: false });
      const pricing = catalog.find(MODELS[family])!.pricing!;
      const expected = ((usage!.prompt_tokens - written) * pricing.input_per_million + (written - hour) * pricing.cache_creation_input_per_million! + hour * pricing.cache_creation_1h_input_per_million! + usage!.completion_tokens * pricing.output_per_million) / 1e6;
      expect(record.cost_usd).toBeCloseTo(expected, 12);
      expect(record.cost_usd).toBeGreaterThan((usage!.prompt_tokens * pricing.input_per_million + usage!.completion_tokens * pricing.output_per_million) / 1e6);
      const metrics = await (await fetch(`${served.gateway.url}/metrics`)).text();
      expect(metrics).toMatch(new RegExp(`gateway_tokens_total\\{[^}]*model="${MODELS[family].replace(/[.]/g, '\\.')}"[^}]*type="cache_creation"\\} [1-9]`));
      // The second request reads what the first wrote.
      const again = (await sdk(family, `${tag}-2`).chat.completions.create({ model: MODELS[family], messages: question })).usage!;
      expect(again.prompt_tokens).toBe(usage!.prompt_tokens);
      expect(again.prompt_tokens_details?.cached_tokens).toBe(written);
      expect((again.prompt_tokens_details as { cache_creation_tokens?: number }).cache_creation_tokens).toBeUndefined();
    });
  }

  it('refuses a malformed mark with a 400 naming it, before the provider is asked', async () => {
    const before = messages.requests.length;
    const bad = [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'persistent' } }] }] as unknown as OpenAI.ChatCompletionMessageParam[];
    const error = (await sdk('messages', 'bad-mark').chat.completions.create({ model: MODELS.messages, messages: bad }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(400);
    expect(error.error).toMatchObject({ code: 'invalid_request_body', param: '/messages/0/content/0/cache_control/type' });
    expect(messages.requests.length).toBe(before);
  });
});

describe('embeddings translated to cloud B', () => {
  it('name the characters an older model bills beside the tokens, and are priced by them; a model billed by tokens by its tokens', async () => {
    const input = ['one two three four', 'héllo wörld'];
    const answer = await sdk('cloudb', 'embeddings-cloudb-characters').embeddings.create({ model: 'text-embedding-005', input });
    expect(answer.usage).toMatchObject({ prompt_tokens: 6, total_tokens: 6, input_characters: 25 });
    const record = await logged('embeddings-cloudb-characters');
    expect(record.usage).toMatchObject({ input_tokens: 6, input_characters: 25, estimated: false });
    expect(record.cost_usd).toBeCloseTo((25 * 0.025) / 1_000_000, 15);
    await sdk('cloudb', 'embeddings-cloudb-tokens').embeddings.create({ model: 'gemini-embedding-001', input });
    expect((await logged('embeddings-cloudb-tokens')).cost_usd).toBeCloseTo((6 * 0.15) / 1_000_000, 15);
  });

  it('under strict vendor compliance the answer keeps the vendor\'s shape, and a model billed by characters is not priced (never at 0)', async () => {
    const answer = await sdk('cloudb-strict', 'embeddings-cloudb-strict').embeddings.create({ model: 'text-embedding-005', input: 'one two three' });
    expect(answer.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    const record = await logged('embeddings-cloudb-strict');
    expect(record.usage).toMatchObject({ input_tokens: 3, input_characters: 0 });
    expect(record.cost_usd).toBeNull();
  });
});

describe('a translated stream without the usage chunk is logged with the provider\'s usage', () => {
  for (const family of ['messages', 'cloudc', 'cloudb'] as const) {
    it(family, async () => {
      const trace = `no-usage-chunk-${family}`;
      const chunks: OpenAI.ChatCompletionChunk[] = [];
      for await (const chunk of await sdk(family, trace).chat.completions.create({ model: MODELS[family], messages: [{ role: 'user', content: `count these words please ${family}` }], stream: true })) chunks.push(chunk);
      expect(chunks.some((chunk) => chunk.usage)).toBe(false);
      // The same request with the usage chunk asked for: what the provider counts.
      let usage: OpenAI.CompletionUsage | null = null;
      for await (const chunk of await sdk(family, `${trace}-asked`).chat.completions.create({ model: MODELS[family], messages: [{ role: 'user', content: `count these words please ${family}` }], stream: true, stream_options: { include_usage: true } })) usage = chunk.usage ?? usage;
      const record = await logged(trace);
      expect(record.usage).toEqual({
        input_tokens: usage!.prompt_tokens, output_tokens: usage!.completion_tokens, cached_input_tokens: usage!.prompt_tokens_details?.cached_tokens ?? 0,
        cache_creation_input_tokens: 0, cache_creation_1h_input_tokens: 0, audio_input_tokens: 0, audio_output_tokens: 0, cached_audio_input_tokens: 0, image_input_tokens: 0, audio_seconds: 0, images: 0, image_size: null, image_quality: null, input_characters: 0, audio_output_seconds: 0, total_tokens: usage!.total_tokens, estimated: false,
      });
    });
  }
});

