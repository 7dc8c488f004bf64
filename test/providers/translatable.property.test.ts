// What a translation does with chat parameters its family's API has no field for: the documented
// hints (seed, penalties, caching and billing keys, the caller) are dropped, and leave the translated
// request exactly as it is without them; any other parameter it does not read (verbosity,
// modalities, a misspelt temprature) is a 400 unsupported_parameter naming it, never dropped. And
// whatever shape a field it reads has, the translation answers or refuses with a gateway error:
// never a failure inside it (a tool without its function once was a 500).
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../runtime/core/errors.ts';
import { thrownBy as refusal } from './adapter-calls.ts';
import { toMessagesRequest } from '../../runtime/providers/anthropic/request.ts';
import { toPredictRequest } from '../../runtime/providers/cloudb/embeddings.ts';
import { toGenerateContentRequest } from '../../runtime/providers/cloudb/request.ts';
import { toConverseRequest } from '../../runtime/providers/cloudc/request.ts';
import type { ChatRequest } from '../../runtime/providers/shared/chat.ts';
import { CHAT_PARAMS_READ, DROPPED_CHAT_HINTS } from '../../runtime/providers/shared/translatable.ts';
import { chatRequestArb } from './chat-arbitraries.ts';

/** Each translating family, with the parameters beyond CHAT_PARAMS_READ that it maps. */
const FAMILIES: Array<{ name: string; translate: (chat: ChatRequest) => unknown; maps: string[] }> = [
  { name: 'messages', translate: (chat) => toMessagesRequest(chat, 'anthropic'), maps: ['top_k', 'user', 'thinking', 'reasoning_effort', 'parallel_tool_calls'] },
  { name: 'cloudb', translate: (chat) => toGenerateContentRequest(chat, 'cloudb'), maps: ['top_k', 'seed', 'presence_penalty', 'frequency_penalty', 'reasoning_effort', 'thinking'] },
  { name: 'cloudc', translate: (chat) => toConverseRequest(chat, 'cloudc'), maps: ['reasoning_effort'] },
];

const hintValue = fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom('u-1', 'flex', 'conv-7'), fc.boolean(), fc.constant({ team: 'a' }));
/** A value of each dropped hint in its vendor shape (a malformed one is refused before anything is dropped). */
const HINT_VALUES: Record<string, fc.Arbitrary<unknown>> = {
  seed: fc.integer({ min: 0, max: 1000 }),
  presence_penalty: fc.double({ min: -2, max: 2, noNaN: true }),
  frequency_penalty: fc.double({ min: -2, max: 2, noNaN: true }),
  logit_bias: fc.constant({ '50256': -100 }),
  user: fc.constantFrom('u-1', 'u-2'),
  metadata: fc.constant({ team: 'a' }),
  store: fc.boolean(),
  service_tier: fc.constantFrom('auto', 'flex'),
  prompt_cache_key: fc.constantFrom('conv-7'),
  prompt_cache_retention: fc.constantFrom('in_memory', '24h'),
  prompt_cache_options: fc.constantFrom({ mode: 'explicit' }, { mode: 'implicit', ttl: '1h' }),
  safety_identifier: fc.constantFrom('hash-1'),
  parallel_tool_calls: fc.boolean(),
};
/** Vendor chat parameters no translation maps, and names no API has. */
const UNMAPPED = ['verbosity', 'modalities', 'audio', 'prediction', 'web_search_options', 'functions', 'function_call', 'top_logprobs', 'temprature', 'x_custom'];

it('has a value for every dropped hint', () => {
  expect(Object.keys(HINT_VALUES).sort()).toEqual([...DROPPED_CHAT_HINTS].sort());
});

describe.each(FAMILIES)('$name translation', ({ translate, maps }) => {
  const reads = new Set([...CHAT_PARAMS_READ, ...maps]);
  const dropped = [...DROPPED_CHAT_HINTS].filter((name) => !reads.has(name));

  const hints = fc.record(Object.fromEntries(dropped.map((name) => [name, HINT_VALUES[name]])), { requiredKeys: [] }).filter((picked) => Object.keys(picked).length > 0);
  test.prop([chatRequestArb, hints], { numRuns: 60 })(
    'drops the hints it has no field for, and the request is the one sent without them',
    (chat, hints) => {
      expect(translate({ ...chat, ...hints })).toEqual(translate(chat));
    },
  );

  test.prop([chatRequestArb, fc.constantFrom(...UNMAPPED.filter((name) => !reads.has(name))), hintValue], { numRuns: 60 })(
    'refuses any other parameter it does not read, naming it',
    (chat, name, value) => {
      const error = refusal(() => translate({ ...chat, [name]: value }));
      expect(error?.code).toBe('unsupported_parameter');
      expect(error?.param).toBe(name);
      expect(error?.message).toContain(`no "${name}" parameter`);
    },
  );
});

