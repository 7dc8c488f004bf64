// Guardrails on a family's own chat API called through the pass-through (the messages API,
// generateContent, converse, a Claude model's invoke, the invoke formats of Nova, Titan text, Llama and
// Mistral's text completion; and cloud B's embeddings), as the family's own clients call it: input
// checks judge the last user turn's text and deny before the provider is called, a redaction rewrites
// what the provider gets (cloud C's rewritten body signed again: its mock checks the signature),
// output redaction rewrites the answer in every framing (JSON, SSE, generateContent's JSON array, the
// binary event stream), and a check that only reports judges a stream at its end.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../jobs/harness.ts';
import { startCloudbMock, CLOUDB_PROJECT, CLOUDB_REGION, type CloudbMock } from '../mocks/cloudb/index.ts';
import { startCloudcMock, CLOUDC_ACCESS_KEY_ID, CLOUDC_REGION, CLOUDC_SECRET_ACCESS_KEY } from '../mocks/cloudc/index.ts';
import type { MockServer } from '../mocks/http/mock-server.ts';
import { startMessagesMock, MESSAGES_MOCK_KEY } from '../mocks/messages/index.ts';
import { EventStreamDecoder } from '../../runtime/providers/cloudc/event-stream.ts';
import { serveConfigs, type ServedConfigs } from './serve-in-process.ts';

const KEY = 'gw-guardrails-pass-through';
const EMAIL = 'jane.doe@example.com';
const NO_SECRET = { id: 'no-secret', deny: true, 'default.contains': { words: ['secret'], operator: 'none' } };
const PII = { id: 'pii', 'default.piiRedact': {} };
const SHORT = { id: 'short', 'default.wordCount': { maxWords: 3 } };
const CLOUDC_MODEL = 'anthropic.claude-3-7-sonnet-20250219-v1:0';
const CLOUDB_PATH = `/v1/projects/${CLOUDB_PROJECT}/locations/${CLOUDB_REGION}/publishers/google/models/gemini-2.0-flash`;

let served: ServedConfigs;
let messages: MockServer;
let cloudb: CloudbMock;
let cloudc: MockServer;
/** An after-request webhook: it answers the answer it got with every `text` member's "now" made "LATER", and keeps what it got. */
let webhook: Server;
const hooked: unknown[] = [];

/** The members an answer keeps its text in: its blocks' and parts' `text`, a Titan result's `outputText`, a Llama answer's `generation`, a chat message's `content`. */
const TEXT_MEMBERS = new Set(['text', 'outputText', 'generation', 'content']);

/** `value` with "now" made "LATER" in every string member that holds an answer's text. */
function later(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(later);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, TEXT_MEMBERS.has(key) && typeof member === 'string' ? member.replaceAll('now', 'LATER') : later(member)]));
}

type Family = 'messages' | 'cloudb' | 'cloudc';

