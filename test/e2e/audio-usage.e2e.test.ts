// An audio model's chat (spoken input, a spoken answer) is priced at the catalog's audio prices for
// its audio tokens (the vendor's prompt_tokens_details.audio_tokens and
// completion_tokens_details.audio_tokens, which are part of prompt and completion tokens), text at
// the text prices: the audio tokens cost 16 times the text ones for the vendor's audio models.
import OpenAI, { toFile } from 'openai';
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
  const vendor = { provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL };
  served = await serveConfigs('audio-usage', GATEWAY_KEY, { vendor, pinned: { ...vendor, override_params: { model: 'gpt-image-1' } } });
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

// Transcriptions and images are metered by the usage their answers report (token-billed models:
// gpt-4o-transcribe, gpt-image-1), and never estimated: a whisper transcription (billed by the
// second) reports its seconds, and a DALL·E image (per image) is counted from its request
// (test/e2e/per-unit-usage.e2e.test.ts).
describe('transcriptions and images', () => {
  const client = (trace: string) => new OpenAI({
    baseURL: `${served.gateway.url}/v1`, apiKey: 'unused', maxRetries: 0,
    defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'vendor', 'x-gateway-trace-id': trace },
  });
  const clip = () => toFile(Buffer.alloc(48_000, 3), 'clip.wav');
  const priced = (model: string, usage: { input_tokens: number; output_tokens: number; audio?: number; image?: number }) => {
    const pricing = catalog.find(model)!.pricing!;
    const audio = usage.audio ?? 0;
    const image = usage.image ?? 0;
    return ((usage.input_tokens - audio - image) * pricing.input_per_million + audio * (pricing.audio_input_per_million ?? pricing.input_per_million)
      + image * (pricing.image_input_per_million ?? pricing.input_per_million) + usage.output_tokens * pricing.output_per_million) / 1e6;
  };

  it('logs and prices a token-billed transcription and translation, its audio at the audio price', async () => {
    for (const [trace, create] of [
      ['transcribed', async () => client('transcribed').audio.transcriptions.create({ model: 'gpt-4o-transcribe', file: await clip() })],
      ['translated', async () => client('translated').audio.translations.create({ model: 'gpt-4o-transcribe', file: await clip() })],
    ] as const) {
      const answer = (await create()) as unknown as { text: string; usage: { input_tokens: number; output_tokens: number; total_tokens: number; input_token_details: { audio_tokens: number } } };
      expect(answer.usage.input_token_details.audio_tokens, trace).toBeGreaterThan(0);
      const record = await logged(trace);
      expect(record.usage, trace).toMatchObject({ input_tokens: answer.usage.input_tokens, audio_input_tokens: answer.usage.input_token_details.audio_tokens, output_tokens: answer.usage.output_tokens, total_tokens: answer.usage.total_tokens, estimated: false });
      expect(record.cost_usd, trace).toBeCloseTo(priced('gpt-4o-transcribe', { ...answer.usage, audio: answer.usage.input_token_details.audio_tokens }), 12);
      expect(record.cost_usd, trace).toBeGreaterThan(0);
    }
  });

  it('reads a streamed transcription\'s usage from its done event', async () => {
    const stream = await client('transcribed-stream').audio.transcriptions.create({ model: 'gpt-4o-mini-transcribe', file: await clip(), stream: true });
    let usage: any = null;
    for await (const event of stream) if (event.type === 'transcript.text.done') usage = (event as { usage?: unknown }).usage;
    expect(usage).not.toBeNull();
    const record = await logged('transcribed-stream');
    expect(record).toMatchObject({ stream: true, usage: { input_tokens: usage.input_tokens, audio_input_tokens: usage.input_token_details.audio_tokens, output_tokens: usage.output_tokens, estimated: false } });
    expect(record.cost_usd).toBeCloseTo(priced('gpt-4o-mini-transcribe', { ...usage, audio: usage.input_token_details.audio_tokens }), 12);
  });

  it('prices a transcription billed by its length at the price per minute; leaves an answer that reports nothing unknown, never estimated from the audio', async () => {
    const heard = (await client('by-the-second').audio.transcriptions.create({ model: 'whisper-1', file: await clip() })) as unknown as { usage: { type: string; seconds: number } };
    expect(heard.usage).toMatchObject({ type: 'duration' });
    const timed = await logged('by-the-second');
    expect(timed.usage).toMatchObject({ input_tokens: 0, output_tokens: 0, total_tokens: 0, audio_seconds: heard.usage.seconds, estimated: false });
    expect(timed.cost_usd).toBeCloseTo((heard.usage.seconds / 60) * catalog.find('whisper-1')!.pricing!.audio_input_per_minute!, 12);
    expect(timed.cost_usd).toBeGreaterThan(0);

    // Bytes of no audio format: nothing says their length (a real recording's is read, test/e2e/per-unit-usage.e2e.test.ts).
    await client('as-text').audio.transcriptions.create({ model: 'gpt-4o-transcribe', file: await clip(), response_format: 'text' });
    expect(await logged('as-text')).toMatchObject({ status: 200, usage: null, cost_usd: null });
  });

  it('logs and prices speech streamed as events by its done event; speech as audio bytes reports no tokens', async () => {
    const input = 'Welcome aboard, the ship leaves at noon.';
    const events = await (await client('spoken-events').audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'alloy', input, stream_format: 'sse' })).text();
    const done = events.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6))).find((event) => event.type === 'speech.audio.done');
    expect(done.usage.output_tokens).toBeGreaterThan(0);
    const record = await logged('spoken-events');
    expect(record).toMatchObject({ stream: true, usage: { input_tokens: done.usage.input_tokens, output_tokens: done.usage.output_tokens, total_tokens: done.usage.total_tokens, estimated: false } });
    expect(record.cost_usd).toBeCloseTo(priced('gpt-4o-mini-tts', done.usage), 12);

    const audio = Buffer.from(await (await client('spoken-bytes').audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'alloy', input })).arrayBuffer());
    expect(audio.length).toBeGreaterThan(8_000);
    // Its characters counted from the request (tts-1 is billed by them), its length read from the
    // answer (this model is priced by the minute: test/e2e/per-unit-usage.e2e.test.ts).
    expect(await logged('spoken-bytes')).toMatchObject({ status: 200, usage: { input_characters: input.length, input_tokens: 0, output_tokens: 0, estimated: true } });
  });

  it('logs and prices a token-billed image generation; a DALL·E one reports no tokens and is priced per image', async () => {
    const image = await client('drawn').images.generate({ model: 'gpt-image-1', prompt: 'a lighthouse at dusk, in watercolour', n: 2 });
    const usage = image.usage!;
    expect(usage.output_tokens).toBeGreaterThan(0);
    const record = await logged('drawn');
    expect(record.usage).toMatchObject({ input_tokens: usage.input_tokens, output_tokens: usage.output_tokens, image_input_tokens: 0, total_tokens: usage.total_tokens, estimated: false });
    expect(record.cost_usd).toBeCloseTo(priced('gpt-image-1', usage), 12);
    const metrics = await (await fetch(`${served.gateway.url}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`gateway_tokens_total\\{[^}]*model="gpt-image-1"[^}]*type="output"\\} ${usage.output_tokens}\\b`));

    await client('drawn-per-image').images.generate({ model: 'dall-e-3', prompt: 'a lighthouse' });
    const perImage = await logged('drawn-per-image');
    expect(perImage).toMatchObject({ status: 200, usage: { images: 1, image_size: null, image_quality: null, input_tokens: 0, output_tokens: 0, total_tokens: 0, estimated: false } });
    expect(perImage.cost_usd).toBeCloseTo(catalog.find('dall-e-3')!.pricing!.per_image!.usd.standard!['1024x1024']!, 12);
  });

  it('records and prices an answer that names no model as of the model its target sent (override_params), not the one asked for', async () => {
    const pinned = new OpenAI({
      baseURL: `${served.gateway.url}/v1`, apiKey: 'unused', maxRetries: 0,
      defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'pinned', 'x-gateway-trace-id': 'drawn-pinned' },
    });
    const image = await pinned.images.generate({ model: 'dall-e-3', prompt: 'a lighthouse at dawn' });
    const record = await logged('drawn-pinned');
    expect(record).toMatchObject({ model_requested: 'dall-e-3', model_answered: 'gpt-image-1', usage: { output_tokens: image.usage!.output_tokens } });
    expect(record.cost_usd).toBeCloseTo(priced('gpt-image-1', image.usage!), 12);
    // Its cost is counted under the model it was priced as.
    const metrics = await (await fetch(`${served.gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_cost_usd_total\{provider="vendor",model="gpt-image-1"\} /m);
  });
});

