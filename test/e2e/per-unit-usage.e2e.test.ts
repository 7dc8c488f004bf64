// Answers billed per unit report no tokens: a DALL·E image is billed per image by its size and
// quality, tts-1's speech by the characters it speaks. Their records count those units from the
// request as the answering target sent it (override_params included) and price them from the
// catalog's per_image and input_per_million_characters.
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelCatalog } from '../../runtime/telemetry/model-catalog.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { until } from '../jobs/harness.ts';
import { type RawProvider, startRawProvider } from '../mocks/http/raw-provider.ts';
import { audioSeconds, edgesOf, spokenSeconds } from '../../runtime/core/audio-duration/index.ts';
import { flacFile, mp3File, opusFile, wavFile, webmFile } from '../support/audio-files.ts';
import { serveConfigs, type ServedConfigs } from './serve-in-process.ts';

const GATEWAY_KEY = 'gw-per-unit-usage-e2e';
const catalog = ModelCatalog.load();
const imagePrice = (model: string, quality: string, size: string) => catalog.find(model)!.pricing.per_image!.usd[quality]![size]!;
const characterPrice = (model: string) => catalog.find(model)!.pricing.input_per_million_characters! / 1e6;

let served: ServedConfigs;
let mock: VendorMock;
let cutting: RawProvider;

/** An image stream that breaks off after a partial image, before the event that carries its usage. */
const CUT_IMAGE_STREAM = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n'
  + `event: image_generation.partial_image\ndata: ${JSON.stringify({ type: 'image_generation.partial_image', b64_json: 'iVBORw0KGgo=', partial_image_index: 0 })}\n\n`;

beforeAll(async () => {
  mock = await startVendorMock({ label: 'per-unit' });
  cutting = await startRawProvider(() => ({ bytes: CUT_IMAGE_STREAM }));
  const vendor = { provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL };
  served = await serveConfigs('per-unit-usage', GATEWAY_KEY, {
    vendor,
    cut: { provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: cutting.baseURL },
    tall: { ...vendor, override_params: { size: '1024x1792', quality: 'hd' } },
    spoken: { ...vendor, override_params: { model: 'tts-1-hd', input: 'Mind the gap.' } },
  });
});

afterAll(async () => {
  await served?.close();
  await mock?.close();
  await cutting?.close();
});

const client = (config: string, trace: string) => new OpenAI({
  baseURL: `${served.gateway.url}/v1`, apiKey: 'unused', maxRetries: 0,
  defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': config, 'x-gateway-trace-id': trace },
});

async function logged(trace: string): Promise<any> {
  const read = async () => (await (await fetch(`${served.gateway.url}/v1/logs?trace_id=${trace}`, { headers: { 'x-gateway-api-key': GATEWAY_KEY } })).json() as any).data as any[];
  return (await until(read, (records) => records.length === 1, 10_000, `the record of ${trace}`))[0];
}