beforeAll(async () => {
  [messages, cloudb, cloudc] = await Promise.all([startMessagesMock({ label: 'messages' }), startCloudbMock({ label: 'cloudb' }), startCloudcMock({ label: 'cloudc' })]);
  webhook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString()) as { response: { json: unknown } };
      hooked.push(event.response.json);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ verdict: true, transformedData: later(event.response.json) }));
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  const webhookURL = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/hook`;
  const targets: Record<Family, Record<string, unknown>> = {
    messages: { provider: 'anthropic', api_key: MESSAGES_MOCK_KEY, custom_host: messages.baseURL },
    cloudc: { provider: 'cloudc', custom_host: cloudc.url, cloudc_region: CLOUDC_REGION, cloudc_access_key_id: CLOUDC_ACCESS_KEY_ID, cloudc_secret_access_key: CLOUDC_SECRET_ACCESS_KEY },
    cloudb: { provider: 'cloudb', custom_host: `${cloudb.url}/v1`, cloudb_region: CLOUDB_REGION, cloudb_service_account_json: cloudb.serviceAccount },
  };
  const configs: Record<string, unknown> = {};
  for (const [family, target] of Object.entries(targets)) {
    configs[`${family}-in`] = { ...target, input_guardrails: [NO_SECRET, PII] };
    configs[`${family}-out`] = { ...target, output_guardrails: [PII] };
    configs[`${family}-soft`] = { ...target, output_guardrails: [SHORT] };
    configs[`${family}-deny`] = { ...target, output_guardrails: [NO_SECRET] };
    configs[`${family}-hook`] = { ...target, after_request_hooks: [{ id: 'later', checks: [{ id: 'default.webhook', parameters: { webhookURL } }] }] };
  }
  served = await serveConfigs('guardrails-pass-through', KEY, configs);
});

afterAll(async () => {
  await served?.close();
  await Promise.all([messages, cloudb, cloudc].map((m) => m?.close()));
  await new Promise((resolve) => webhook?.close(resolve));
});

/** One of a family's own chat calls: its path, its body for a system prompt and a question, and the answer's text as its client reads it. */
interface Call {
  name: string;
  family: Family;
  path: string;
  body(system: string, question: string): unknown;
  text(res: Response): Promise<string>;
}

const sseEvents = async (res: Response): Promise<any[]> => (await res.text()).split(/\r?\n\r?\n/).filter((e) => e.includes('data: ')).map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)));
const eventStream = async (res: Response) => new EventStreamDecoder().push(Buffer.from(await res.arrayBuffer()));
const messagesStreamText = (events: any[]): string => events.filter((e) => e.type === 'content_block_delta' && e.delta.type === 'text_delta').map((e) => e.delta.text).join('');
const candidateText = (answers: any[]): string => answers.flatMap((a) => a.candidates?.[0]?.content?.parts ?? []).map((p: any) => p.text ?? '').join('');
const messagesBody = (extra: Record<string, unknown>) => (system: string, question: string) => ({ ...extra, max_tokens: 64, system, messages: [{ role: 'user', content: question }] });
const generateBody = (system: string, question: string) => ({ systemInstruction: { parts: [{ text: system }] }, contents: [{ role: 'user', parts: [{ text: question }] }] });
const invokePath = (verb: string, model = CLOUDC_MODEL) => `/v1/model/${encodeURIComponent(model)}/${verb}`;
/** The JSON events of an invoke stream: each `chunk` event's base64 `bytes`. */
const invokeChunks = async (res: Response): Promise<any[]> => (await eventStream(res)).map((m) => JSON.parse(Buffer.from(JSON.parse(m.payload.toString()).bytes, 'base64').toString()));

/** Another model's invoke in a vendor format the gateway reads: its model, its body, its answer's text and its stream's. */
const VENDOR_INVOKES: Array<{ vendor: string; model: string; body: Call['body']; answer(json: any): string; chunk(json: any): string }> = [
  {
    vendor: 'an Amazon Nova model', model: 'amazon.nova-lite-v1:0',
    body: (system, question) => ({ schemaVersion: 'messages-v1', system: [{ text: system }], messages: [{ role: 'user', content: [{ text: question }] }], inferenceConfig: { maxTokens: 64 } }),
    answer: (json) => json.output.message.content.map((b: any) => b.text ?? '').join(''),
    chunk: (json) => json.contentBlockDelta?.delta?.text ?? '',
  },
  {
    vendor: 'an OpenAI open-weight model', model: 'openai.gpt-oss-120b-1:0',
    body: (system, question) => ({ messages: [{ role: 'system', content: system }, { role: 'user', content: question }], max_completion_tokens: 64 }),
    answer: (json) => json.choices[0].message.content,
    chunk: (json) => json.choices?.[0]?.delta?.content ?? '',
  },
  {
    vendor: 'a Titan text model', model: 'amazon.titan-text-express-v1',
    body: (system, question) => ({ inputText: `${system}\nUser: ${question}\nBot:`, textGenerationConfig: { maxTokenCount: 64 } }),
    answer: (json) => json.results.map((r: any) => r.outputText).join(''),
    chunk: (json) => json.outputText ?? '',
  },
  {
    vendor: 'a Llama model', model: 'meta.llama3-8b-instruct-v1:0',
    body: (system, question) => ({ prompt: `<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n${system}<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n${question}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n`, max_gen_len: 64 }),
    answer: (json) => json.generation,
    chunk: (json) => json.generation ?? '',
  },
  {
    vendor: 'DeepSeek-R1', model: 'us.deepseek.r1-v1:0',
    body: (system, question) => ({ prompt: `${system}<｜User｜>${question}<｜Assistant｜>`, max_tokens: 64 }),
    answer: (json) => json.choices.map((c: any) => c.text).join(''),
    chunk: (json) => (json.choices ?? []).map((c: any) => c.text).join(''),
  },
  {
    vendor: 'a Mistral text completion model', model: 'mistral.mistral-7b-instruct-v0:2',
    body: (system, question) => ({ prompt: `<s>[INST] ${system} ${question} [/INST]`, max_tokens: 64 }),
    answer: (json) => json.outputs.map((o: any) => o.text).join(''),
    chunk: (json) => (json.outputs ?? []).map((o: any) => o.text).join(''),
  },
  {
    vendor: 'a Mistral chat completion model', model: 'mistral.mistral-large-2407-v1:0',
    body: (system, question) => ({ messages: [{ role: 'system', content: system }, { role: 'user', content: question }], max_tokens: 64 }),
    answer: (json) => json.choices[0].message.content,
    chunk: (json) => json.choices?.[0]?.message?.content ?? '',
  },
];

const CALLS: Call[] = [
  { name: 'messages', family: 'messages', path: '/v1/messages', body: messagesBody({ model: 'claude-sonnet-4-0' }), text: async (res) => ((await res.json()) as any).content.map((b: any) => b.text ?? '').join('') },
  { name: 'messages, streamed', family: 'messages', path: '/v1/messages', body: messagesBody({ model: 'claude-sonnet-4-0', stream: true }), text: async (res) => messagesStreamText(await sseEvents(res)) },
  { name: 'generateContent', family: 'cloudb', path: `${CLOUDB_PATH}:generateContent`, body: generateBody, text: async (res) => candidateText([await res.json()]) },
  { name: 'streamGenerateContent (SSE)', family: 'cloudb', path: `${CLOUDB_PATH}:streamGenerateContent?alt=sse`, body: generateBody, text: async (res) => candidateText(await sseEvents(res)) },
  { name: 'streamGenerateContent (a JSON array)', family: 'cloudb', path: `${CLOUDB_PATH}:streamGenerateContent`, body: generateBody, text: async (res) => candidateText((await res.json()) as any[]) },
  { name: 'converse', family: 'cloudc', path: invokePath('converse'), body: (system, question) => ({ system: [{ text: system }], messages: [{ role: 'user', content: [{ text: question }] }] }), text: async (res) => ((await res.json()) as any).output.message.content.map((b: any) => b.text ?? '').join('') },
  {
    name: 'converse-stream', family: 'cloudc', path: invokePath('converse-stream'), body: (system, question) => ({ system: [{ text: system }], messages: [{ role: 'user', content: [{ text: question }] }] }),
    text: async (res) => (await eventStream(res)).filter((m) => m.headers[':event-type'] === 'contentBlockDelta').map((m) => JSON.parse(m.payload.toString()).delta.text ?? '').join(''),
  },
  { name: 'a Claude model\'s invoke', family: 'cloudc', path: invokePath('invoke'), body: messagesBody({ anthropic_version: 'bedrock-2023-05-31' }), text: async (res) => ((await res.json()) as any).content.map((b: any) => b.text ?? '').join('') },
  {
    name: 'a Claude model\'s invoke stream', family: 'cloudc', path: invokePath('invoke-with-response-stream'), body: messagesBody({ anthropic_version: 'bedrock-2023-05-31' }),
    text: async (res) => messagesStreamText(await invokeChunks(res)),
  },
  ...VENDOR_INVOKES.flatMap(({ vendor, model, body, answer, chunk }): Call[] => [
    { name: `${vendor}'s invoke`, family: 'cloudc', path: invokePath('invoke', model), body, text: async (res) => answer(await res.json()) },
    { name: `${vendor}'s invoke stream`, family: 'cloudc', path: invokePath('invoke-with-response-stream', model), body, text: async (res) => (await invokeChunks(res)).map(chunk).join('') },
  ]),
];