it('cloud B embeddings: the caller is dropped, any parameter the translation does not read is refused', () => {
  const body = { model: 'text-embedding-005', input: ['a', 'b'], dimensions: 256, encoding_format: 'float' };
  expect(toPredictRequest({ ...body, user: 'u-1' }, 'cloudb')).toEqual(toPredictRequest(body, 'cloudb'));
  for (const name of ['task_type', 'input_type', 'truncate']) {
    const error = refusal(() => toPredictRequest({ ...body, [name]: 'x' }, 'cloudb'));
    expect(error).toMatchObject({ code: 'unsupported_parameter', param: name });
  }
});

/** Fields the translations read, and where in a message. */
const READ_FIELDS = ['tools', 'tool_choice', 'temperature', 'top_p', 'stop', 'max_tokens', 'n', 'response_format', 'stream_options', 'reasoning_effort', 'thinking', 'messages'];
const MESSAGE_FIELDS = ['role', 'content', 'tool_calls', 'tool_call_id'];

describe.each(FAMILIES)('$name translation of malformed input', ({ translate }) => {
  test.prop([chatRequestArb, fc.constantFrom(...READ_FIELDS, ...MESSAGE_FIELDS), fc.jsonValue({ maxDepth: 3 })], { numRuns: 150 })(
    'answers or refuses with a gateway error, whatever a read field holds',
    (chat, field, value) => {
      const broken: Record<string, unknown> = { ...chat };
      if (MESSAGE_FIELDS.includes(field)) broken.messages = chat.messages.map((message, i) => (i === 0 ? { ...message, [field]: value } : message));
      else broken[field] = value;
      try {
        translate(broken as ChatRequest);
      } catch (error) {
        expect(error).toBeInstanceOf(GatewayError);
      }
    },
  );
});

/** A user message's file part of any shape: members of any JSON, or a data URL of any media type. */
const filePart = fc.oneof(
  fc.record({ type: fc.constant('file'), file: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({
    type: fc.constant('file'),
    file: fc.record({
      file_data: fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.tuple(fc.constantFrom('application/pdf', 'text/plain', 'text/csv', 'application/zip', 'APPLICATION/PDF', 'image/png'), fc.base64String({ maxLength: 12 })).map(([type, data]) => `data:${type};base64,${data}`)),
      file_id: fc.jsonValue({ maxDepth: 0 }),
      filename: fc.oneof(fc.string({ maxLength: 30 }), fc.jsonValue({ maxDepth: 0 })),
    }, { requiredKeys: [] }),
  }),
);

describe.each(FAMILIES)('$name translation of a file part', ({ translate }) => {
  test.prop([fc.array(filePart, { minLength: 1, maxLength: 3 })], { numRuns: 150 })(
    'sends it as the family\'s document or refuses it with a gateway error, whatever it holds',
    (parts) => {
      try {
        translate({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'read these' }, ...parts] }] } as ChatRequest);
      } catch (error) {
        expect(error).toBeInstanceOf(GatewayError);
      }
    },
  );
});

describe.each(FAMILIES)('$name translation of stream_options', ({ translate }) => {
  const chat = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };
  it('takes include_usage and include_obfuscation: false on a stream', () => {
    expect(refusal(() => translate({ ...chat, stream: true, stream_options: { include_usage: true, include_obfuscation: false } } as ChatRequest))).toBeNull();
  });

  it('refuses it without a stream, an obfuscation it cannot add, and a member no one reads', () => {
    for (const [request, code, param] of [
      [{ ...chat, stream_options: { include_usage: true } }, 'invalid_request_body', '/stream_options'],
      [{ ...chat, stream: false, stream_options: { include_usage: true } }, 'invalid_request_body', '/stream_options'],
      [{ ...chat, stream: true, stream_options: { include_obfuscation: true } }, 'unsupported_parameter', '/stream_options/include_obfuscation'],
      [{ ...chat, stream: true, stream_options: { include_usge: true } }, 'invalid_request_body', '/stream_options/include_usge'],
    ] as const) {
      expect(refusal(() => translate(request as unknown as ChatRequest)), JSON.stringify(request)).toMatchObject({ code, param });
    }
  });
});
