// The stream usage tap reads the same usage, model and output length however the stream's bytes are
// cut into chunks (mid-line, mid-character, one byte at a time), and a line past its cap is skipped
// to its end without taking its tail for a line of its own.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { newRequestRecord, type RequestRecord } from '../../runtime/core/request-record.ts';
import { JsonUsageTap, MAX_EVENT_CHARS, SseUsageTap } from '../../runtime/pipeline/log/usage-tap.ts';
import { cutAt } from '../support/cut.ts';
import type { BodyTap } from '../../runtime/core/body-tap.ts';
import { EventStreamUsageTap } from '../../runtime/pipeline/log/event-stream-usage-tap.ts';
import { eventMessage, exceptionMessage } from '../mocks/cloudc/event-stream.ts';

const content = fc.string({ unit: 'binary', maxLength: 12 });
const event = fc.oneof(
  content.map((c) => `data: ${JSON.stringify({ model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content: c } }] })}`),
  fc.record({ p: fc.nat(500), c: fc.nat(500) }).map(({ p, c }) => `data: ${JSON.stringify({ model: 'm2', choices: [], usage: { prompt_tokens: p, completion_tokens: c, total_tokens: p + c } })}`),
  fc.constantFrom('data: [DONE]', ': ping', 'event: message', 'data: not json', 'data:{"choices":[{"text":"é😀"}]}'),
);
const stream = fc.tuple(fc.array(event, { maxLength: 8 }), fc.constantFrom('\n\n', '\r\n\r\n', '\n')).map(([events, sep]) => Buffer.from(events.map((e) => e + sep).join('')));

/** A new record of a request to `path` after `chunks` went through the tap `tapOf` makes for it, to their end. */
function throughTap(path: string, tapOf: (record: RequestRecord) => BodyTap, chunks: readonly Buffer[]): RequestRecord {
  const record = newRequestRecord('trace', 'POST', path);
  const tap = tapOf(record);
  for (const chunk of chunks) tap.write(chunk);
  tap.end();
  return record;
}

const tapped = (chunks: readonly Buffer[]) => throughTap('/v1/chat/completions', (record) => new SseUsageTap(record, () => 10, () => {}), chunks);

