// A translating provider family (messages API, generateContent, converse) may answer with a shape
// its API does not document: null where an object belongs, a list for a string, a number for a
// list. Whatever the JSON, answer or stream event, the translation never throws a JavaScript error
// at the client: a JSON answer becomes a chat completion or a 502 provider_invalid_response that says
// the shape is undocumented; a stream ends with [DONE] or with one error event saying the same.
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { GatewayError } from '../../runtime/core/errors.ts';
import { anthropicAdapter } from '../../runtime/providers/anthropic/index.ts';
import { cloudbAdapter } from '../../runtime/providers/cloudb/index.ts';
import { cloudcAdapter } from '../../runtime/providers/cloudc/index.ts';
import { mapResponse } from '../../runtime/providers/shared/mapped-response.ts';
import type { ProviderAdapter, ResponseMapping } from '../../runtime/providers/types.ts';
import type { UpstreamResponse } from '../../runtime/upstream/types.ts';
import { eventMessage } from '../mocks/cloudc/index.ts';
import { prepare } from './adapter-calls.ts';
import { sseFrames } from './gateway.ts';

const RUNS = { numRuns: 150 };
type Json = unknown;

/** Every path to a value inside `value`, the root included. */
function paths(value: Json, at: Array<string | number> = []): Array<Array<string | number>> {
  const here = [at];
  if (Array.isArray(value)) return [...here, ...value.flatMap((item, i) => paths(item, [...at, i]))];
  if (value !== null && typeof value === 'object') return [...here, ...Object.entries(value).flatMap(([k, v]) => paths(v, [...at, k]))];
  return here;
}

/** `value` with the value at `path` replaced. */
function replaced(value: Json, path: Array<string | number>, by: Json): Json {
  if (path.length === 0) return by;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, Json>;
  copy[path[0]] = replaced(copy[path[0]], path.slice(1), by);
  return copy;
}

const hostile = fc.oneof(fc.constantFrom<Json>(null, [], {}, 0, -1, '', 'x', true, [null], { type: null }), fc.jsonValue({ maxDepth: 2 }));

/** A documented answer or event with one of its values, anywhere, swapped for something else. */
function broken(valid: Json): fc.Arbitrary<Json> {
  const all = paths(valid);
  return fc.tuple(fc.nat(all.length - 1), hostile).map(([i, by]) => replaced(valid, all[i], by));
}

interface Family {
  name: string;
  adapter: () => ProviderAdapter;
  options: Record<string, unknown>;
  answer: Json;
  events: Array<[string, Json]>;
  /** The stream on the wire: SSE, or the binary event stream. */
  wire(events: Array<[string, Json]>): Buffer;
}