describe('image edits', () => {
  it('log the tokens of the images they send and price them at the image input price', async () => {
    const client = new OpenAI({
      baseURL: `${served.gateway.url}/v1`, apiKey: 'unused', maxRetries: 0,
      defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'vendor', 'x-gateway-trace-id': 'redrawn' },
    });
    const png = (name: string) => toFile(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64'), name, { type: 'image/png' });
    const edited = await client.images.edit({ model: 'gpt-image-1', image: [await png('a.png'), await png('b.png')], prompt: 'put both in one frame' });
    const usage = edited.usage!;
    const images = usage.input_tokens_details.image_tokens;
    expect(images).toBeGreaterThan(usage.input_tokens_details.text_tokens);
    const record = await logged('redrawn');
    expect(record.usage).toMatchObject({ input_tokens: usage.input_tokens, image_input_tokens: images, output_tokens: usage.output_tokens, estimated: false });
    const pricing = catalog.find('gpt-image-1')!.pricing!;
    expect(record.cost_usd).toBeCloseTo(((usage.input_tokens - images) * pricing.input_per_million + images * pricing.image_input_per_million! + usage.output_tokens * pricing.output_per_million) / 1e6, 12);
    const metrics = await (await fetch(`${served.gateway.url}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`gateway_tokens_total\\{[^}]*model="gpt-image-1"[^}]*type="image_input"\\} ${images}\\b`));
  });
});

describe('audio billed by its length', () => {
  it('is priced per minute, and a model without a price per minute is not priced for it', () => {
    const usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, audioSeconds: 90 };
    expect(catalog.cost('whisper-1', usage)).toBeCloseTo(1.5 * catalog.find('whisper-1')!.pricing!.audio_input_per_minute!, 12);
    expect(catalog.cost('gpt-4o-mini-tts', usage)).toBeNull();
  });
});

describe('image input tokens', () => {
  it('are priced at the image input price, the rest of the input at the text price', () => {
    const pricing = catalog.find('gpt-image-1')!.pricing!;
    const cost = catalog.cost('gpt-image-1', { inputTokens: 1_000, cachedInputTokens: 0, imageInputTokens: 600, outputTokens: 2_000 })!;
    expect(cost).toBeCloseTo((400 * pricing.input_per_million + 600 * pricing.image_input_per_million! + 2_000 * pricing.output_per_million) / 1e6, 12);
    // A count past the input it is part of is capped, not priced twice.
    const odd = catalog.cost('gpt-image-1', { inputTokens: 100, cachedInputTokens: 0, imageInputTokens: 10_000, outputTokens: 0 })!;
    expect(odd).toBeCloseTo((100 * pricing.image_input_per_million!) / 1e6, 12);
  });
});
