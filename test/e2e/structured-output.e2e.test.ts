// Structured outputs through the chat translations, with the official OpenAI SDK: a json_schema
// response_format reaches Claude (the messages API and converse) as its own answer format, and the
// answer is JSON that the client's schema accepts; a strict tool is strict there, and its arguments
// match its parameters; Gemini, which cannot enforce a tool's arguments, refuses a strict tool before
// anything is sent; a model too old for structured outputs answers with its own refusal. The mocks
// enforce the schemas as constrained decoding does (../mocks/http/structured-output.ts). The emulated
// Responses API's text.format and strict tools go the same way.
import { Ajv2020 } from 'ajv/dist/2020.js';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveTranslatedFamilies, type TranslatedFamilies } from './translated-families.ts';

const KEY = 'gw-structured-output';
let families: TranslatedFamilies;

beforeAll(async () => {
  families = await serveTranslatedFamilies('structured-output', KEY, (targets) => ({ claude: targets.anthropic, converse: targets.cloudc, gemini: targets.cloudb }));
});

afterAll(() => families?.close());

const client = (config: string) => new OpenAI({ baseURL: `${families.served.gateway.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': KEY, 'x-gateway-config': config } });
const MODEL = { claude: 'claude-sonnet-4-6', converse: 'us.anthropic.claude-sonnet-4-6' } as const;

const PERSON = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 }, tags: { type: 'array', items: { type: 'string' }, minItems: 1 }, role: { type: 'string', enum: ['admin', 'user'] } },
  required: ['name', 'age', 'tags', 'role'],
  additionalProperties: false,
};
const accepts = (schema: object, value: unknown): boolean => new Ajv2020({ strict: false }).validate(schema, value) as boolean;

describe.each(['claude', 'converse'] as const)('structured outputs to Claude (%s)', (config) => {
  const model = MODEL[config];

  it('a json_schema answer format: the provider gets the schema, the client JSON its schema accepts, streamed or not', async () => {
    const response_format = { type: 'json_schema' as const, json_schema: { name: 'person', schema: PERSON, strict: true } };
    const answer = await client(config).chat.completions.create({ model, messages: [{ role: 'user', content: 'John Smith is 42' }], response_format });
    const content = JSON.parse(answer.choices[0]!.message.content ?? '');
    expect(accepts(PERSON, content)).toBe(true);
    const sent = (config === 'claude' ? families.messages : families.cloudc).requests.at(-1)!.json as Record<string, any>;
    if (config === 'claude') expect(sent.output_config).toEqual({ format: { type: 'json_schema', schema: PERSON } });
    else expect(JSON.parse(sent.outputConfig.textFormat.structure.jsonSchema.schema)).toEqual(PERSON);
    const stream = await client(config).chat.completions.create({ model, messages: [{ role: 'user', content: 'Ada is 36' }], response_format, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(accepts(PERSON, JSON.parse(text))).toBe(true);
  });

  it('a strict tool: strict at the provider, its arguments matching its parameters', async () => {
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [{ type: 'function', function: { name: 'save_person', parameters: PERSON, strict: true } }];
    const answer = await client(config).chat.completions.create({ model, messages: [{ role: 'user', content: 'save Grace, 85' }], tools });
    const call = answer.choices[0]!.message.tool_calls?.[0] as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall | undefined;
    expect(call?.function.name).toBe('save_person');
    expect(accepts(PERSON, JSON.parse(call!.function.arguments))).toBe(true);
  });

  it('a model before structured outputs answers with its own refusal; an answer format without a schema is refused before sending', async () => {
    const older = config === 'claude' ? 'claude-3-7-sonnet-20250219' : 'anthropic.claude-3-7-sonnet-20250219-v1:0';
    const response_format = { type: 'json_schema' as const, json_schema: { name: 'person', schema: PERSON } };
    await expect(client(config).chat.completions.create({ model: older, messages: [{ role: 'user', content: 'hi' }], response_format })).rejects.toMatchObject({ status: 400, message: expect.stringContaining('Structured outputs are not supported') });
    const mock = config === 'claude' ? families.messages : families.cloudc;
    const before = mock.requests.length;
    await expect(client(config).chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], response_format: { type: 'json_object' } })).rejects.toMatchObject({ status: 400, code: 'unsupported_parameter', param: 'response_format' });
    expect(mock.requests.length).toBe(before);
  });
});

it('Gemini refuses a strict tool before anything is sent', async () => {
  const generations = () => families.cloudb.requests.filter((r) => r.path.includes(':generateContent')).length;
  const before = generations();
  const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }, { type: 'function', function: { name: 'save', parameters: PERSON, strict: true } }];
  await expect(client('gemini').chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }], tools })).rejects.toMatchObject({ status: 400, code: 'unsupported_parameter', param: '/tools/1/function/strict' });
  expect(generations()).toBe(before);
});

it('Gemini takes a tool\'s JSON Schema as the client wrote it ($schema, additionalProperties, const: what MCP and zod tools carry), which its OpenAPI-subset field refuses', async () => {
  const parameters = {
    $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', additionalProperties: false,
    properties: { path: { type: 'string' }, mode: { const: 'read' }, limit: { type: 'integer', exclusiveMinimum: 0 } }, required: ['path'],
  };
  const answer = await client('gemini').chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'read notes.txt' }], tools: [{ type: 'function', function: { name: 'read_file', description: 'Reads a file', parameters } }] });
  expect(answer.choices[0]!.message.tool_calls?.[0]).toMatchObject({ type: 'function', function: { name: 'read_file' } });
  const sent = families.cloudb.requests.filter((r) => r.path.includes(':generateContent')).at(-1)!.json as Record<string, any>;
  expect(sent.tools).toEqual([{ functionDeclarations: [{ name: 'read_file', description: 'Reads a file', parametersJsonSchema: parameters }] }]);
});

it('the emulated Responses API\'s text.format json_schema reaches Claude as its answer format: output_text is JSON the schema accepts', async () => {
  const created = await client('claude').responses.create({ model: 'claude-sonnet-4-6', input: 'Linus is 55', text: { format: { type: 'json_schema', name: 'person', schema: PERSON, strict: true } } });
  expect(created.status).toBe('completed');
  expect(accepts(PERSON, JSON.parse(created.output_text))).toBe(true);
  expect((families.messages.requests.at(-1)!.json as Record<string, any>).output_config).toEqual({ format: { type: 'json_schema', schema: PERSON } });
  // A strict function tool where it cannot be enforced names the Responses field.
  await expect(client('gemini').responses.create({ model: 'gemini-2.5-flash', input: 'hi', tools: [{ type: 'function', name: 'save', parameters: PERSON, strict: true }] }))
    .rejects.toMatchObject({ status: 400, code: 'unsupported_parameter', param: '/tools/0/strict' });
});
