// A document in a chat message (the vendor's `file` part: a PDF inline as a data URL, with its file
// name), through the chat translations with the official OpenAI SDK: the messages API gets a
// `document` block (the name as its title), converse a `document` (a name of the characters it
// takes), Gemini an `inlineData` part; plain text goes to Claude as a text document. A file_id (the
// vendor's Files API) and a type a family does not read are refused before anything is sent. The
// mocks refuse what the services refuse (a document block's source, converse's names and formats,
// Gemini's MIME types).
import OpenAI from 'openai';
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveTranslatedFamilies, type TranslatedFamilies } from './translated-families.ts';

const KEY = 'gw-documents';
let families: TranslatedFamilies;

beforeAll(async () => {
  families = await serveTranslatedFamilies('documents', KEY, (targets) => ({ claude: targets.anthropic, converse: targets.cloudc, gemini: targets.cloudb }));
});

afterAll(() => families?.close());

const client = (config: string) => new OpenAI({ baseURL: `${families.served.gateway.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': KEY, 'x-gateway-config': config } });
const MODEL = { claude: 'claude-sonnet-4-6', converse: 'us.anthropic.claude-sonnet-4-6', gemini: 'gemini-2.5-flash' } as const;
const PDF = Buffer.from('%PDF-1.7 a quarterly report').toString('base64');

function fileOf(mediaType: string, data: string, filename?: string): ChatCompletionContentPart {
  return { type: 'file', file: { file_data: `data:${mediaType};base64,${data}`, ...(filename === undefined ? {} : { filename }) } };
}

/** The body the family's mock received last. */
function lastSent(config: keyof typeof MODEL): Record<string, any> {
  const mock = config === 'claude' ? families.messages : config === 'converse' ? families.cloudc : families.cloudb;
  return mock.requests.filter((r) => r.method === 'POST').at(-1)!.json as Record<string, any>;
}

describe.each(['claude', 'converse', 'gemini'] as const)('a PDF in a chat message (%s)', (config) => {
  it('reaches the model as the family\'s own document, beside the words', async () => {
    const answer = await client(config).chat.completions.create({ model: MODEL[config], messages: [{ role: 'user', content: [{ type: 'text', text: 'Summarise it' }, fileOf('application/pdf', PDF, 'Q3 report.v2.pdf')] }] });
    expect(answer.choices[0]!.message.content).toContain('Summarise it');
    const sent = lastSent(config);
    if (config === 'claude') expect(sent.messages[0].content[1]).toEqual({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF }, title: 'Q3 report.v2.pdf' });
    if (config === 'converse') expect(sent.messages[0].content[1]).toEqual({ document: { format: 'pdf', name: 'Q3 report v2 pdf', source: { bytes: PDF } } });
    if (config === 'gemini') expect(sent.contents[0].parts[1]).toEqual({ inlineData: { mimeType: 'application/pdf', data: PDF } });
  });

  it('refuses a file_id and a type the family does not read, before anything is sent', async () => {
    const mock = config === 'claude' ? families.messages : config === 'converse' ? families.cloudc : families.cloudb;
    const before = mock.requests.length;
    const byId = { type: 'file', file: { file_id: 'file-abc123' } } as ChatCompletionContentPart;
    await expect(client(config).chat.completions.create({ model: MODEL[config], messages: [{ role: 'user', content: [byId] }] })).rejects.toMatchObject({ status: 400, code: 'unsupported_parameter', message: expect.stringContaining('file_id') });
    await expect(client(config).chat.completions.create({ model: MODEL[config], messages: [{ role: 'user', content: [fileOf('application/zip', 'UEsDBA==')] }] })).rejects.toMatchObject({ status: 400, code: 'unsupported_parameter', message: expect.stringContaining('application/zip') });
    expect(mock.requests.length).toBe(before);
  });
});

it('sends plain text to Claude as a text document, and a spreadsheet to converse in its format', async () => {
  await client('claude').chat.completions.create({ model: MODEL.claude, messages: [{ role: 'user', content: [fileOf('text/plain', Buffer.from('line one\nline two').toString('base64'), 'notes.txt')] }] });
  expect(lastSent('claude').messages[0].content[0]).toEqual({ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'line one\nline two' }, title: 'notes.txt' });
  const xlsx = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
  await client('converse').chat.completions.create({ model: MODEL.converse, messages: [{ role: 'user', content: [{ type: 'text', text: 'Totals?' }, fileOf(xlsx, 'UEsDBA==')] }] });
  expect(lastSent('converse').messages[0].content[1]).toEqual({ document: { format: 'xlsx', name: 'document', source: { bytes: 'UEsDBA==' } } });
  await expect(client('claude').chat.completions.create({ model: MODEL.claude, messages: [{ role: 'user', content: [fileOf(xlsx, 'UEsDBA==')] }] })).rejects.toMatchObject({ status: 400, code: 'unsupported_parameter' });
});
