// A provider answer read as JSON and the same answer read as the provider's stream, cut anywhere,
// give the same chat completion: content, tool calls (ids, names, arguments), finish reason and
// usage. The streams are encoded here as each API documents them (SSE event sequences, and the
// binary event-stream framing through the cloud C mock's own encoder).
import { describe, expect } from 'vitest';
import { test } from '@fast-check/vitest';
import fc from 'fast-check';
import { anthropicAdapter } from '../../runtime/providers/anthropic/index.ts';
import { cloudbAdapter } from '../../runtime/providers/cloudb/index.ts';
import { cloudcAdapter } from '../../runtime/providers/cloudc/index.ts';
import type { PreparedCall, StreamMapper } from '../../runtime/providers/types.ts';
import { eventMessage } from '../mocks/cloudc/index.ts';
import { prepare } from './adapter-calls.ts';
import { text } from './chat-arbitraries.ts';
import { sseFrames } from './gateway.ts';
import { cutAt } from '../support/cut.ts';

type Json = Record<string, any>;

interface Answer {
  blocks: ({ kind: 'text'; text: string } | { kind: 'tool'; id: string; name: string; input: Json })[];
  stop: 'end' | 'length' | 'tool';
  input: number;
  output: number;
}

const answerArb: fc.Arbitrary<Answer> = fc.record({
  texts: fc.array(text, { maxLength: 2 }),
  tools: fc.array(fc.record({ name: fc.stringMatching(/^[a-z_]{1,8}$/), input: fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), fc.oneof(fc.string({ maxLength: 6 }), fc.integer())) }), { maxLength: 2 }),
  stop: fc.constantFrom('end', 'length'),
  input: fc.nat({ max: 5000 }),
  output: fc.nat({ max: 5000 }),
}).filter((a) => a.texts.length + a.tools.length > 0).map((a) => ({
  blocks: [...a.texts.map((t) => ({ kind: 'text' as const, text: t })), ...a.tools.map((t, i) => ({ kind: 'tool' as const, id: `tool_${i}_${t.name}`, ...t }))],
  stop: a.tools.length > 0 ? 'tool' as const : a.stop as 'end' | 'length',
  input: a.input,
  output: a.output,
}));

/** Text cut at generated points, without empty pieces. */
function split(value: string, cuts: number[]): string[] {
  return cutAt(value, cuts).filter((p) => p !== '');
}

/** What a client assembles from chat chunks (as the vendor SDK's stream helper does). */
function assemble(sse: string): Json {
  const frames = sseFrames(sse);
  expect(frames.at(-1)?.data).toBe('[DONE]');
  let content = '';
  let finish: string | null = null;
  let usage: Json | null = null;
  const tools: Json[] = [];
  for (const frame of frames.slice(0, -1)) {
    const chunk = JSON.parse(frame.data);
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (choice === undefined) continue;
    content += choice.delta.content ?? '';
    finish = choice.finish_reason ?? finish;
    for (const call of choice.delta.tool_calls ?? []) {
      tools[call.index] ??= { id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } };
      tools[call.index].function.arguments += call.function.arguments ?? '';
    }
  }
  return { content, tools, finish, usage };
}

function fromCompletion(completion: Json): Json {
  const message = completion.choices[0].message;
  return { content: message.content ?? '', tools: message.tool_calls ?? [], finish: completion.choices[0].finish_reason, usage: completion.usage };
}

function run(mapper: StreamMapper, chunks: Buffer[]): string {
  return chunks.map((c) => mapper.push(c)).join('') + mapper.end();
}

const chat = (stream: boolean) => ({ model: 'm', messages: [{ role: 'user', content: 'x' }], stream, ...(stream ? { stream_options: { include_usage: true } } : {}) });

async function mappings(adapter: typeof anthropicAdapter | typeof cloudbAdapter | typeof cloudcAdapter, options: Json): Promise<{ json: PreparedCall; stream: PreparedCall }> {
  const a = adapter();
  return { json: await prepare(a, { body: chat(false), options }), stream: await prepare(a, { body: chat(true), options }) };
}

const cuts = fc.array(fc.nat(), { maxLength: 6 });

