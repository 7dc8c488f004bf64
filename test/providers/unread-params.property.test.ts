// What a translation does with chat parameters its family's API has no field for: the documented
// hints (seed, penalties, caching and billing keys, the caller) are dropped, and leave the translated
// request exactly as it is without them; any other parameter it does not read (reasoning_effort,
// modalities, a misspelt temprature) is a 400 unsupported_parameter naming it, never dropped.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../runtime/core/errors.ts';
import { toMessagesRequest } from '../../runtime/providers/anthropic/request.ts';
import { toPredictRequest } from '../../runtime/providers/cloudb/embeddings.ts';
import { toGenerateContentRequest } from '../../runtime/providers/cloudb/request.ts';
import { toConverseRequest } from '../../runtime/providers/cloudc/request.ts';
import { CHAT_PARAMS_READ, type ChatRequest, DROPPED_CHAT_HINTS } from '../../runtime/providers/shared/chat.ts';
import { chatRequestArb } from './chat-arbitraries.ts';

/** Each translating family, with the parameters beyond CHAT_PARAMS_READ that it maps. */
const FAMILIES: Array<{ name: string; translate: (chat: ChatRequest) => unknown; maps: string[] }> = [
  { name: 'messages', translate: (chat) => toMessagesRequest(chat, 'anthropic'), maps: ['top_k', 'user', 'thinking', 'parallel_tool_calls'] },
  { name: 'cloudb', translate: (chat) => toGenerateContentRequest(chat, 'cloudb'), maps: ['top_k', 'seed', 'presence_penalty', 'frequency_penalty'] },
  { name: 'cloudc', translate: (chat) => toConverseRequest(chat, 'cloudc'), maps: [] },
];

const hintValue = fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom('u-1', 'flex', 'conv-7'), fc.boolean(), fc.constant({ team: 'a' }));
/** Vendor chat parameters no translation maps, and names no API has. */
const UNMAPPED = ['reasoning_effort', 'verbosity', 'modalities', 'audio', 'prediction', 'web_search_options', 'functions', 'function_call', 'top_logprobs', 'temprature', 'x_custom'];

function refusal(run: () => unknown): GatewayError | null {
  try {
    run();
    return null;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
}

describe.each(FAMILIES)('$name translation', ({ translate, maps }) => {
  const reads = new Set([...CHAT_PARAMS_READ, ...maps]);
  const dropped = [...DROPPED_CHAT_HINTS].filter((name) => !reads.has(name));

  test.prop([chatRequestArb, fc.dictionary(fc.constantFrom(...dropped), hintValue, { minKeys: 1 })], { numRuns: 60 })(
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