describe('SseUsageTap', () => {
  test.prop([stream, fc.array(fc.nat(), { maxLength: 12 })], { numRuns: 300 })('reads the same record whatever the chunks', (bytes, offsets) => {
    const whole = tapped([bytes]);
    const pieces = tapped(cutAt(bytes, offsets));
    expect({ usage: pieces.usage, model: pieces.modelAnswered }).toEqual({ usage: whole.usage, model: whole.modelAnswered });
  });

  test.prop([stream], { numRuns: 50 })('one byte at a time too', (bytes) => {
    const whole = tapped([bytes]);
    const bytewise = tapped(Array.from(bytes, (_, i) => bytes.subarray(i, i + 1)));
    expect({ usage: bytewise.usage, model: bytewise.modelAnswered }).toEqual({ usage: whole.usage, model: whole.modelAnswered });
  });

  it('reads a Responses API stream: the model and usage of its last event, else an estimate of its text deltas', () => {
    const frame = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const response = (extra: Record<string, unknown>) => ({ id: 'resp_1', object: 'response', model: 'gpt-4o-2024-08-06', status: 'completed', output: [], ...extra });
    const deltas = [frame('response.created', { response: response({ status: 'in_progress', usage: null }) }), frame('response.output_text.delta', { item_id: 'msg_1', delta: 'Hello there, ' }), frame('response.output_text.delta', { item_id: 'msg_1', delta: 'friend.' })];
    const usage = { input_tokens: 12, input_tokens_details: { cached_tokens: 2 }, output_tokens: 4, total_tokens: 16 };
    const complete = tapped([Buffer.from(deltas.join('') + frame('response.completed', { response: response({ usage }) }))]);
    expect(complete.modelAnswered).toBe('gpt-4o-2024-08-06');
    expect(complete.usage).toEqual({ inputTokens: 12, outputTokens: 4, cachedInputTokens: 2, totalTokens: 16, estimated: false });
    // Cut before its last event: the streamed text, estimated.
    const cut = tapped([Buffer.from(deltas.join(''))]);
    expect(cut.usage).toMatchObject({ inputTokens: 10, outputTokens: Math.ceil('Hello there, friend.'.length / 4), estimated: true });
  });

  it('skips a line past the cap to its end, then reads the lines after it', () => {
    const usage = (p: number) => `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: p, completion_tokens: 1, total_tokens: p + 1 } })}`;
    const chunks = (...texts: string[]) => texts.map((t) => Buffer.from(t));
    // The overlong line goes on in a chunk that begins like a usage event: it is still the same line.
    const overlong = [`data: ${'x'.repeat(MAX_EVENT_CHARS + 10)}`, `${usage(7)}\n\n`];
    expect(tapped(chunks(`${usage(3)}\n\n`, ...overlong)).usage).toMatchObject({ inputTokens: 3, estimated: false });
    expect(tapped(chunks(`${usage(3)}\n\n`, ...overlong, `${usage(5)}\n\n`)).usage).toMatchObject({ inputTokens: 5, estimated: false });
    // A stream that ends inside the overlong line.
    expect(tapped(chunks(`${usage(3)}\n\n`, overlong[0]!, usage(7))).usage).toMatchObject({ inputTokens: 3, estimated: false });
  });

  it('without a usage chunk, takes the usage the provider reported outside the stream; with one, the chunk\'s', () => {
    const reported = { prompt_tokens: 40, completion_tokens: 6, total_tokens: 46, prompt_tokens_details: { cached_tokens: 30 } };
    const run = (text: string, report: unknown): RequestRecord => {
      const record = newRequestRecord('trace', 'POST', '/v1/chat/completions');
      const tap = new SseUsageTap(record, () => 10, () => {}, 0, () => report);
      tap.write(Buffer.from(text));
      tap.end();
      return record;
    };
    const plain = 'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n';
    expect(run(plain, reported).usage).toEqual({ inputTokens: 40, outputTokens: 6, cachedInputTokens: 30, totalTokens: 46, estimated: false });
    expect(run(plain, null).usage).toMatchObject({ inputTokens: 10, estimated: true });
    const withChunk = `data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}\n\n${plain}`;
    expect(run(withChunk, reported).usage).toMatchObject({ inputTokens: 3, estimated: false });
  });

  it('reads a transcript stream\'s usage from its done event; without one and without an estimate, the usage stays unknown', () => {
    const run = (events: object[]): RequestRecord => {
      const record = newRequestRecord('trace', 'POST', '/v1/audio/transcriptions');
      const tap = new SseUsageTap(record, null, () => {});
      tap.write(Buffer.from(events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('')));
      tap.end();
      return record;
    };
    const delta = { type: 'transcript.text.delta', delta: 'hello there' };
    const usage = { type: 'tokens', input_tokens: 14, input_token_details: { text_tokens: 4, audio_tokens: 10 }, output_tokens: 3, total_tokens: 17 };
    expect(run([delta, { type: 'transcript.text.done', text: 'hello there', usage }]).usage).toEqual({ inputTokens: 14, outputTokens: 3, cachedInputTokens: 0, audioInputTokens: 10, totalTokens: 17, estimated: false });
    expect(run([delta, { type: 'transcript.text.done', text: 'hello there' }]).usage).toBeNull();
    // Billed by its length: its seconds, no tokens.
    expect(run([delta, { type: 'transcript.text.done', text: 'hello there', usage: { type: 'duration', seconds: 3 } }]).usage).toEqual({ inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, totalTokens: 0, audioSeconds: 3, estimated: false });
  });

  it('reads the usage of an image stream\'s last event, which carries the whole image, without parsing the image', () => {
    const record = newRequestRecord('trace', 'POST', '/v1/images/generations');
    const tap = new SseUsageTap(record, null, () => {});
    const image = 'iVBORw0KGgo'.repeat(400_000);
    const usage = { total_tokens: 1_076, input_tokens: 20, output_tokens: 1_056, input_tokens_details: { text_tokens: 12, image_tokens: 8 } };
    const events = [
      { type: 'image_generation.partial_image', b64_json: image.slice(0, 2_000_000), partial_image_index: 0 },
      { type: 'image_generation.completed', b64_json: image, created_at: 1, size: '1024x1024', quality: 'medium', usage },
    ];
    const text = events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
    for (let at = 0; at < text.length; at += 65_536) tap.write(Buffer.from(text.slice(at, at + 65_536)));
    tap.end();
    expect(record.usage).toEqual({ inputTokens: 20, outputTokens: 1_056, cachedInputTokens: 0, imageInputTokens: 8, totalTokens: 1_076, estimated: false });
  });

  it('estimates a stream without usage at four bytes of UTF-8 a token, so text of three-byte characters counts about a token a character', () => {
    const record = newRequestRecord('trace', 'POST', '/v1/chat/completions');
    const tap = new SseUsageTap(record, () => 10, () => {});
    tap.write(Buffer.from(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: '你好世界，今天天气很好' } }] })}\n\ndata: [DONE]\n\n`));
    tap.end();
    // 11 characters, 33 bytes.
    expect(record.usage).toMatchObject({ outputTokens: 9, estimated: true });
  });

  it('estimates all the output the model generated: tool call arguments, reasoning and refusals too, and the Responses API\'s kinds', () => {
    const estimate = (frames: object[]): number | undefined => {
      const record = newRequestRecord('trace', 'POST', '/v1/chat/completions');
      const tap = new SseUsageTap(record, () => 10, () => {});
      tap.write(Buffer.from(frames.map((frame) => `data: ${JSON.stringify(frame)}\n\n`).join('')));
      tap.end();
      return record.usage?.outputTokens;
    };
    const args = '{"city":"Paris","days":3}';
    expect(estimate([{ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: 'weather', arguments: args } }] } }] }])).toBe(Math.ceil(args.length / 4));
    expect(estimate([{ choices: [{ index: 0, delta: { reasoning_content: 'think'.repeat(8) } }] }, { choices: [{ index: 0, delta: { content: 'ok' } }] }])).toBe(Math.ceil(42 / 4));
    expect(estimate([{ choices: [{ index: 0, delta: { refusal: 'I cannot help with that.' } }] }])).toBe(Math.ceil(24 / 4));
    // Reasoning under the other name some servers give it, and a spoken answer's transcript.
    expect(estimate([{ choices: [{ index: 0, delta: { reasoning: 'think'.repeat(8) } }] }])).toBe(10);
    expect(estimate([{ choices: [{ index: 0, delta: { reasoning_content: 'think'.repeat(8), reasoning: 'think'.repeat(8) } }] }])).toBe(10);
    expect(estimate([{ choices: [{ index: 0, delta: { audio: { id: 'audio_1', data: 'UklGRg==', transcript: 'Hello there, friend' } } }] }])).toBe(Math.ceil(19 / 4));
    expect(estimate([
      { type: 'response.function_call_arguments.delta', delta: args },
      { type: 'response.reasoning_summary_text.delta', delta: 'abcd' },
      { type: 'response.audio.delta', delta: 'QUJDRA=='.repeat(100) },
    ])).toBe(Math.ceil((args.length + 4) / 4));
  });
});

describe('JsonUsageTap on an answer too long to keep whole', () => {
  // ~5 MB: past the 4 MiB the tap keeps whole.
  const vectors = Array.from({ length: 60 }, (_, i) => ({ object: 'embedding', index: i, embedding: Array.from({ length: 4000 }, (_, j) => ((i * 7919 + j) % 1000) / 997) }));
  const usage = { prompt_tokens: 321, total_tokens: 321 };
  const last = Buffer.from(JSON.stringify({ object: 'list', data: vectors, model: 'embed-large', usage }));
  const first = Buffer.from(JSON.stringify({ id: 'x', model: 'chat-large', usage, choices: vectors }));

  const read = (chunks: readonly Buffer[]) => throughTap('/v1/embeddings', (record) => new JsonUsageTap(record, () => {}), chunks);

  test.prop([fc.array(fc.nat(), { maxLength: 6 }), fc.boolean()], { numRuns: 15 })('reads its usage and model however it arrives, usage last or first', (offsets, usageLast) => {
    const body = usageLast ? last : first;
    expect(body.length).toBeGreaterThan(4 * 1024 * 1024);
    const record = read(cutAt(body, offsets));
    expect(record.usage).toEqual({ inputTokens: 321, outputTokens: 0, cachedInputTokens: 0, totalTokens: 321, estimated: false });
    expect(record.modelAnswered).toBe(usageLast ? 'embed-large' : 'chat-large');
  });
});


/**
 * The messages API's stream, however it is framed: as the API's own SSE (`/v1/messages` passed
 * through), or inside cloud C's event stream, one event a `chunk` (a Claude model's invoke). The
 * same events read the same, whatever the chunks.
 */
const MESSAGES_FRAMINGS = {
  'the messages API\'s own SSE': {
    frame: (events: readonly Record<string, unknown>[]) => Buffer.from(events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('')),
    tap: (record: RequestRecord) => new SseUsageTap(record, () => 7, () => {}, 0, () => null, 'messages'),
  },
  'a Claude model\'s invoke stream through cloud C (the events in chunk messages)': {
    frame: (events: readonly Record<string, unknown>[]) => Buffer.concat(events.map((e) => eventMessage('chunk', { bytes: Buffer.from(JSON.stringify(e)).toString('base64') }))),
    tap: (record: RequestRecord) => new EventStreamUsageTap(record, 'messages', () => 7, () => {}),
  },
} as const;

for (const [framing, { frame, tap: tapOf }] of Object.entries(MESSAGES_FRAMINGS)) {
  describe(`the messages dialect: ${framing}`, () => {
    const counts = fc.record({ input: fc.nat(5000), read: fc.nat(5000), write: fc.nat(5000), output: fc.integer({ min: 1, max: 5000 }) });
    function messagesEvents(c: { input: number; read: number; write: number; output: number }, texts: readonly string[], finished: boolean): Record<string, unknown>[] {
      return [
        { type: 'message_start', message: { id: 'msg_1', model: 'claude-sonnet-4-0', usage: { input_tokens: c.input, cache_read_input_tokens: c.read, cache_creation_input_tokens: c.write, output_tokens: 1 } } },
        { type: 'ping' },
        ...texts.map((text) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
        ...(finished ? [{ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: c.output } }, { type: 'message_stop' }] : []),
      ];
    }
    const tapped = (chunks: readonly Buffer[]) => throughTap('/v1/messages', tapOf, chunks);

    test.prop([counts, fc.array(fc.string({ maxLength: 20 }), { maxLength: 4 }), fc.array(fc.nat(), { maxLength: 8 })], { numRuns: 200 })(
      'a finished stream: its reported counts, input counting cache reads and writes, whatever the chunks',
      (c, texts, offsets) => {
        const record = tapped(cutAt(frame(messagesEvents(c, texts, true)), offsets));
        const input = c.input + c.read + c.write;
        expect(record.modelAnswered).toBe('claude-sonnet-4-0');
        expect(record.usage).toMatchObject({ inputTokens: input, cachedInputTokens: c.read, outputTokens: c.output, totalTokens: input + c.output, estimated: false });
      },
    );

    test.prop([counts, fc.array(fc.string({ minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 4 })], { numRuns: 100 })(
      'a stream cut before message_delta: message_start\'s input, and an output estimated from its text, marked as such',
      (c, texts) => {
        const record = tapped([frame(messagesEvents(c, texts, false))]);
        const generated = Math.ceil(Buffer.byteLength(texts.join(''), 'utf8') / 4);
        expect(record.usage).toMatchObject({ inputTokens: c.input + c.read + c.write, outputTokens: Math.max(1, generated), estimated: true });
      },
    );

    it('a stream without message_start is estimated from the request, as a chat stream without usage is', () => {
      const record = tapped([frame([{ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'abcdefgh' } }])]);
      expect(record.usage).toMatchObject({ inputTokens: 7, outputTokens: 2, estimated: true });
    });
  });
}

describe('JsonUsageTap, messages dialect', () => {
  test.prop([fc.record({ input: fc.nat(5000), read: fc.nat(5000), write: fc.nat(5000), output: fc.nat(5000) })])('reads the answer\'s usage with cache reads and writes as input', (c) => {
    const record = newRequestRecord('trace', 'POST', '/v1/messages');
    const tap = new JsonUsageTap(record, () => {}, 0, 'messages');
    tap.write(Buffer.from(JSON.stringify({ id: 'msg_1', type: 'message', model: 'claude-sonnet-4-0', content: [], usage: { input_tokens: c.input, cache_read_input_tokens: c.read, cache_creation_input_tokens: c.write, output_tokens: c.output } })));
    tap.end();
    expect(record.usage).toMatchObject({ inputTokens: c.input + c.read + c.write, cachedInputTokens: c.read, outputTokens: c.output, estimated: false });
    expect(record.usage!.cacheCreationInputTokens ?? 0).toBe(c.write);
  });
});

describe('generateContent dialect (cloud B\'s own API, passed through)', () => {
  const counts = fc.record({ prompt: fc.nat(5000), cached: fc.nat(5000), candidates: fc.integer({ min: 1, max: 5000 }), thoughts: fc.nat(500) });
  type Counts = { prompt: number; cached: number; candidates: number; thoughts: number };
  const usageMetadata = (c: Counts) => ({ promptTokenCount: c.prompt + c.cached, cachedContentTokenCount: c.cached, candidatesTokenCount: c.candidates, thoughtsTokenCount: c.thoughts, totalTokenCount: c.prompt + c.cached + c.candidates + c.thoughts });
  /** The answers of a stream: a text part each, the service's running counts on each, the last one finished with the whole answer's. */
  function answers(c: Counts, texts: readonly string[], finished: boolean): object[] {
    return texts.map((text, i) => {
      const last = finished && i === texts.length - 1;
      return {
        candidates: [{ content: { role: 'model', parts: [{ text }] }, ...(last ? { finishReason: 'STOP' } : {}) }],
        usageMetadata: last ? usageMetadata(c) : { promptTokenCount: c.prompt + c.cached, cachedContentTokenCount: c.cached },
        modelVersion: 'gemini-2.0-flash',
      };
    });
  }
  const sse = (events: readonly object[]) => Buffer.from(events.map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`).join(''));
  const sseRecord = (chunks: readonly Buffer[]) => throughTap('/v1/projects/p/locations/l/publishers/google/models/gemini-2.0-flash:streamGenerateContent', (record) => new SseUsageTap(record, () => 7, () => {}, 0, () => null, 'generateContent'), chunks);
  const jsonRecord = (chunks: readonly Buffer[]) => throughTap('/v1/projects/p/locations/l/publishers/google/models/gemini-2.0-flash:generateContent', (record) => new JsonUsageTap(record, () => {}, 0, 'generateContent'), chunks);
  const whole = (c: Counts) => ({ inputTokens: c.prompt + c.cached, cachedInputTokens: c.cached, outputTokens: c.candidates + c.thoughts, totalTokens: c.prompt + c.cached + c.candidates + c.thoughts, estimated: false });

  test.prop([counts, fc.array(fc.string({ maxLength: 20 }), { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 8 })], { numRuns: 200 })(
    'a finished stream (alt=sse): its last counts, thinking tokens as output, cache reads as input, whatever the chunks',
    (c, texts, offsets) => {
      const record = sseRecord(cutAt(sse(answers(c, texts, true)), offsets));
      expect(record.modelAnswered).toBe('gemini-2.0-flash');
      expect(record.usage).toMatchObject(whole(c));
    },
  );

  test.prop([counts, fc.array(fc.string({ minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 4 })], { numRuns: 100 })(
    'a stream cut before a candidate finished: the input its events counted, and an output estimated from its text, marked as such',
    (c, texts) => {
      const record = sseRecord([sse(answers(c, texts, false))]);
      const generated = Math.ceil(Buffer.byteLength(texts.join(''), 'utf8') / 4);
      expect(record.usage).toMatchObject({ inputTokens: c.prompt + c.cached, cachedInputTokens: c.cached, outputTokens: generated, estimated: true });
    },
  );

  test.prop([counts, fc.array(fc.string({ maxLength: 20 }), { minLength: 1, maxLength: 4 }), fc.boolean(), fc.array(fc.nat(), { maxLength: 8 })], { numRuns: 200 })(
    'a JSON answer, or a stream without alt=sse (one JSON array of answers, pretty-printed or not): the last answer\'s counts and model, whatever the chunks',
    (c, texts, array, offsets) => {
      const body = array
        ? Buffer.from(`${JSON.stringify(answers(c, texts, true), null, texts.length % 2 === 0 ? 2 : undefined)}\n`)
        : Buffer.from(JSON.stringify(answers(c, texts, true).at(-1)));
      const record = jsonRecord(cutAt(body, offsets));
      expect(record.modelAnswered).toBe('gemini-2.0-flash');
      expect(record.usage).toMatchObject(whole(c));
    },
  );

  it('a JSON array too long to keep whole: its last answer\'s counts, read from its end', () => {
    const c = { prompt: 1200, cached: 300, candidates: 4000, thoughts: 20 };
    const texts = Array.from({ length: 60 }, (_, i) => `${i} `.repeat(40_000));
    const body = Buffer.from(JSON.stringify(answers(c, texts, true)));
    expect(body.length).toBeGreaterThan(4 * 1024 * 1024);
    const record = jsonRecord(cutAt(body, [1000, 3_000_000, 4_400_000]));
    expect(record.modelAnswered).toBe('gemini-2.0-flash');
    expect(record.usage).toMatchObject(whole(c));
  });
});