describe('stream and JSON answers map to the same completion', () => {
  test.prop([answerArb, cuts, cuts])('messages API', async (answer, textCuts, byteCuts) => {
    const { json, stream } = await mappings(anthropicAdapter, {});
    const stopReason = { end: 'end_turn', length: 'max_tokens', tool: 'tool_use' }[answer.stop];
    const usage = { input_tokens: answer.input, output_tokens: answer.output };
    const content = answer.blocks.map((b) => (b.kind === 'text' ? { type: 'text', text: b.text } : { type: 'tool_use', id: b.id, name: b.name, input: b.input }));
    const fromJson = json.response!.json!({ id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content, stop_reason: stopReason, stop_sequence: null, usage });
    const events: string[] = [];
    const sse = (type: string, data: Json) => events.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    sse('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], usage: { input_tokens: answer.input, output_tokens: 1 } } });
    answer.blocks.forEach((b, index) => {
      if (b.kind === 'text') {
        sse('content_block_start', { index, content_block: { type: 'text', text: '' } });
        for (const piece of split(b.text, textCuts)) sse('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
      } else {
        sse('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
        for (const piece of split(JSON.stringify(b.input), textCuts)) sse('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
      }
      sse('content_block_stop', { index });
      if (index === 0) sse('ping', {});
    });
    sse('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: answer.output } });
    sse('message_stop', {});
    const streamed = assemble(run(stream.response!.stream!(), cutAt(Buffer.from(events.join('')), byteCuts)));
    expect(streamed).toEqual(fromCompletion(fromJson as Json));
  });

  test.prop([answerArb, cuts, cuts])('generateContent', async (answer, textCuts, byteCuts) => {
    const { json, stream } = await mappings(cloudbAdapter, { cloudb_region: 'us-central1', cloudb_project_id: 'p' });
    const finishReason = { end: 'STOP', length: 'MAX_TOKENS', tool: 'STOP' }[answer.stop];
    const usageMetadata = { promptTokenCount: answer.input, candidatesTokenCount: answer.output, totalTokenCount: answer.input + answer.output };
    const parts: ({ text: string } | { functionCall: { name: string; args: Json } })[] = answer.blocks.map((b) => (b.kind === 'text' ? { text: b.text } : { functionCall: { name: b.name, args: b.input } }));
    const fromJson = json.response!.json!({ candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }], usageMetadata, modelVersion: 'm', responseId: 'r1' }) as Json;
    const events: Json[] = [];
    for (const part of parts) {
      if ('text' in part) for (const piece of split(part.text, textCuts)) events.push({ candidates: [{ content: { role: 'model', parts: [{ text: piece }] }, index: 0 }] });
      else events.push({ candidates: [{ content: { role: 'model', parts: [part] }, index: 0 }] });
    }
    events.push({ candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason, index: 0 }], usageMetadata });
    const wire = Buffer.from(events.map((e) => `data: ${JSON.stringify({ ...e, modelVersion: 'm', responseId: 'r1' })}\r\n\r\n`).join(''));
    const streamed = assemble(run(stream.response!.stream!(), cutAt(wire, byteCuts)));
    // The provider gives function calls no ids; the gateway makes them, so compare without.
    expect(withoutIds(streamed)).toEqual(withoutIds(fromCompletion(fromJson)));
  });

  test.prop([answerArb, cuts, cuts])('converse', async (answer, textCuts, byteCuts) => {
    const { json, stream } = await mappings(cloudcAdapter, { cloudc_region: 'us-east-1' });
    const stopReason = { end: 'end_turn', length: 'max_tokens', tool: 'tool_use' }[answer.stop];
    const usage = { inputTokens: answer.input, outputTokens: answer.output, totalTokens: answer.input + answer.output };
    const content = answer.blocks.map((b) => (b.kind === 'text' ? { text: b.text } : { toolUse: { toolUseId: b.id, name: b.name, input: b.input } }));
    const fromJson = json.response!.json!({ output: { message: { role: 'assistant', content } }, stopReason, usage, metrics: { latencyMs: 1 } }) as Json;
    const messages: Buffer[] = [eventMessage('messageStart', { role: 'assistant' })];
    answer.blocks.forEach((b, contentBlockIndex) => {
      if (b.kind === 'text') {
        for (const piece of split(b.text, textCuts)) messages.push(eventMessage('contentBlockDelta', { contentBlockIndex, delta: { text: piece } }));
      } else {
        messages.push(eventMessage('contentBlockStart', { contentBlockIndex, start: { toolUse: { toolUseId: b.id, name: b.name } } }));
        for (const piece of split(JSON.stringify(b.input), textCuts)) messages.push(eventMessage('contentBlockDelta', { contentBlockIndex, delta: { toolUse: { input: piece } } }));
      }
      messages.push(eventMessage('contentBlockStop', { contentBlockIndex }));
    });
    messages.push(eventMessage('messageStop', { stopReason }), eventMessage('metadata', { usage, metrics: { latencyMs: 1 } }));
    const streamed = assemble(run(stream.response!.stream!(), cutAt(Buffer.concat(messages), byteCuts)));
    expect(streamed).toEqual(fromCompletion(fromJson));
  });
});

function withoutIds(value: Json): Json {
  return { ...value, tools: value.tools.map((t: Json) => ({ ...t, id: typeof t.id })) };
}