/**
 * A request the input deny rule read and denied: 446 before `mock` got anything, the rule's check
 * failed on the text it judged (it names the word), not for want of a text it could read.
 */
async function expectJudgedDenial(mock: MockServer, send: () => Promise<Response>): Promise<void> {
  const before = mock.requests.length;
  const denied = await send();
  expect(denied.status).toBe(446);
  const body = (await denied.json()) as any;
  expect(body.error.code).toBe('denied_by_guardrail');
  const check = body.hook_results.before_request_hooks.find((h: any) => h.id === 'no-secret').checks[0];
  expect(check).toMatchObject({ verdict: false, error: null });
  expect(check.explanation).toContain('secret');
  expect(check.explanation).not.toContain('not judged');
  expect(mock.requests.length).toBe(before);
}

const mockOf = (family: Family): MockServer => (family === 'messages' ? messages : family === 'cloudb' ? cloudb : cloudc);

function send(call: Call, config: string, system: string, question: string, trace?: string): Promise<Response> {
  return fetch(`${served.gateway.url}${call.path}`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': KEY, 'x-gateway-config': `${call.family}-${config}`, 'content-type': 'application/json', ...(trace === undefined ? {} : { 'x-gateway-trace-id': trace }) },
    body: JSON.stringify(call.body(system, question)),
  });
}

