// The chat API's structured outputs through the translations: a json_schema response_format reaches
// the messages API as output_config.format and converse as outputConfig.textFormat (its schema as
// JSON text that parses back to the very schema), a strict tool is strict there and nothing else
// changes; generateContent, which cannot enforce a tool's arguments, refuses a strict tool by its
// pointer; an answer format without a schema is refused where only schemas are enforced.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { toMessagesRequest } from '../../runtime/providers/anthropic/request.ts';
import { toGenerateContentRequest } from '../../runtime/providers/cloudb/request.ts';
import { toConverseRequest } from '../../runtime/providers/cloudc/request.ts';
import type { ChatRequest } from '../../runtime/providers/shared/chat.ts';
import { thrownBy as refusal } from './adapter-calls.ts';
import { chatRequestArb } from './chat-arbitraries.ts';

type Json = Record<string, any>;

/** JSON schemas of the shapes a client sends: objects of typed properties, nested, with required lists and enums. */
const schemaArb: fc.Arbitrary<Json> = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.constantFrom({ type: 'string' }, { type: 'integer', minimum: 1 }, { type: 'number' }, { type: 'boolean' }),
    fc.record({ type: fc.constant('string'), enum: fc.uniqueArray(fc.string({ minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 3 }) }),
  ),
  node: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('object'), fc.record({ type: fc.constant('array'), items: tie('node'), minItems: fc.integer({ min: 0, max: 2 }) })),
  object: fc.dictionary(fc.stringMatching(/^[a-z_]{1,8}$/), tie('node'), { minKeys: 1, maxKeys: 4 }).map((properties) => ({
    type: 'object', properties, required: Object.keys(properties), additionalProperties: false,
  })),
})).object as fc.Arbitrary<Json>;

const withFormat = (chat: ChatRequest, schema: Json, name = 'answer'): ChatRequest => ({ ...chat, response_format: { type: 'json_schema', json_schema: { name, schema, strict: true } } });

describe('an answer schema', () => {
  test.prop([chatRequestArb, schemaArb], { numRuns: 60 })('the messages API: output_config.format with the very schema, and nothing else changed', (chat, schema) => {
    const sent = toMessagesRequest(withFormat(chat, schema), 'anthropic') as Json;
    expect(sent.output_config).toEqual({ format: { type: 'json_schema', schema } });
    const { output_config: _, ...rest } = sent;
    expect(rest).toEqual(toMessagesRequest(chat, 'anthropic'));
  });

  test.prop([chatRequestArb, schemaArb], { numRuns: 60 })('converse: outputConfig.textFormat, its schema JSON text that parses back to the schema', (chat, schema) => {
    const sent = toConverseRequest(withFormat(chat, schema, 'person'), 'cloudc') as Json;
    expect(sent.outputConfig.textFormat).toMatchObject({ type: 'json_schema', structure: { jsonSchema: { name: 'person' } } });
    expect(JSON.parse(sent.outputConfig.textFormat.structure.jsonSchema.schema)).toEqual(schema);
    const { outputConfig: _, ...rest } = sent;
    expect(rest).toEqual(toConverseRequest(chat, 'cloudc'));
  });

  it('beside an effort, one output_config holds both', () => {
    const chat = withFormat({ model: 'claude-opus-4-7', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'low' }, { type: 'object', properties: {} });
    expect((toMessagesRequest(chat, 'anthropic') as Json).output_config).toEqual({ effort: 'low', format: { type: 'json_schema', schema: { type: 'object', properties: {} } } });
    const converse = toConverseRequest({ ...chat, model: 'us.anthropic.claude-opus-4-7' }, 'cloudc') as Json;
    expect(Object.keys(converse.outputConfig).sort()).toEqual(['effort', 'textFormat']);
  });

  it('refuses a format without a schema, and JSON without one, where only schemas are enforced', () => {
    const chat: ChatRequest = { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] };
    for (const translate of [(c: ChatRequest) => toMessagesRequest(c, 'anthropic'), (c: ChatRequest) => toConverseRequest(c, 'cloudc')]) {
      expect(refusal(() => translate({ ...chat, response_format: { type: 'json_object' } }))).toMatchObject({ code: 'unsupported_parameter', param: 'response_format' });
      expect(refusal(() => translate({ ...chat, response_format: { type: 'json_schema', json_schema: { name: 'x' } } } as ChatRequest))).toMatchObject({ code: 'invalid_request_body', param: '/response_format/json_schema/schema' });
      expect(refusal(() => translate({ ...chat, response_format: { type: 'text' } }))).toBeNull();
    }
  });
});

describe('a strict tool', () => {
  const toolsArb = fc.array(fc.record({ name: fc.stringMatching(/^[a-z]{1,8}$/), strict: fc.option(fc.boolean(), { nil: undefined }) }), { minLength: 1, maxLength: 4 })
    .map((tools) => tools.map((tool, i) => ({ type: 'function' as const, function: { name: `${tool.name}${i}`, parameters: { type: 'object', properties: {} }, ...(tool.strict === undefined ? {} : { strict: tool.strict }) } })));

  test.prop([chatRequestArb, toolsArb], { numRuns: 60 })('is strict on the messages API and converse, exactly the tools asked', (base, tools) => {
    const chat = { ...base, tools };
    const strict = tools.map((tool) => tool.function.strict === true);
    expect(((toMessagesRequest(chat, 'anthropic') as Json).tools as Json[]).map((tool) => tool.strict === true)).toEqual(strict);
    const specs = ((toConverseRequest(chat, 'cloudc') as Json).toolConfig.tools as Json[]).filter((t) => t.toolSpec !== undefined);
    expect(specs.map((t) => t.toolSpec.strict === true)).toEqual(strict);
  });

  test.prop([chatRequestArb, toolsArb], { numRuns: 60 })('generateContent refuses it, pointing at the first', (base, tools) => {
    const error = refusal(() => toGenerateContentRequest({ ...base, tools }, 'cloudb'));
    const first = tools.findIndex((tool) => tool.function.strict === true);
    if (first < 0) expect(error).toBeNull();
    else expect(error).toMatchObject({ code: 'unsupported_parameter', param: `/tools/${first}/function/strict` });
  });
});