describe('images billed per image', () => {
  it('are priced by their count, size and quality as asked for, the defaults when the request names none', async () => {
    await client('vendor', 'hd-wide').images.generate({ model: 'dall-e-3', prompt: 'a harbour', size: '1792x1024', quality: 'hd' });
    const wide = await logged('hd-wide');
    expect(wide.usage).toMatchObject({ images: 1, image_size: '1792x1024', image_quality: 'hd', input_tokens: 0, output_tokens: 0, total_tokens: 0, estimated: false, input_characters: 0 });
    expect(wide.cost_usd).toBeCloseTo(imagePrice('dall-e-3', 'hd', '1792x1024'), 12);
    expect(wide.cost_usd).toBeCloseTo(0.12, 12);

    const three = await client('vendor', 'three-small').images.generate({ model: 'dall-e-2', prompt: 'a harbour', n: 3, size: '512x512' });
    expect(three.data).toHaveLength(3);
    const small = await logged('three-small');
    expect(small.usage).toMatchObject({ images: 3, image_size: '512x512', image_quality: null });
    expect(small.cost_usd).toBeCloseTo(3 * imagePrice('dall-e-2', 'standard', '512x512'), 12);

    // dall-e-2 has one quality: a request naming another is priced at it, not left unpriced.
    await client('vendor', 'one-quality').images.generate({ model: 'dall-e-2', prompt: 'a harbour', quality: 'hd' });
    expect((await logged('one-quality')).cost_usd).toBeCloseTo(imagePrice('dall-e-2', 'standard', '1024x1024'), 12);
  });

  it('count what the target sent: its override_params size and quality, not the request\'s', async () => {
    await client('tall', 'overridden').images.generate({ model: 'dall-e-3', prompt: 'a lighthouse', size: '1024x1024' });
    const sent = mock.requests.at(-1)!;
    expect(JSON.parse(sent.body)).toMatchObject({ size: '1024x1792', quality: 'hd' });
    const record = await logged('overridden');
    expect(record.usage).toMatchObject({ images: 1, image_size: '1024x1792', image_quality: 'hd' });
    expect(record.cost_usd).toBeCloseTo(imagePrice('dall-e-3', 'hd', '1024x1792'), 12);
  });

  it('count an edit\'s images from its form fields', async () => {
    const png = await toFile(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64'), 'a.png', { type: 'image/png' });
    const edited = await client('vendor', 'edited').images.edit({ model: 'dall-e-2', image: png, prompt: 'add a boat', n: 2, size: '256x256' });
    expect(edited.data).toHaveLength(2);
    const record = await logged('edited');
    expect(record.usage).toMatchObject({ images: 2, image_size: '256x256', image_quality: null });
    expect(record.cost_usd).toBeCloseTo(2 * imagePrice('dall-e-2', 'standard', '256x256'), 12);
  });
});

describe('a token-billed image model whose answer reported no tokens', () => {
  it('has its images estimated at the per-image price when the client left while the provider drew, the most for "auto"', async () => {
    mock.script({ path: '/v1/images/generations', delayMs: 1000 });
    const leaving = new AbortController();
    const before = mock.requests.length;
    const asked = client('vendor', 'left-drawing').images.generate({ model: 'gpt-image-1', prompt: 'a slow boat', n: 2 }, { signal: leaving.signal });
    await until(async () => mock.requests.length, (n) => n > before, 3000, 'the image request at the provider');
    leaving.abort();
    await expect(asked).rejects.toThrow();
    const record = await logged('left-drawing');
    expect(record).toMatchObject({ status: 499, usage: { images: 2, image_size: null, image_quality: null, estimated: true } });
    expect(record.cost_usd).toBeCloseTo(2 * imagePrice('gpt-image-1', 'auto', 'auto'), 12);
    expect(imagePrice('gpt-image-1', 'auto', 'auto')).toBe(Math.max(...Object.values(catalog.find('gpt-image-1')!.pricing.per_image!.usd).flatMap((sizes) => Object.values(sizes))));
  });

  it('has its images estimated when its stream broke off before the event with its usage', async () => {
    const res = await fetch(`${served.gateway.url}/v1/images/generations`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'cut', 'x-gateway-trace-id': 'cut-drawing', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-image-1', prompt: 'a boat', stream: true, quality: 'medium', size: '1024x1536' }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('image_generation.partial_image');
    const record = await logged('cut-drawing');
    expect(record).toMatchObject({ stream: true, usage: { images: 1, image_size: '1024x1536', image_quality: 'medium', input_tokens: 0, estimated: true } });
    expect(record.cost_usd).toBeCloseTo(imagePrice('gpt-image-1', 'medium', '1024x1536'), 12);
  });
});

describe('speech billed by its characters', () => {
  it('is priced by the characters of its input, counted as code points', async () => {
    const input = 'Boarding now 🚢: gate 7.';
    const audio = await (await client('vendor', 'read-aloud').audio.speech.create({ model: 'tts-1', voice: 'alloy', input })).arrayBuffer();
    expect(audio.byteLength).toBeGreaterThan(8_000);
    const record = await logged('read-aloud');
    // The ship is two UTF-16 units and one character.
    expect(input.length).toBe([...input].length + 1);
    expect(record.usage).toMatchObject({ input_characters: [...input].length, images: 0, input_tokens: 0, output_tokens: 0, estimated: false });
    expect(record.cost_usd).toBeCloseTo([...input].length * characterPrice('tts-1'), 12);
  });

  it('counts what the target sent: its override_params model and input', async () => {
    await (await client('spoken', 'read-overridden').audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'A much longer announcement than the one the target sends.' })).arrayBuffer();
    const record = await logged('read-overridden');
    expect(record).toMatchObject({ model_requested: 'tts-1', model_answered: 'tts-1-hd', usage: { input_characters: 'Mind the gap.'.length } });
    expect(record.cost_usd).toBeCloseTo('Mind the gap.'.length * characterPrice('tts-1-hd'), 12);
  });

  it('of a model priced by the minute is priced by the length its answer\'s headers say', async () => {
    const input = 'The ship leaves at noon from the north quay; please have your tickets ready.';
    const perMinute = catalog.find('gpt-4o-mini-tts')!.pricing.audio_output_per_minute!;
    for (const format of ['mp3', 'wav', 'pcm'] as const) {
      const trace = `spoken-${format}`;
      const audio = Buffer.from(await (await client('vendor', trace).audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'alloy', input, response_format: format })).arrayBuffer());
      const seconds = Math.round(spokenSeconds(edgesOf(audio), format)! * 100) / 100;
      expect(seconds, format).toBeGreaterThan(0.2);
      const record = await logged(trace);
      expect(record.usage, format).toMatchObject({ input_characters: input.length, audio_output_seconds: seconds, input_tokens: 0, output_tokens: 0, estimated: true });
      expect(record.cost_usd, format).toBeCloseTo((seconds / 60) * perMinute, 12);
    }
    // An answer whose bytes say no length (the mock's opus is not a real Ogg stream) keeps its characters, unpriced.
    await (await client('vendor', 'spoken-opus').audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'alloy', input, response_format: 'opus' })).arrayBuffer();
    expect(await logged('spoken-opus')).toMatchObject({ usage: { input_characters: input.length, audio_output_seconds: 0 }, cost_usd: null });
  });

  it('a refused request is charged nothing', async () => {
    const refused = await client('vendor', 'read-refused').audio.speech.create({ model: 'tts-1', voice: 'alloy', input: '' }).then(() => null, (error: unknown) => error);
    expect(refused).toMatchObject({ status: 400 });
    expect(await logged('read-refused')).toMatchObject({ status: 400, usage: null, cost_usd: null });
  });
});