describe('a family\'s own token count through the pass-through', () => {
  const COUNTS: Call[] = [
    { name: 'messages count_tokens', family: 'messages', path: '/v1/messages/count_tokens', body: (system, question) => ({ model: 'claude-sonnet-4-0', system, messages: [{ role: 'user', content: question }] }), text: async (res) => String(((await res.json()) as any).input_tokens) },
    { name: 'countTokens', family: 'cloudb', path: `${CLOUDB_PATH}:countTokens`, body: generateBody, text: async (res) => String(((await res.json()) as any).totalTokens) },
    {
      name: 'cloud C\'s count-tokens of a converse body', family: 'cloudc', path: invokePath('count-tokens'),
      body: (system, question) => ({ input: { converse: { system: [{ text: system }], messages: [{ role: 'user', content: [{ text: question }] }] } } }),
      text: async (res) => String(((await res.json()) as any).inputTokens),
    },
  ];
  for (const call of COUNTS) {
    it(`${call.name}: its request is judged and redacted like the chat call's; its answer (counts, no text) passes the output checks`, async () => {
      const mock = mockOf(call.family);
      await expectJudgedDenial(mock, () => send(call, 'in', 'Be brief.', 'count the secret'));
      const redacted = await send(call, 'in', 'Be brief.', `count ${EMAIL} words`);
      expect(redacted.status).toBe(200);
      expect(Number(await call.text(redacted))).toBeGreaterThan(0);
      expect(JSON.stringify(mock.requests.at(-1)!.json)).not.toContain(EMAIL);
      // An output deny rule has no text to judge in counts: it passes (it failed them unjudged before).
      const counted = await send(call, 'deny', 'Be brief.', 'count the secret');
      expect(counted.status).toBe(200);
      const answer = (await counted.json()) as any;
      expect(answer.hook_results.after_request_hooks[0]).toMatchObject({ id: 'no-secret', verdict: true });
    });
  }

  const countInvoke = (config: string, model: string, question: string) => fetch(`${served.gateway.url}/v1/model/${encodeURIComponent(model)}/count-tokens`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': KEY, 'x-gateway-config': `cloudc-${config}`, 'content-type': 'application/json' },
    body: JSON.stringify({ input: { invokeModel: { body: Buffer.from(JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 9, system: 'Be brief.', messages: [{ role: 'user', content: question }] })).toString('base64') } } }),
  });

  it('a Claude model\'s count-tokens of an invoke body (the messages API\'s, in base64) is judged and redacted like its invoke call', async () => {
    await expectJudgedDenial(cloudc, () => countInvoke('in', CLOUDC_MODEL, 'count the secret'));
    const redacted = await countInvoke('in', CLOUDC_MODEL, `count ${EMAIL} words`);
    expect(redacted.status).toBe(200);
    expect(((await redacted.json()) as any).inputTokens).toBeGreaterThan(0);
    const sent = cloudc.requests.at(-1)!.json as any;
    const invoked = Buffer.from(sent.input.invokeModel.body, 'base64').toString('utf8');
    expect(invoked).toContain('count ');
    expect(invoked).not.toContain(EMAIL);
  });

  it('another model\'s count-tokens of an invoke body (its vendor\'s own format, in base64) has no text a check can read: a deny rule denies it', async () => {
    const before = cloudc.requests.length;
    const res = await countInvoke('in', 'amazon.nova-lite-v1:0', 'hi');
    expect(res.status).toBe(446);
    const check = ((await res.json()) as any).hook_results.before_request_hooks.find((h: any) => h.id === 'no-secret').checks[0];
    expect(check).toMatchObject({ verdict: false, explanation: expect.stringContaining('invoke body') });
    expect(cloudc.requests.length).toBe(before);
    // Through a route without such checks it reaches the service (which counts only the models it can).
    await (await countInvoke('soft', 'amazon.nova-lite-v1:0', 'hi')).arrayBuffer();
    expect(cloudc.requests.length).toBe(before + 1);
  });
});

