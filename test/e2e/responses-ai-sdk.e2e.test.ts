// The Vercel AI SDK's OpenAI provider speaks the Responses API and stores its responses by default,
// so from its second turn on it names each earlier answer's message and reasoning by ID
// (`item_reference`) instead of sending them again. Through a model without a Responses API the
// gateway emulates the API, and each reference is the item of the stored response it names: the
// conversation reaches the model whole, streamed or not, tool loops included.
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, type ModelMessage, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_KEY, type JobsGateway, MESSAGES_MOCK_KEY, plainHeaders, startJobsGateway, VENDOR_MOCK_KEY } from '../jobs/harness.ts';

describe('the AI SDK on the Responses API, through models without one', () => {
  let gw: JobsGateway;

  beforeAll(async () => {
    gw = await startJobsGateway('sqlite', { vendorMocks: 1 });
  });
  afterAll(async () => {
    await gw?.close();
  });

  /** The bodies the SDK sent, as it sent them. */
  const sentBodies: unknown[] = [];
  const provider = (headers: Record<string, string>, apiKey: string) => createOpenAI({
    baseURL: `${gw.url}/v1`,
    apiKey,
    headers: { 'x-gateway-api-key': GATEWAY_KEY, ...headers },
    fetch: (url, init) => {
      if (typeof init?.body === 'string') sentBodies.push(JSON.parse(init.body));
      return fetch(url, init);
    },
  });

  it('continues a conversation whose earlier answers it names by item ID, streamed or not', async () => {
    const mock = gw.vendor[0]!;
    const model = provider(plainHeaders(mock), VENDOR_MOCK_KEY)('vendor-chat-1');
    const messages: ModelMessage[] = [{ role: 'user', content: 'hello there' }];
    const first = await generateText({ model, messages });
    expect(first.text).toBe('[mock0] hello there');
    messages.push(...first.response.messages, { role: 'user', content: 'and once more' });
    const sentBefore = mock.requests.filter((r) => r.path === '/v1/chat/completions').length;
    const second = streamText({ model, messages });
    expect(await second.text).toBe('[mock0] and once more');
    // The SDK named the first answer; the model got it as the assistant's turn.
    const body = mock.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)!.json as { messages: unknown[] };
    expect(mock.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(sentBefore + 1);
    expect(body.messages).toEqual([
      { role: 'user', content: 'hello there' },
      { role: 'assistant', content: '[mock0] hello there' },
      { role: 'user', content: 'and once more' },
    ]);
    const request = sentBodies.at(-1) as { stream: boolean; input: Array<{ type?: string }> };
    expect(request.stream).toBe(true);
    expect(request.input.map((item) => item.type ?? 'message')).toEqual(['message', 'item_reference', 'message']);
  });

  it('runs a tool loop with Claude: its calls and their outputs sent back as items', async () => {
    const model = provider({ 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': gw.messages.baseURL }, MESSAGES_MOCK_KEY)('claude-mock-1');
    const calls: unknown[] = [];
    const result = await generateText({
      model,
      prompt: 'look up the weather',
      tools: {
        lookup: tool({
          description: 'Looks a thing up',
          inputSchema: jsonSchema<{ q?: string }>({ type: 'object', properties: { q: { type: 'string' } } }),
          execute: async (input) => {
            calls.push(input);
            return 'sunny';
          },
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(calls.length).toBeGreaterThan(0);
    expect(result.steps.length).toBeGreaterThan(1);
    expect(result.finishReason).toBe('stop');
    const sent = gw.messages.requests.at(-1)!.json as { messages: Array<{ role: string; content: Array<{ type: string }> | string }> };
    const blocks = sent.messages.flatMap((m) => (typeof m.content === 'string' ? ['text'] : m.content.map((b) => b.type)));
    expect(blocks).toContain('tool_use');
    expect(blocks).toContain('tool_result');
    const last = sentBodies.at(-1) as { input: Array<{ type?: string }> };
    expect(last.input.map((item) => item.type ?? 'message')).toEqual(expect.arrayContaining(['function_call', 'function_call_output']));
  });

  it('streams a tool loop with reasoning summaries from Claude, each event read by the SDK\'s own stream schema', async () => {
    const model = provider({ 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': gw.messages.baseURL }, MESSAGES_MOCK_KEY)('claude-mock-1');
    const result = streamText({
      model,
      prompt: 'look up the weather',
      tools: { lookup: tool({ description: 'Looks a thing up', inputSchema: jsonSchema<{ q?: string }>({ type: 'object', properties: { q: { type: 'string' } } }), execute: async () => 'sunny' }) },
      // The SDK sends reasoning settings only for the vendor's reasoning models unless told the model is one.
      providerOptions: { openai: { forceReasoning: true, reasoningEffort: 'low', reasoningSummary: 'auto' } },
      stopWhen: stepCountIs(3),
    });
    const kinds: string[] = [];
    for await (const part of result.fullStream) {
      if (part.type === 'error') throw part.error;
      kinds.push(part.type);
    }
    expect(kinds).toEqual(expect.arrayContaining(['reasoning-delta', 'tool-call', 'tool-result', 'text-delta', 'finish']));
    expect((await result.steps).length).toBeGreaterThan(1);
    expect(await result.finishReason).toBe('stop');
    // The second step named the first's reasoning by its ID; Claude got its own thinking back before its call.
    const second = sentBodies.at(-1) as { input: Array<{ type?: string }> };
    expect(second.input.map((item) => item.type ?? 'message')).toEqual(['message', 'item_reference', 'function_call', 'function_call_output']);
    const sent = gw.messages.requests.at(-1)!.json as { messages: Array<{ role: string; content: Array<{ type: string }> | string }> };
    expect((sent.messages[1]!.content as Array<{ type: string }>).map((b) => b.type)).toEqual(['thinking', 'tool_use']);
  });

  it('answers 404 for an item no stored response holds, and a reference to an input item is that item', async () => {
    const mock = gw.vendor[0]!;
    const headers = { ...plainHeaders(mock), authorization: `Bearer ${VENDOR_MOCK_KEY}` };
    const missing = await gw.call('POST', '/v1/responses', { headers, body: { model: 'vendor-chat-1', input: [{ role: 'user', content: 'x' }, { type: 'item_reference', id: 'msg_gw00000000000000000000000000000000_out0' }] } });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'resource_not_found', param: '/input/1/id' });
    const foreign = await gw.call('POST', '/v1/responses', { headers, body: { model: 'vendor-chat-1', input: [{ type: 'item_reference', id: 'msg_abc' }] } });
    expect(foreign.status).toBe(404);
    const created = await gw.call('POST', '/v1/responses', { headers, body: { model: 'vendor-chat-1', input: 'first words' } });
    const next = await gw.call('POST', '/v1/responses', { headers, body: { model: 'vendor-chat-1', previous_response_id: created.body.id, input: 'second words' } });
    const items = await gw.call('GET', `/v1/responses/${next.body.id}/input_items?order=asc`);
    // The first input item of the second response is the first turn's question.
    const again = await gw.call('POST', '/v1/responses', { headers, body: { model: 'vendor-chat-1', input: [{ type: 'item_reference', id: items.body.data[0].id }, { type: 'item_reference', id: created.body.output[0].id }, { role: 'user', content: 'third words' }] } });
    expect(again.status).toBe(200);
    const body = mock.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)!.json as { messages: unknown[] };
    expect(body.messages).toEqual([
      { role: 'user', content: 'first words' },
      { role: 'assistant', content: '[mock0] first words' },
      { role: 'user', content: 'third words' },
    ]);
  });
});