const sse = (events: Array<[string, Json]>): Buffer => Buffer.from(events.map(([type, data]) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`).join(''));

const FAMILIES: Family[] = [
  {
    name: 'messages API',
    adapter: () => anthropicAdapter(),
    options: {},
    answer: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'hi' }, { type: 'tool_use', id: 't1', name: 'f', input: { a: 1 } }], stop_reason: 'tool_use', stop_sequence: null, usage: { input_tokens: 3, output_tokens: 4 } },
    events: [
      ['message_start', { type: 'message_start', message: { id: 'msg_1', model: 'm', content: [], usage: { input_tokens: 3, output_tokens: 1 } } }],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } }],
      ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 't1', name: 'f', input: {} } }],
      ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"a":1}' } }],
      ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 4 } }],
      ['message_stop', { type: 'message_stop' }],
    ],
    wire: sse,
  },
  {
    name: 'generateContent',
    adapter: () => cloudbAdapter(),
    options: { cloudb_region: 'us-central1', cloudb_project_id: 'p' },
    answer: { candidates: [{ content: { role: 'model', parts: [{ text: 'hi' }, { functionCall: { name: 'f', args: { a: 1 } } }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 4, totalTokenCount: 7 }, modelVersion: 'm', responseId: 'r1' },
    events: [
      ['', { candidates: [{ content: { role: 'model', parts: [{ text: 'hi' }] }, index: 0 }], responseId: 'r1' }],
      ['', { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'f', args: { a: 1 } } }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 4 } }],
    ],
    wire: (events) => Buffer.from(events.map(([, data]) => `data: ${JSON.stringify(data)}\r\n\r\n`).join('')),
  },
  {
    name: 'converse',
    adapter: () => cloudcAdapter(),
    options: { cloudc_region: 'us-east-1' },
    answer: { output: { message: { role: 'assistant', content: [{ text: 'hi' }, { toolUse: { toolUseId: 't1', name: 'f', input: { a: 1 } } }] } }, stopReason: 'tool_use', usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 }, metrics: { latencyMs: 1 } },
    events: [
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'hi' } }],
      ['contentBlockStart', { contentBlockIndex: 1, start: { toolUse: { toolUseId: 't1', name: 'f' } } }],
      ['contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '{"a":1}' } } }],
      ['messageStop', { stopReason: 'tool_use' }],
      ['metadata', { usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 }, metrics: { latencyMs: 1 } }],
    ],
    wire: (events) => Buffer.concat(events.map(([type, data]) => eventMessage(type, data as object))),
  },
];

function upstream(body: Buffer, contentType: string): UpstreamResponse {
  return { status: 200, headers: { 'content-type': contentType }, readAll: async () => body, forwardTo: () => Promise.reject(new Error('not used')), discard: () => {} };
}

async function mapping(family: Family, stream: boolean): Promise<ResponseMapping> {
  const body = { model: 'm', messages: [{ role: 'user', content: 'x' }], stream, ...(stream ? { stream_options: { include_usage: true } } : {}) };
  return (await prepare(family.adapter(), { body, options: family.options })).response!;
}

describe.each(FAMILIES)('$name answers of undocumented shapes', (family) => {
  test.prop([fc.oneof(broken(family.answer), fc.jsonValue({ maxDepth: 3 }))], RUNS)('a JSON answer becomes a chat completion or a 502 that names the shape', async (answer) => {
    const mapped = mapResponse(upstream(Buffer.from(JSON.stringify(answer)), 'application/json'), await mapping(family, false));
    try {
      const completion = JSON.parse((await mapped.readAll()).toString('utf8')) as { object: string };
      expect(completion.object).toBe('chat.completion');
    } catch (error) {
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({ code: 'provider_invalid_response', status: 502 });
      expect((error as Error).message).toBe("The provider's answer does not have the shape its API documents, so it cannot be translated.");
    }
  });

  test.prop([fc.integer({ min: 400, max: 599 }), fc.oneof(fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)), fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify({ error: v, message: v, type: v })), fc.string())], RUNS)('an error answer of any body becomes the gateway error body, never a throw', async (status, body) => {
    const mapped = mapResponse({ ...upstream(Buffer.from(body), 'application/json'), status }, await mapping(family, false));
    const error = (JSON.parse((await mapped.readAll()).toString('utf8')) as { error: { message: unknown; provider: unknown } }).error;
    expect(typeof error.message).toBe('string');
    expect(error.provider).toBe(family.adapter().name);
  });

  test.prop([fc.nat(family.events.length - 1).chain((i) => fc.tuple(fc.constant(i), broken(family.events[i][1])))], RUNS)('a stream with one event of another shape ends with [DONE] or one error event, never a throw', async ([at, event]) => {
    const events = family.events.map((e, i): [string, Json] => (i === at ? [e[0], event] : e));
    const mapped = mapResponse(upstream(family.wire(events), 'text/event-stream'), await mapping(family, true));
    const frames = sseFrames((await mapped.readAll()).toString('utf8'));
    const last = frames.at(-1)!;
    if (last.data === '[DONE]') {
      for (const frame of frames.slice(0, -1)) expect((JSON.parse(frame.data) as { object: string }).object).toBe('chat.completion.chunk');
    } else {
      expect(last.event).toBe('error');
      expect(frames.filter((f) => f.event === 'error')).toHaveLength(1);
      const error = (JSON.parse(last.data) as { error: { code: string; message: string } }).error;
      expect(typeof error.message).toBe('string');
      expect(error.message).not.toMatch(/Cannot read|is not a function|is not iterable|undefined or null/);
    }
  });
});
