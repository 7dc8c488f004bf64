// An audio model's chat (spoken input, a spoken answer) is priced at the catalog's audio prices for
// its audio tokens (the vendor's prompt_tokens_details.audio_tokens and
// completion_tokens_details.audio_tokens, which are part of prompt and completion tokens), text at
// the text prices: the audio tokens cost 16 times the text ones for the vendor's audio models.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelCatalog } from '../../runtime/telemetry/model-catalog.ts';
import { DEFAULT_MODELS, startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { until } from '../jobs/harness.ts';
import { serveConfigs, type ServedConfigs } from './serve-in-process.ts';

const GATEWAY_KEY = 'gw-audio-usage-e2e';
const MODEL = 'gpt-4o-audio-preview';
const catalog = ModelCatalog.load();

let served: ServedConfigs;
let mock: VendorMock;

beforeAll(async () => {
  mock = await startVendorMock({ label: 'audio-usage', models: [...DEFAULT_MODELS, MODEL] });
  served = await serveConfigs('audio-usage', GATEWAY_KEY, { vendor: { provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL } });
});

afterAll(async () => {
  await served?.close();
  await mock?.close();
});

async function logged(trace: string): Promise<any> {
  const read = async () => (await (await fetch(`${served.gateway.url}/v1/logs?trace_id=${trace}`, { headers: { 'x-gateway-api-key': GATEWAY_KEY } })).json() as any).data as any[];
  return (await until(read, (records) => records.length === 1, 10_000, `the record of ${trace}`))[0];
}

describe('an audio model\'s chat', () => {
  it('logs its audio tokens and prices them at the audio prices, its text at the text prices', async () => {
    const client = new OpenAI({
      baseURL: `${served.gateway.url}/v1`, apiKey: 'unused', maxRetries: 0,
      defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'vendor', 'x-gateway-trace-id': 'spoken' },
    });
    const speech = Buffer.alloc(6_000, 7).toString('base64');
    const answer = await client.chat.completions.create({
      model: MODEL,
      modalities: ['text', 'audio'],
      audio: { voice: 'alloy', format: 'wav' },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is said here?' }, { type: 'input_audio', input_audio: { data: speech, format: 'wav' } }] }],
    });
    expect(answer.choices[0]!.message.audio?.transcript.length).toBeGreaterThan(0);
    const usage = answer.usage!;
    const audioIn = usage.prompt_tokens_details!.audio_tokens!;
    const audioOut = usage.completion_tokens_details!.audio_tokens!;
    expect(audioIn).toBeGreaterThan(100);
    expect(audioOut).toBeGreaterThan(0);
    const record = await logged('spoken');
    expect(record.usage).toMatchObject({ input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens, audio_input_tokens: audioIn, audio_output_tokens: audioOut, estimated: false });
    const pricing = catalog.find(MODEL)!.pricing!;
    const expected = ((usage.prompt_tokens - audioIn) * pricing.input_per_million + audioIn * pricing.audio_input_per_million!
      + (usage.completion_tokens - audioOut) * pricing.output_per_million + audioOut * pricing.audio_output_per_million!) / 1e6;
    expect(record.cost_usd).toBeCloseTo(expected, 12);
    // Priced as text, the same answer would have cost a fraction of that.
    expect(record.cost_usd).toBeGreaterThan(5 * (usage.prompt_tokens * pricing.input_per_million + usage.completion_tokens * pricing.output_per_million) / 1e6);
    const metrics = await (await fetch(`${served.gateway.url}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`gateway_tokens_total\\{[^}]*model="${MODEL}"[^}]*type="audio_input"\\} ${audioIn}\\b`));
    expect(metrics).toMatch(new RegExp(`gateway_tokens_total\\{[^}]*model="${MODEL}"[^}]*type="audio_output"\\} ${audioOut}\\b`));
  });

  it('logs a streamed spoken answer with the audio tokens of its usage chunk, and estimates one without the chunk from its transcript', async () => {
    const stream = async (trace: string, includeUsage: boolean): Promise<{ transcript: string; usage: OpenAI.CompletionUsage | null }> => {
      const client = new OpenAI({
        baseURL: `${served.gateway.url}/v1`, apiKey: 'unused', maxRetries: 0,
        defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'vendor', 'x-gateway-trace-id': trace },
      });
      const chunks = await client.chat.completions.create({
        model: MODEL, stream: true, modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'pcm16' },
        ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
        messages: [{ role: 'user', content: 'Read this sentence aloud please' }],
      });
      let transcript = '';
      let usage: OpenAI.CompletionUsage | null = null;
      for await (const chunk of chunks) {
        transcript += (chunk.choices[0]?.delta as { audio?: { transcript?: string } } | undefined)?.audio?.transcript ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      return { transcript, usage };
    };
    const told = await stream('spoken-stream', true);
    expect(told.transcript).toBe('[audio-usage] Read this sentence aloud please');
    const audioOut = told.usage!.completion_tokens_details!.audio_tokens!;
    expect(audioOut).toBeGreaterThan(0);
    const record = await logged('spoken-stream');
    expect(record.usage).toMatchObject({ output_tokens: told.usage!.completion_tokens, audio_output_tokens: audioOut, estimated: false });
    const pricing = catalog.find(MODEL)!.pricing!;
    const expected = (told.usage!.prompt_tokens * pricing.input_per_million + (told.usage!.completion_tokens - audioOut) * pricing.output_per_million + audioOut * pricing.audio_output_per_million!) / 1e6;
    expect(record.cost_usd).toBeCloseTo(expected, 12);

    // A vendor at a custom_host is not asked for the chunk: the estimate counts the transcript (at least).
    const untold = await stream('spoken-stream-untold', false);
    expect(untold.usage).toBeNull();
    const estimated = await logged('spoken-stream-untold');
    expect(estimated.usage).toMatchObject({ estimated: true });
    expect(estimated.usage.output_tokens).toBeGreaterThanOrEqual(Math.ceil(Buffer.byteLength(untold.transcript) / 4));
  });

  it('a text-only answer of the same model has no audio tokens and is priced as text', async () => {
    const client = new OpenAI({
      baseURL: `${served.gateway.url}/v1`, apiKey: 'unused', maxRetries: 0,
      defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'vendor', 'x-gateway-trace-id': 'written' },
    });
    const usage = (await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Say something.' }] })).usage!;
    const record = await logged('written');
    expect(record.usage).toMatchObject({ audio_input_tokens: 0, audio_output_tokens: 0 });
    const pricing = catalog.find(MODEL)!.pricing!;
    expect(record.cost_usd).toBeCloseTo((usage.prompt_tokens * pricing.input_per_million + usage.completion_tokens * pricing.output_per_million) / 1e6, 12);
  });
});