describe('a transcription whose answer reports no usage', () => {
  const perMinute = (model: string) => catalog.find(model)!.pricing.audio_input_per_minute!;

  it('is charged the minutes its upload\'s headers say, estimated, for a transcript asked for as text, srt or vtt', async () => {
    for (const [trace, model, format, file] of [
      ['heard-text', 'gpt-4o-transcribe', 'text', { bytes: wavFile(61.2), name: 'speech.wav' }],
      ['heard-srt', 'whisper-1', 'srt', { bytes: mp3File(400, { xing: true, id3: true }), name: 'speech.mp3' }],
      ['heard-vtt', 'whisper-1', 'vtt', { bytes: webmFile({ lastBlockMs: 4_480 }), name: 'speech.webm' }],
      ['translated-text', 'whisper-1', 'text', { bytes: opusFile(9), name: 'speech.ogg' }],
    ] as const) {
      const upload = await toFile(file.bytes, file.name);
      const answer = trace.startsWith('translated')
        ? await client('vendor', trace).audio.translations.create({ model, file: upload, response_format: format as 'text' })
        : await client('vendor', trace).audio.transcriptions.create({ model, file: upload, response_format: format as 'text' });
      expect(typeof answer, trace).toBe('string');
      const seconds = Math.ceil(audioSeconds(file.bytes)!);
      const record = await logged(trace);
      expect(record.usage, trace).toMatchObject({ audio_seconds: seconds, input_tokens: 0, output_tokens: 0, estimated: true });
      expect(record.cost_usd, trace).toBeCloseTo((seconds / 60) * perMinute(model), 12);
    }
  });

  it('is charged its minutes when the client left while the provider transcribed', async () => {
    mock.script({ path: '/v1/audio/transcriptions', delayMs: 1000 });
    const leaving = new AbortController();
    const before = mock.requests.length;
    const asked = client('vendor', 'left-hearing').audio.transcriptions.create({ model: 'gpt-4o-mini-transcribe', file: await toFile(flacFile(16_000 * 30, 16_000), 'speech.flac') }, { signal: leaving.signal });
    await until(async () => mock.requests.length, (n) => n > before, 3000, 'the transcription at the provider');
    leaving.abort();
    await expect(asked).rejects.toThrow();
    const record = await logged('left-hearing');
    expect(record).toMatchObject({ status: 499, usage: { audio_seconds: 30, estimated: true } });
    expect(record.cost_usd).toBeCloseTo(0.5 * perMinute('gpt-4o-mini-transcribe'), 12);
  });

  it('keeps the tokens a JSON answer reports, not the upload\'s minutes', async () => {
    const answer = (await client('vendor', 'heard-json').audio.transcriptions.create({ model: 'gpt-4o-transcribe', file: await toFile(wavFile(20), 'speech.wav') })) as unknown as { usage: { input_tokens: number } };
    const record = await logged('heard-json');
    expect(record.usage).toMatchObject({ input_tokens: answer.usage.input_tokens, audio_seconds: 0, estimated: false });
  });
});