describe('converse dialect (cloud C\'s own API, passed through)', () => {
  const counts = fc.record({ input: fc.nat(5000), read: fc.nat(5000), write: fc.nat(5000), output: fc.nat(5000) });
  type Counts = { input: number; read: number; write: number; output: number };
  const converseUsage = (c: Counts) => ({ inputTokens: c.input, outputTokens: c.output, totalTokens: c.input + c.read + c.write + c.output, cacheReadInputTokens: c.read, cacheWriteInputTokens: c.write });
  const whole = (c: Counts) => ({ inputTokens: c.input + c.read + c.write, cachedInputTokens: c.read, outputTokens: c.output, estimated: false });
  /** A converse-stream: text, tool input and reasoning deltas, then messageStop and (when finished) metadata with the usage. */
  function converseStream(c: Counts, texts: readonly string[], finished: boolean): Buffer {
    const deltas = texts.map((text, i) => eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: i % 3 === 0 ? { text } : i % 3 === 1 ? { toolUse: { input: text } } : { reasoningContent: { text } } }));
    const end = finished ? [eventMessage('messageStop', { stopReason: 'end_turn' }), eventMessage('metadata', { usage: converseUsage(c), metrics: { latencyMs: 10 } })] : [];
    return Buffer.concat([eventMessage('messageStart', { role: 'assistant' }), ...deltas, ...end]);
  }
  const tappedStream = (chunks: readonly Buffer[]) => throughTap('/v1/model/m/converse-stream', (record) => new EventStreamUsageTap(record, 'converse', () => 7, () => {}), chunks);

  test.prop([counts, fc.array(fc.string({ maxLength: 20 }), { maxLength: 5 }), fc.array(fc.nat(), { maxLength: 8 })], { numRuns: 200 })(
    'a finished stream: its metadata\'s counts, cache reads and writes counted as input, whatever the chunks',
    (c, texts, offsets) => {
      expect(tappedStream(cutAt(converseStream(c, texts, true), offsets)).usage).toMatchObject(whole(c));
    },
  );

  test.prop([counts, fc.array(fc.string({ minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 5 }), fc.nat()], { numRuns: 100 })(
    'a stream cut before its metadata: the request\'s input and the text, tool input and reasoning that came, estimated',
    (c, texts, cut) => {
      const bytes = converseStream(c, texts, false);
      const record = tappedStream([bytes, Buffer.from(converseStream(c, [], true)).subarray(0, cut % 40)]);
      expect(record.usage).toMatchObject({ inputTokens: 7, outputTokens: Math.ceil(Buffer.byteLength(texts.join(''), 'utf8') / 4), estimated: true });
    },
  );

  it('framing that breaks ends the reading there; an exception message is no usage', () => {
    const c = { input: 10, read: 0, write: 0, output: 5 };
    const corrupt = Buffer.from(converseStream(c, ['abcd'], true));
    corrupt[corrupt.length - 1] ^= 0xff;
    expect(tappedStream([corrupt]).usage).toMatchObject({ inputTokens: 7, estimated: true });
    expect(tappedStream([Buffer.concat([converseStream(c, ['abcdefgh'], false), exceptionMessage('throttlingException', 'slow down')])]).usage).toMatchObject({ inputTokens: 7, outputTokens: 2, estimated: true });
  });

  test.prop([counts, fc.array(fc.nat(), { maxLength: 6 })])('a JSON answer: its usage, which names no model', (c, offsets) => {
    const body = Buffer.from(JSON.stringify({ output: { message: { role: 'assistant', content: [{ text: 'hi' }] } }, stopReason: 'end_turn', usage: converseUsage(c), metrics: { latencyMs: 3 } }));
    const record = throughTap('/v1/model/m/converse', (r) => new JsonUsageTap(r, () => {}, 0, 'converse'), cutAt(body, offsets));
    expect(record.usage).toMatchObject(whole(c));
    expect(record.modelAnswered).toBeNull();
  });
});