describe('cloud B\'s embeddings (`:predict` on a text embedding model) through the pass-through', () => {
  const PREDICT = `/v1/projects/${CLOUDB_PROJECT}/locations/${CLOUDB_REGION}/publishers/google/models/text-embedding-mock:predict`;
  const predict = (config: string, instances: unknown[], path = PREDICT) => fetch(`${served.gateway.url}${path}`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': KEY, 'x-gateway-config': `cloudb-${config}`, 'content-type': 'application/json' },
    body: JSON.stringify({ instances, parameters: { outputDimensionality: 4 } }),
  });

  it('an input deny rule judges every instance\'s text: denied with 446 before the provider is called', async () => {
    await expectJudgedDenial(cloudb, () => predict('in', [{ content: 'an innocent line' }, { title: 'notes', content: 'the secret plan' }]));
  });

  it('an input redaction rewrites every instance\'s content and title; the vectors come back as the service made them', async () => {
    const res = await predict('in', [{ content: `write to ${EMAIL}` }, { title: `from ${EMAIL}`, content: 'plain text', task_type: 'RETRIEVAL_DOCUMENT' }]);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as any;
    expect(answer.predictions).toHaveLength(2);
    expect(answer.predictions[0].embeddings.values).toHaveLength(4);
    const sent = cloudb.requests.at(-1)!.json as any;
    expect(JSON.stringify(sent)).not.toContain(EMAIL);
    expect(sent.instances[0].content).toMatch(/^write to \S+$/);
    expect(sent.instances[1]).toMatchObject({ content: 'plain text', task_type: 'RETRIEVAL_DOCUMENT' });
    expect(sent.instances[1].title).toMatch(/^from \S+$/);
  });

  it('its answer (vectors, no text) passes an output deny rule', async () => {
    const res = await predict('deny', [{ content: 'the secret plan' }]);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as any;
    expect(answer.predictions[0].embeddings.values).toHaveLength(4);
    expect(answer.hook_results.after_request_hooks[0]).toMatchObject({ id: 'no-secret', verdict: true });
  });

  it('another model\'s :predict (a video model\'s) is in its own shape: its text checks fail unjudged', async () => {
    const before = cloudb.requests.length;
    const path = `/v1/projects/${CLOUDB_PROJECT}/locations/${CLOUDB_REGION}/publishers/google/models/veo-mock:predict`;
    const res = await predict('in', [{ prompt: 'a lighthouse' }], path);
    expect(res.status).toBe(446);
    const check = ((await res.json()) as any).hook_results.before_request_hooks.find((h: any) => h.id === 'no-secret').checks[0];
    expect(check.explanation).toContain('not judged');
    expect(cloudb.requests.length).toBe(before);
  });
});