describe('the catalog\'s per-unit prices', () => {
  it('leave a size or quality they do not list unpriced, read only their own keys, and a model without them unpriced', () => {
    const none = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
    expect(catalog.cost('dall-e-3', { ...none, images: 2, imageSize: null, imageQuality: null })).toBeCloseTo(2 * imagePrice('dall-e-3', 'standard', '1024x1024'), 12);
    expect(catalog.cost('dall-e-3', { ...none, images: 1, imageSize: '640x480', imageQuality: null })).toBeNull();
    expect(catalog.cost('dall-e-3', { ...none, images: 1, imageSize: null, imageQuality: 'ultra' })).toBeNull();
    for (const key of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(catalog.cost('dall-e-3', { ...none, images: 1, imageSize: key, imageQuality: null }), key).toBeNull();
      expect(catalog.cost('dall-e-3', { ...none, images: 1, imageSize: null, imageQuality: key }), key).toBeNull();
    }
    expect(catalog.cost('gpt-image-1', { ...none, images: 1, imageSize: null, imageQuality: null })).toBeCloseTo(imagePrice('gpt-image-1', 'auto', 'auto'), 12);
    expect(catalog.cost('gpt-4o-mini', { ...none, images: 1, imageSize: null, imageQuality: null })).toBeNull();
    expect(catalog.cost('gpt-4o-mini-tts', { ...none, inputCharacters: 10 })).toBeNull();
    expect(catalog.cost('tts-1', { ...none, inputCharacters: 0 })).toBe(0);
  });

  it('refuse a default quality their table does not price', () => {
    const model = { id: 'painter', pricing: { input_per_million: 0, output_per_million: 0, per_image: { default_size: '1024x1024', default_quality: 'hd', usd: { standard: { '1024x1024': 0.02 } } } } };
    expect(() => new ModelCatalog({ models: [model] }, 'test catalog')).toThrow(/"painter" has the default_quality "hd", which its per_image usd does not price/);
  });
});
