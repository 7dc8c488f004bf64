// Stored responses end to end with the official SDK, on SQLite and PostgreSQL: forwarded to a
// provider with a Responses API (create, retrieve, chain); emulated over chat completions for one
// without (the messages-style API and an OpenAI-compatible server): stored and retrieved with
// `include`, previous_response_id chained from the store without carrying instructions over,
// truncation `disabled` → 400 over the context window, `auto` → middle items dropped, streaming.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../store/backends.ts';
import { GATEWAY_KEY, type JobsGateway, MESSAGES_MOCK_KEY, plainHeaders, startJobsGateway, vendorHeaders, VENDOR_MOCK_KEY } from '../jobs/harness.ts';

describe.each(BACKENDS)('responses on %s', (backend) => {
  let gw: JobsGateway;

  beforeAll(async () => {
    gw = await startJobsGateway(backend, { vendorMocks: 1 });
  });
  afterAll(async () => {
    await gw?.close();
  });

  const messagesHeaders = (): Record<string, string> => ({ 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': gw.messages.baseURL });

  it('forwards to a provider with a Responses API: create, retrieve and chain there', async () => {
    const mock = gw.vendor[0];
    const client = gw.client(vendorHeaders(mock));
    const first = await client.responses.create({ model: 'vendor-chat-1', input: 'tell me a story', instructions: 'be brief' });
    expect(first.id).toMatch(/^resp_/);
    expect(first.id).not.toMatch(/^resp_gw/);
    expect(first.output_text).toBe('[mock0] tell me a story');
    expect(mock.requests.filter((r) => r.path === '/v1/responses')).toHaveLength(1);
    const again = await gw.call('GET', `/v1/responses/${first.id}`, { headers: { ...vendorHeaders(mock), authorization: `Bearer ${VENDOR_MOCK_KEY}` } });
    expect(again.status).toBe(200);
    expect(again.schema).toBe('resources/stored-response.json');
    expect(again.body.id).toBe(first.id);
    const next = await client.responses.create({ model: 'vendor-chat-1', input: 'and another', previous_response_id: first.id });
    expect(next.previous_response_id).toBe(first.id);
    expect((mock.requests.at(-1)?.json as { previous_response_id: string }).previous_response_id).toBe(first.id);
    // The vendor's own members the emulation cannot give reach the vendor as sent.
    const own = { context_management: [{ type: 'compaction', compact_threshold: 200000 }], prompt_cache_options: { mode: 'explicit' }, moderation: null };
    const forwarded = await gw.call('POST', '/v1/responses', { headers: { ...vendorHeaders(mock), authorization: `Bearer ${VENDOR_MOCK_KEY}` }, body: { model: 'vendor-chat-1', input: 'hi', ...own } });
    expect(forwarded.status).toBe(200);
    expect(mock.requests.at(-1)?.json).toMatchObject(own);
  });

  it('emulates over chat completions for a provider without one, stores the response and serves it back', async () => {
    const client = gw.client(messagesHeaders(), MESSAGES_MOCK_KEY);
    const created = await client.responses.create({ model: 'claude-mock-1', input: 'hello there', instructions: 'answer kindly', metadata: { ticket: '42' }, max_output_tokens: 50 });
    expect(created).toMatchObject({ object: 'response', status: 'completed', model: 'claude-mock-1', instructions: 'answer kindly', metadata: { ticket: '42' }, previous_response_id: null, truncation: 'disabled' });
    expect(created.id).toMatch(/^resp_gw/);
    expect(created.output_text.length).toBeGreaterThan(0);
    expect(created.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(created.usage?.total_tokens).toBe((created.usage?.input_tokens ?? 0) + (created.usage?.output_tokens ?? 0));
    const sent = gw.messages.requests.at(-1)?.json as { system?: unknown; messages: Array<{ role: string }> };
    expect(sent.system).toBeDefined();
    expect(sent.messages.map((m) => m.role)).toEqual(['user']);
    // Stored: any route, even none, reads it back, with `include` accepted.
    for (const headers of [{}, messagesHeaders()]) {
      const read = await gw.call('GET', `/v1/responses/${created.id}?include=file_search_call.results&include=message.input_image.image_url`, { headers });
      expect(read.status).toBe(200);
      expect(read.schema).toBe('resources/stored-response.json');
      expect(read.body).toMatchObject({ id: created.id, output_text: created.output_text, metadata: { ticket: '42' } });
    }
    const badInclude = await gw.call('GET', `/v1/responses/${created.id}?include=everything`);
    expect(badInclude.status).toBe(400);
    expect(badInclude.body.error.code).toBe('invalid_query');
    const missing = await gw.call('GET', '/v1/responses/resp_nope');
    expect(missing.status).toBe(404);
  });

  it('deletes a response the gateway stored, with the official SDK; a chain from it then answers 404, as does a second delete', async () => {
    const client = gw.client(messagesHeaders(), MESSAGES_MOCK_KEY);
    const created = await client.responses.create({ model: 'claude-mock-1', input: 'remember this' });
    expect(created.id).toMatch(/^resp_gw/);
    const deleted = await gw.call('DELETE', `/v1/responses/${created.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.schema).toBe('resources/response-deleted.json');
    expect(deleted.body).toEqual({ id: created.id, object: 'response', deleted: true });
    expect((await gw.call('GET', `/v1/responses/${created.id}`)).status).toBe(404);
    const chained = await gw.call('POST', '/v1/responses', { body: { model: 'claude-mock-1', input: 'and then?', previous_response_id: created.id }, headers: { ...messagesHeaders(), authorization: `Bearer ${MESSAGES_MOCK_KEY}` } });
    expect(chained.status).toBe(404);
    const again = await gw.call('DELETE', `/v1/responses/${created.id}`);
    expect(again.status).toBe(404);
    expect(again.body.error).toMatchObject({ code: 'resource_not_found', param: 'response_id' });
    // The SDK's own call, on another stored response.
    const other = await client.responses.create({ model: 'claude-mock-1', input: 'forget this' });
    await client.responses.delete(other.id);
    expect((await gw.call('GET', `/v1/responses/${other.id}`)).status).toBe(404);
  });

  it('lists a stored response\'s input items, earlier turns included, newest first, page by page, with the official SDK', async () => {
    const client = gw.client(messagesHeaders(), MESSAGES_MOCK_KEY);
    const first = await client.responses.create({ model: 'claude-mock-1', input: 'first question' });
    const second = await client.responses.create({ model: 'claude-mock-1', input: [{ role: 'user', content: [{ type: 'input_text', text: 'second question' }] }], previous_response_id: first.id });
    const listed = [];
    for await (const item of client.responses.inputItems.list(second.id)) listed.push(item);
    // What went into the second response: the first turn's input and answer, then its own input; its answer is not an input.
    expect(listed.map((item) => [item.type, (item as { role?: string }).role])).toEqual([['message', 'user'], ['message', 'assistant'], ['message', 'user']]);
    expect(listed[0]).toMatchObject({ type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: 'second question' }] });
    expect(listed[1]).toMatchObject({ role: 'assistant', content: [{ type: 'output_text', text: first.output_text }] });
    expect(listed[2]).toMatchObject({ role: 'user', content: [{ type: 'input_text', text: 'first question' }] });
    const asc = await gw.call('GET', `/v1/responses/${second.id}/input_items?order=asc&limit=2`);
    expect(asc.status).toBe(200);
    expect(asc.schema).toBe('resources/response-item-list.json');
    expect(asc.body.data.map((item: { id: string }) => item.id)).toEqual([listed[2].id, listed[1].id]);
    expect(asc.body).toMatchObject({ has_more: true, first_id: listed[2].id, last_id: listed[1].id });
    const next = await gw.call('GET', `/v1/responses/${second.id}/input_items?order=asc&limit=2&after=${asc.body.last_id}`);
    expect(next.body).toMatchObject({ data: [{ id: listed[0].id }], has_more: false });
    const unknown = await gw.call('GET', `/v1/responses/${second.id}/input_items?after=msg_nope`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'invalid_query', param: '/after' });
    expect((await gw.call('GET', '/v1/responses/resp_gwnope/input_items')).status).toBe(404);
  });

  it('forwards a delete, and a list of input items, to a provider with a Responses API when the gateway did not store the response', async () => {
    const mock = gw.vendor[0];
    const client = gw.client(vendorHeaders(mock));
    const created = await client.responses.create({ model: 'vendor-chat-1', input: 'kept at the provider' });
    const headers = { ...vendorHeaders(mock), authorization: `Bearer ${VENDOR_MOCK_KEY}` };
    // Its input items are the provider's to list too.
    const items = await gw.call('GET', `/v1/responses/${created.id}/input_items`, { headers });
    expect(items.status).toBe(200);
    expect(items.body.data).toMatchObject([{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'kept at the provider' }] }]);
    const deleted = await gw.call('DELETE', `/v1/responses/${created.id}`, { headers });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: created.id, object: 'response', deleted: true });
    expect(mock.requests.at(-1)).toMatchObject({ method: 'DELETE', path: `/v1/responses/${created.id}` });
    // Gone at the provider: its own 404 passes through as it sent it.
    const gone = await fetch(`${gw.url}/v1/responses/${created.id}`, { headers: { ...headers, 'x-gateway-api-key': GATEWAY_KEY } });
    expect(gone.status).toBe(404);
  });

  it('chains previous_response_id from the store, without carrying instructions over', async () => {
    const mock = gw.vendor[0];
    const client = gw.client(plainHeaders(mock));
    const first = await client.responses.create({ model: 'vendor-chat-1', input: [{ role: 'user', content: 'my name is Ada' }], instructions: 'you are a pirate' });
    const second = await client.responses.create({ model: 'vendor-chat-1', input: 'what is my name', previous_response_id: first.id });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.instructions).toBeNull();
    const chat = mock.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)?.json as { messages: Array<{ role: string; content: string }> };
    expect(chat.messages).toEqual([
      { role: 'user', content: 'my name is Ada' },
      { role: 'assistant', content: first.output_text },
      { role: 'user', content: 'what is my name' },
    ]);
    const third = await client.responses.create({ model: 'vendor-chat-1', input: 'again', previous_response_id: second.id, instructions: 'now a poet' });
    const chat3 = mock.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)?.json as { messages: Array<{ role: string; content: string }> };
    expect(chat3.messages[0]).toEqual({ role: 'system', content: 'now a poet' });
    expect(chat3.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(third.instructions).toBe('now a poet');
    // Not stored: it cannot be continued or read back.
    const unstored = await client.responses.create({ model: 'vendor-chat-1', input: 'forget me', store: false });
    expect((await gw.call('GET', `/v1/responses/${unstored.id}`)).status).toBe(404);
    const cont = await gw.call('POST', '/v1/responses', { headers: plainHeaders(mock), body: { model: 'vendor-chat-1', input: 'x', previous_response_id: unstored.id } });
    expect(cont.status).toBe(404);
    expect(cont.body.error.param).toBe('/previous_response_id');
  });

  it('refuses input over the context window with truncation disabled, and drops middle items with auto', async () => {
    const mock = gw.vendor[0];
    const headers = { ...plainHeaders(mock), authorization: `Bearer ${VENDOR_MOCK_KEY}` };
    // vendor-chat-mini has a 120-token window in the test catalog; each item is about 30 tokens.
    const item = (role: 'user' | 'assistant', n: number) => ({ role, content: `${n} ${'word '.repeat(20)}` });
    const input = [item('user', 1), item('assistant', 2), item('user', 3), item('assistant', 4), item('user', 5)];
    const disabled = await gw.call('POST', '/v1/responses', { headers, body: { model: 'vendor-chat-mini', input } });
    expect(disabled.status).toBe(400);
    expect(disabled.body.error).toMatchObject({ code: 'context_window_exceeded', param: '/input', context_window: 120 });
    const explicit = await gw.call('POST', '/v1/responses', { headers, body: { model: 'vendor-chat-mini', input, truncation: 'disabled' } });
    expect(explicit.body.error.code).toBe('context_window_exceeded');
    const before = mock.requests.length;
    const auto = await gw.call('POST', '/v1/responses', { headers, body: { model: 'vendor-chat-mini', input, truncation: 'auto' } });
    expect(auto.status).toBe(200);
    expect(auto.schema).toBe('resources/stored-response.json');
    expect(auto.body.truncation).toBe('auto');
    const chat = mock.requests.slice(before).find((r) => r.path === '/v1/chat/completions')?.json as { messages: Array<{ content: string }> };
    const kept = chat.messages.map((m) => Number(m.content.split(' ')[0]));
    expect(kept[0]).toBe(1);
    expect(kept.at(-1)).toBe(5);
    expect(kept.length).toBeLessThan(5);
    expect(kept).toEqual([...kept].sort((a, b) => a - b));
    // A window too small for even the first and latest items is a 400 with auto too.
    const huge = await gw.call('POST', '/v1/responses', { headers, body: { model: 'vendor-chat-mini', input: 'word '.repeat(600), truncation: 'auto' } });
    expect(huge.body.error.code).toBe('context_window_exceeded');
  });

  it('refuses max_output_tokens past what the model writes (its catalog max_output_tokens), before calling the provider', async () => {
    const mock = gw.vendor[0];
    const headers = { ...plainHeaders(mock), authorization: `Bearer ${VENDOR_MOCK_KEY}` };
    const before = mock.requests.length;
    const refused = await gw.call('POST', '/v1/responses', { headers, body: { model: 'vendor-chat-mini', input: 'hi', max_output_tokens: 65 } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_request_body', param: '/max_output_tokens' });
    expect(refused.body.error.message).toContain('at most 64');
    expect(mock.requests.length).toBe(before);
    const allowed = await gw.call('POST', '/v1/responses', { headers, body: { model: 'vendor-chat-mini', input: 'hi', max_output_tokens: 64 } });
    expect(allowed.status).toBe(200);
    // A model the catalog gives no maximum (or does not know) is left to the provider.
    expect((await gw.call('POST', '/v1/responses', { headers, body: { model: 'vendor-chat-1', input: 'hi', max_output_tokens: 50_000 } })).status).toBe(200);
  });

  it('streams an emulated response as Responses events', async () => {
    const client = gw.client(plainHeaders(gw.vendor[0]));
    const stream = await client.responses.create({ model: 'vendor-chat-1', input: 'stream this', stream: true });
    const types: string[] = [];
    let text = '';
    let final: { id: string; output_text?: string } | null = null;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') final = event.response;
    }
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(text).toBe('[mock0] stream this');
    const stored = await gw.call('GET', `/v1/responses/${final!.id}`);
    expect(stored.body.output_text).toBe(text);
    // Delta events carry random obfuscation by default, as the vendor's do, and none when it is switched off.
    const deltas = async (extra: Record<string, unknown>) => {
      const res = await gw.call('POST', '/v1/responses', { headers: { ...plainHeaders(gw.vendor[0]), authorization: `Bearer ${VENDOR_MOCK_KEY}` }, body: { model: 'vendor-chat-1', input: 'obfuscate', stream: true, ...extra } });
      return (res.body as string).split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6))).filter((event) => event.type === 'response.output_text.delta');
    };
    expect((await deltas({}))[0].obfuscation).toMatch(/^[\w-]{1,16}$/);
    expect((await deltas({ stream_options: { include_obfuscation: false } }))[0]).not.toHaveProperty('obfuscation');
    for (const [body, param] of [[{ stream_options: { include_usage: true } }, '/stream_options/include_usage'], [{ stream: false, stream_options: { include_obfuscation: false } }, '/stream_options']] as const) {
      const refused = await gw.call('POST', '/v1/responses', { headers: plainHeaders(gw.vendor[0]), body: { model: 'vendor-chat-1', input: 'x', stream: true, ...body } });
      expect(refused.status, param).toBe(400);
      expect(refused.body.error.param).toBe(param);
    }
  });

  it('maps function tools both ways', async () => {
    const mock = gw.vendor[0];
    const client = gw.client(plainHeaders(mock));
    const tools = [{ type: 'function' as const, name: 'lookup', description: 'Find a thing', parameters: { type: 'object', properties: { q: { type: 'string' } } }, strict: false }];
    await client.responses.create({ model: 'vendor-chat-1', input: 'use a tool', tools, tool_choice: { type: 'function', name: 'lookup' } });
    const chat = mock.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)?.json as { tools: unknown[]; tool_choice: unknown };
    expect(chat.tools).toEqual([{ type: 'function', function: { name: 'lookup', description: 'Find a thing', parameters: tools[0].parameters, strict: false } }]);
    expect(chat.tool_choice).toEqual({ type: 'function', function: { name: 'lookup' } });
    const refused = await gw.call('POST', '/v1/responses', { headers: plainHeaders(mock), body: { model: 'vendor-chat-1', input: 'x', tools: [{ type: 'web_search' }] } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'unsupported_parameter', param: '/tools/0/type' });
  });

  it('passes the chat-completion fields the Responses API shares, and refuses what one chat completion cannot give', async () => {
    const mock = gw.vendor[0];
    const sentChats = () => mock.requests.filter((r) => r.path === '/v1/chat/completions').length;
    await gw.client(plainHeaders(mock)).responses.create({ model: 'vendor-chat-1', input: 'x', service_tier: 'flex', prompt_cache_key: 'conv-7', prompt_cache_retention: '24h', safety_identifier: 'user-hash-1', max_tool_calls: 3, include: ['reasoning.encrypted_content'], text: { verbosity: 'low' }, reasoning: { effort: 'low', summary: null }, prompt_cache_options: { mode: 'explicit' }, conversation: null } as never);
    const chat = mock.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)?.json as Record<string, unknown>;
    expect(chat).toMatchObject({ service_tier: 'flex', prompt_cache_key: 'conv-7', prompt_cache_retention: '24h', safety_identifier: 'user-hash-1', verbosity: 'low', reasoning_effort: 'low' });
    expect(chat).not.toHaveProperty('max_tool_calls');
    // The vendor's chat API has the same hint to its prompt cache.
    expect(chat).toMatchObject({ prompt_cache_options: { mode: 'explicit' } });
    const before = sentChats();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ prompt: { id: 'pmpt_1', variables: { name: 'Ada' } } }, '/prompt'],
      [{ top_logprobs: 2 }, '/top_logprobs'],
      [{ include: ['reasoning.encrypted_content', 'message.output_text.logprobs'] }, '/include/1'],
      [{ reasoning: { effort: 'low', summary: 'detailed' } }, '/reasoning/summary'],
      [{ reasoning: { generate_summary: 'auto' } }, '/reasoning/generate_summary'],
      [{ text: { format: { type: 'text' }, verbosty: 'low' } }, '/text/verbosty'],
      [{ conversation: 'conv_1' }, '/conversation'],
      [{ context_management: [{ type: 'compaction', compact_threshold: 1000 }] }, '/context_management'],
      [{ moderation: { model: 'omni-moderation-latest' } }, '/moderation'],
      [{ image: { context_compression: 'auto' } }, '/image'],
      [{ access_programs: { cyber: 'standard' } }, '/access_programs'],
    ];
    for (const [extra, param] of cases) {
      const res = await gw.call('POST', '/v1/responses', { headers: plainHeaders(mock), body: { model: 'vendor-chat-1', input: 'x', ...extra } });
      expect(res.status, param).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'unsupported_parameter', param });
    }
    // A part the Responses API does not know (a typo) is a mistake, not a part to leave out.
    const typo = await gw.call('POST', '/v1/responses', { headers: plainHeaders(mock), body: { model: 'vendor-chat-1', input: 'x', include: ['file_search_call.results', 'reasoning.encrypted_contents'] } });
    expect(typo.body.error).toMatchObject({ code: 'invalid_request_body', param: '/include/1', message: expect.stringContaining('did you mean "reasoning.encrypted_content"?') });
    expect(sentChats()).toBe(before);
  });

  it('names the Responses request\'s fields when the chat call it became is refused (the messages API has no verbosity)', async () => {
    const sent = () => gw.messages.requests.length;
    const before = sent();
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ text: { format: { type: 'json_object' } } }, 'text.format', 'text.format "json_object"'],
      [{ text: { verbosity: 'low' } }, 'text.verbosity', '"text.verbosity"'],
    ];
    for (const [extra, param, named] of cases) {
      const res = await gw.call('POST', '/v1/responses', { headers: { ...messagesHeaders(), authorization: `Bearer ${MESSAGES_MOCK_KEY}` }, body: { model: 'claude-test', input: 'x', ...extra } });
      expect(res.status, param).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'unsupported_parameter', param });
      expect(res.body.error.message).toContain(named);
      expect(res.body.error.message).not.toMatch(/reasoning_effort|response_format/);
    }
    expect(sent()).toBe(before);
  });

  it('checks the body before anything is sent', async () => {
    const cases: Array<[unknown, string]> = [
      [{ input: 'x' }, '/model'],
      [{ model: 'm', input: 'x', temperature: 3 }, '/temperature'],
      [{ model: 'm', input: 'x', metadata: { ['k'.repeat(65)]: 'v' } }, '/metadata'],
      [{ model: 'm', input: 'x', truncation: 'sometimes' }, '/truncation'],
      [{ model: 'm', input: 'x', surprise: true }, '/surprise'],
      [{ model: 'm', input: [{ role: 'user' }] }, '/input'],
    ];
    for (const [body, param] of cases) {
      const res = await gw.call('POST', '/v1/responses', { headers: plainHeaders(gw.vendor[0]), body });
      expect(res.status, param).toBe(400);
      expect(res.body.error.code).toBe('invalid_request_body');
      expect(res.body.error.param.startsWith(param)).toBe(true);
    }
  });
});
