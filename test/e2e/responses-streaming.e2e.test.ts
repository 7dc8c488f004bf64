// An emulated Responses call with `stream: true` is the chat completion's stream, read as it comes:
// each piece reaches the client as the provider makes it (before, the whole chat answer was awaited
// and replayed), with the official SDK's stream helper assembling the same response the gateway
// stores; the usage is the stream's own, or what the provider reported beside it; a stream that
// breaks off ends the response as failed and stores nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES_MOCK_KEY, type JobsGateway, plainHeaders, startJobsGateway, VENDOR_MOCK_KEY, GATEWAY_KEY } from '../jobs/harness.ts';

type Event = Record<string, any> & { type: string };

/** The events of a raw SSE answer. */
function eventsOf(text: string): Event[] {
  return text.split('\n\n').filter((frame) => frame.includes('data: ')).map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as Event);
}

const sse = (chunks: unknown[]): string => `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`;
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'vendor-chat-1-0613', choices: [{ index: 0, delta, finish_reason: finish }] });

describe('streamed emulated responses', () => {
  let gw: JobsGateway;

  beforeAll(async () => {
    gw = await startJobsGateway('sqlite', { vendorMocks: 1, configs: { cached: { provider: 'ollama', api_key: VENDOR_MOCK_KEY, custom_host: '{{mock0}}', cache: { mode: 'simple', max_age: 60 } } } });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('sends each piece as the provider makes it, before its chat stream ends', async () => {
    const mock = gw.vendor[0]!;
    // The provider sends the role and two words, then nothing more for as long as the connection stays.
    mock.script({ path: '/v1/chat/completions', stallAfter: 3 });
    const controller = new AbortController();
    const res = await fetch(`${gw.url}/v1/responses`, {
      method: 'POST',
      headers: { ...plainHeaders(mock), authorization: `Bearer ${VENDOR_MOCK_KEY}`, 'x-gateway-api-key': GATEWAY_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'vendor-chat-1', input: 'one two three four', stream: true, store: false }),
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const firstDelta = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return null;
        text += decoder.decode(value, { stream: true });
        const delta = eventsOf(text).find((event) => event.type === 'response.output_text.delta');
        if (delta !== undefined) return delta;
      }
    })();
    const timeout = new Promise<'timed out'>((resolve) => setTimeout(() => resolve('timed out'), 5000).unref());
    const delta = await Promise.race([firstDelta, timeout]);
    controller.abort();
    expect(delta).toMatchObject({ type: 'response.output_text.delta', delta: '[mock0]', output_index: 0, content_index: 0 });
    expect(eventsOf(text).map((event) => event.type).slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    const chat = mock.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)?.json as Record<string, unknown>;
    expect(chat.stream).toBe(true);
    mock.reset();
    // The gateway goes on serving after the client left mid-stream.
    const after = await gw.client(plainHeaders(mock)).responses.create({ model: 'vendor-chat-1', input: 'still here', store: false });
    expect(after.output_text).toBe('[mock0] still here');
  });

  it('streams an agent\'s turn (reasoning, text, two function calls in interleaved pieces) into the response the SDK assembles and the gateway stores', async () => {
    const mock = gw.vendor[0]!;
    const chunks = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning_content: 'Look up ' }),
      chunk({ reasoning_content: 'both.' }),
      chunk({ content: 'Checking ' }),
      chunk({ content: 'now.' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'shell', arguments: '{"cmd":' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'read_file', arguments: '{"path":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"ls"}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: '"a.txt"}' } }] }),
      chunk({}, 'tool_calls'),
      { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'vendor-chat-1-0613', choices: [], usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52, prompt_tokens_details: { cached_tokens: 8 }, completion_tokens_details: { reasoning_tokens: 3 } } },
    ];
    mock.script({ path: '/v1/chat/completions', body: sse(chunks), contentType: 'text/event-stream' });
    const tools = [
      { type: 'function' as const, name: 'shell', parameters: { type: 'object', properties: { cmd: { type: 'string' } } }, strict: false },
      { type: 'function' as const, name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } }, strict: false },
    ];
    const stream = gw.client(plainHeaders(mock)).responses.stream({ model: 'vendor-chat-1', input: 'list and read', tools, reasoning: { effort: 'low', summary: 'auto' } });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();
    expect(final.status).toBe('completed');
    expect(final.model).toBe('vendor-chat-1-0613');
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'message', 'function_call', 'function_call']);
    expect(final.output[0]).toMatchObject({ summary: [{ type: 'summary_text', text: 'Look up both.' }] });
    expect(final.output_text).toBe('Checking now.');
    expect(final.output.slice(2)).toMatchObject([
      { type: 'function_call', call_id: 'call_a', name: 'shell', arguments: '{"cmd":"ls"}', status: 'completed' },
      { type: 'function_call', call_id: 'call_b', name: 'read_file', arguments: '{"path":"a.txt"}', status: 'completed' },
    ]);
    expect(final.usage).toEqual({ input_tokens: 40, output_tokens: 12, total_tokens: 52, input_tokens_details: { cached_tokens: 8 }, output_tokens_details: { reasoning_tokens: 3 } });
    expect(types.filter((type) => type === 'response.function_call_arguments.delta')).toHaveLength(4);
    expect(types.at(-1)).toBe('response.completed');
    // What the gateway stored is what the client assembled; the next turn continues from it.
    const stored = await gw.call('GET', `/v1/responses/${final.id}`);
    // (The SDK's helper adds its own parsed members.)
    expect(final.output).toMatchObject(stored.body.output);
    const items = await gw.call('GET', `/v1/responses/${final.id}/input_items?order=asc`);
    expect(items.body.data.map((item: { type: string }) => item.type)).toEqual(['message']);
    const next = await gw.client(plainHeaders(mock)).responses.create({
      model: 'vendor-chat-1',
      previous_response_id: final.id,
      input: [{ type: 'function_call_output', call_id: 'call_a', output: 'a.txt' }, { type: 'function_call_output', call_id: 'call_b', output: 'hello' }],
    });
    expect(next.status).toBe('completed');
    const sent = mock.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)?.json as { messages: Array<Record<string, unknown>> };
    expect(sent.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Checking now.', tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'shell', arguments: '{"cmd":"ls"}' } }, { id: 'call_b', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }] },
      { role: 'tool', tool_call_id: 'call_a', content: 'a.txt' },
      { role: 'tool', tool_call_id: 'call_b', content: 'hello' },
    ]);
    // One request, one record: the chat stream's usage, read as it went by.
    const records = gw.records.filter((r) => r.path === '/v1/responses' && r.usage?.inputTokens === 40);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ stream: true, status: 200, usage: { inputTokens: 40, outputTokens: 12, cachedInputTokens: 8, estimated: false } });
  });

  it('gives the usage a translated provider reported beside its stream (the messages API)', async () => {
    const client = gw.client({ 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': gw.messages.baseURL }, MESSAGES_MOCK_KEY);
    const stream = await client.responses.create({ model: 'claude-mock-1', input: 'count these words', stream: true, store: false });
    let completed: { usage?: { input_tokens: number; output_tokens: number } | null; output_text?: string } | null = null;
    let text = '';
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(text.length).toBeGreaterThan(0);
    expect(completed?.output_text).toBe(text);
    expect(completed?.usage?.input_tokens).toBeGreaterThan(0);
    expect(completed?.usage?.output_tokens).toBeGreaterThan(0);
    const sent = gw.messages.requests.at(-1)?.json as { stream?: boolean };
    expect(sent.stream).toBe(true);
  });

  it('answers a repeat from the route\'s cache, as the chat stream it stored, without asking the provider', async () => {
    const mock = gw.vendor[0]!;
    const ask = async () => {
      const { data: stream, response } = await gw.client({ 'x-gateway-config': 'cached' }).responses.create({ model: 'vendor-chat-1', input: 'remember this answer', stream: true, store: false }).withResponse();
      let completed: { output_text?: string } | null = null;
      for await (const event of stream) if (event.type === 'response.completed') completed = event.response;
      return { status: response.headers.get('x-gateway-cache-status'), text: completed?.output_text };
    };
    const asked = () => mock.requests.filter((r) => r.path === '/v1/chat/completions').length;
    const before = asked();
    expect(await ask()).toEqual({ status: 'MISS', text: '[mock0] remember this answer' });
    expect(await ask()).toEqual({ status: 'HIT', text: '[mock0] remember this answer' });
    expect(asked()).toBe(before + 1);
  });

  it('ends the response as failed when the chat stream breaks off, and stores nothing', async () => {
    const mock = gw.vendor[0]!;
    mock.script({ path: '/v1/chat/completions', breakAfter: 3 });
    const res = await gw.call('POST', '/v1/responses', { headers: { ...plainHeaders(mock), authorization: `Bearer ${VENDOR_MOCK_KEY}` }, body: { model: 'vendor-chat-1', input: 'one two three four', stream: true } });
    expect(res.status).toBe(200);
    const events = eventsOf(res.body as string);
    expect(events[0]!.type).toBe('response.created');
    expect(events.some((event) => event.type === 'response.output_text.delta')).toBe(true);
    const last = events.at(-1)!;
    expect(last.type).toBe('response.failed');
    expect(last.response).toMatchObject({ status: 'failed', error: { code: 'upstream_stream_broken', message: expect.stringContaining('The provider stream broke') } });
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
    expect((await gw.call('GET', `/v1/responses/${String(events[0]!.response.id)}`)).status).toBe(404);
  });

  it('ends the response as failed with the provider\'s own error event', async () => {
    const mock = gw.vendor[0]!;
    mock.script({ path: '/v1/chat/completions', body: `data: ${JSON.stringify(chunk({ role: 'assistant', content: 'Hal' }))}\n\ndata: ${JSON.stringify({ error: { message: 'The server had an error while processing your request.', type: 'server_error', code: 'server_error' } })}\n\n`, contentType: 'text/event-stream' });
    const res = await gw.call('POST', '/v1/responses', { headers: { ...plainHeaders(mock), authorization: `Bearer ${VENDOR_MOCK_KEY}` }, body: { model: 'vendor-chat-1', input: 'x', stream: true } });
    const last = eventsOf(res.body as string).at(-1)!;
    expect(last).toMatchObject({ type: 'response.failed', response: { status: 'failed', error: { code: 'server_error', message: 'The server had an error while processing your request.' } } });
  });
});