describe('cloud B\'s image generation (`:predict` on an Imagen model) through the pass-through', () => {
  const IMAGEN = `/v1/projects/${CLOUDB_PROJECT}/locations/${CLOUDB_REGION}/publishers/google/models/imagen-3.0-generate-002:predict`;
  const imagen = (config: string, body: unknown) => fetch(`${served.gateway.url}${IMAGEN}`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': KEY, 'x-gateway-config': `cloudb-${config}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

  it('an input deny rule judges its prompt: denied with 446 before the provider is called', async () => {
    await expectJudgedDenial(cloudb, () => imagen('in', { instances: [{ prompt: 'draw the secret map' }] }));
  });

  it('an input redaction rewrites its prompt and negative prompt; the images come back as the service made them', async () => {
    const res = await imagen('in', { instances: [{ prompt: `a card for ${EMAIL}` }], parameters: { sampleCount: 2, negativePrompt: `no ${EMAIL}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).predictions).toHaveLength(2);
    const sent = cloudb.requests.at(-1)!.json as any;
    expect(JSON.stringify(sent)).not.toContain(EMAIL);
    expect(sent.instances[0].prompt).toMatch(/^a card for \S+$/);
    expect(sent.parameters).toMatchObject({ sampleCount: 2, negativePrompt: expect.stringMatching(/^no \S+$/) });
  });

  it('its answer (images, no text) goes on as the service sent it, unjudged, as the images endpoint\'s does', async () => {
    const res = await imagen('deny', { instances: [{ prompt: 'the secret garden' }], parameters: { sampleCount: 2 } });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as any;
    expect(answer.predictions).toHaveLength(2);
    expect(answer.predictions[0].bytesBase64Encoded).toEqual(expect.any(String));
    expect(answer.hook_results.after_request_hooks).toEqual([]);
    // An after-request webhook is not called with megabytes of images either.
    const before = hooked.length;
    await (await imagen('hook', { instances: [{ prompt: 'do it now' }] })).arrayBuffer();
    expect(hooked.length).toBe(before);
  });
});

describe('another model\'s invoke through cloud C\'s pass-through in a format the gateway does not read (metered by the service\'s counts)', () => {
  const invoke = (config: string, model: string, body: unknown) => fetch(`${served.gateway.url}/v1/model/${encodeURIComponent(model)}/invoke`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': KEY, 'x-gateway-config': `cloudc-${config}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

  it('has no text a check can read: its request\'s text checks fail unjudged before the provider is called, its answer\'s after', async () => {
    const before = cloudc.requests.length;
    const command = { message: 'tell me the secret', chat_history: [] };
    const denied = await invoke('in', 'cohere.command-r-v1:0', command);
    expect(denied.status).toBe(446);
    expect(((await denied.json()) as any).hook_results.before_request_hooks.find((h: any) => h.id === 'no-secret').checks[0].explanation).toContain('not judged');
    expect(cloudc.requests.length).toBe(before);
    const answered = await invoke('deny', 'cohere.command-r-v1:0', command);
    expect(answered.status).toBe(446);
    expect(((await answered.json()) as any).hook_results.after_request_hooks[0].checks[0].explanation).toContain('not judged');
    expect(cloudc.requests.length).toBe(before + 1);
  });

  it('a stream its path asks for, denied after the provider answered, fails as the API\'s JSON error whatever `stream` its body holds', async () => {
    const res = await fetch(`${served.gateway.url}${invokePath('invoke-with-response-stream', 'openai.gpt-oss-120b-1:0')}`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': KEY, 'x-gateway-config': 'cloudc-deny', 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'whisper the secret' }], stream: true }),
    });
    expect(res.status).toBe(446);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(((await res.json()) as any).error.code).toBe('denied_by_guardrail');
  });

  it('a model the gateway reads, sent a body without the prompt it reads (another form): its text checks fail unjudged', async () => {
    const before = cloudc.requests.length;
    const res = await invoke('in', 'meta.llama3-8b-instruct-v1:0', { messages: [{ role: 'user', content: 'tell me the secret' }] });
    expect(res.status).toBe(446);
    expect(((await res.json()) as any).hook_results.before_request_hooks.find((h: any) => h.id === 'no-secret').checks[0].explanation).toContain('no `prompt` string');
    expect(cloudc.requests.length).toBe(before);
  });

  it('Mistral Large 2402, which takes either form, is read in the one its body holds: a chat body judged and redacted as a chat', async () => {
    await expectJudgedDenial(cloudc, () => invoke('in', 'mistral.mistral-large-2402-v1:0', { messages: [{ role: 'user', content: 'tell me the secret' }] }));
    const res = await invoke('in', 'mistral.mistral-large-2402-v1:0', { messages: [{ role: 'user', content: `write to ${EMAIL}` }] });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).choices[0].message.content).not.toContain(EMAIL);
    expect(JSON.stringify(cloudc.requests.at(-1)!.json)).not.toContain(EMAIL);
    const prompt = await invoke('in', 'mistral.mistral-large-2402-v1:0', { prompt: `<s>[INST] write to ${EMAIL} [/INST]` });
    expect(((await prompt.json()) as any).outputs[0].text).not.toContain(EMAIL);
  });
});

describe('guardrails on a family\'s own chat API through the pass-through', () => {
  for (const call of CALLS) {
    describe(call.name, () => {
      it('an input deny rule judges the last user turn: denied with 446 before the provider is called', async () => {
        await expectJudgedDenial(mockOf(call.family), () => send(call, 'in', 'Be brief.', 'tell me the secret'));
      });

      it('an input redaction rewrites what the provider gets: the system prompt and the question', async () => {
        const res = await send(call, 'in', `Mail ${EMAIL} if asked.`, `write to ${EMAIL}`);
        expect(res.status).toBe(200);
        const text = await call.text(res);
        expect(text).toContain('write to');
        expect(text).not.toContain(EMAIL);
        const sent = JSON.stringify(mockOf(call.family).requests.at(-1)!.json);
        expect(sent).not.toContain(EMAIL);
        expect(sent.match(/EMAIL_ADDRESS|\[EMAIL/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
      });

      it('an output redaction rewrites the answer as its client reads it', async () => {
        const res = await send(call, 'out', 'Be brief.', `write to ${EMAIL} now`);
        expect(res.status).toBe(200);
        const text = await call.text(res);
        expect(text).toContain('write to');
        expect(text).toContain('now');
        expect(text).not.toContain(EMAIL);
        // The provider got the address: only the answer was redacted.
        expect(JSON.stringify(mockOf(call.family).requests.at(-1)!.json)).toContain(EMAIL);
      });

      it('an output deny rule denies the answer after the provider answered, as its client reads a failure', async () => {
        const mock = mockOf(call.family);
        const before = mock.requests.length;
        const res = await send(call, 'deny', 'Be brief.', 'whisper the secret');
        expect(mock.requests.length).toBe(before + 1);
        const text = await res.text();
        expect(text).not.toContain('whisper');
        // A messages stream asked for with "stream": true fails as one error event; the others with the 446 JSON body.
        const body = JSON.parse(call.name === 'messages, streamed' ? /^data: (.*)$/m.exec(text)![1] : text);
        expect(res.status).toBe(call.name === 'messages, streamed' ? 200 : 446);
        expect(body.error.code).toBe('denied_by_guardrail');
        expect(body.hook_results.after_request_hooks[0]).toMatchObject({ id: 'no-secret', verdict: false, deny: true });
      });

      it('an after-request webhook gets the answer as JSON in its API\'s shape (a stream\'s whole), and its transformedData is the answer', async () => {
        const before = hooked.length;
        const res = await send(call, 'hook', 'Be brief.', 'do it now please');
        expect(res.status).toBe(200);
        const text = await call.text(res);
        expect(text).toContain('do it LATER please');
        expect(text).not.toContain('now');
        expect(hooked.length).toBe(before + 1);
        expect(JSON.stringify(hooked.at(-1))).toContain('do it now please');
      });

      it('a check that only reports judges the answer\'s text (a stream at its end): its result in the log', async () => {
        const trace = `pt-soft-${call.name.replace(/\W+/g, '-')}`;
        const res = await send(call, 'soft', 'Be brief.', 'one two three four five', trace);
        expect([200, 246]).toContain(res.status);
        expect(await call.text(res)).toContain('four five');
        const read = async () => ((await (await fetch(`${served.gateway.url}/v1/logs?trace_id=${trace}`, { headers: { 'x-gateway-api-key': KEY } })).json()) as any).data as any[];
        const [record] = await until(read, (records) => records.length === 1 && records[0].hook_results?.after_request_hooks?.length > 0, 10_000, `the record of ${trace}`);
        expect(record.hook_results.after_request_hooks[0].checks[0]).toMatchObject({ id: 'default.wordCount', verdict: false, explanation: expect.stringMatching(/\d+ words/) });
      });
    });
  }
});
