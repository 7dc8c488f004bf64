// A coding agent on the Responses API (Codex, the Agents SDK) pointed at the gateway with a model
// that has no Responses API: its turn, as such agents send it (instructions, earlier tool calls and
// their outputs, a screenshot a tool took, a PDF the user attached, function tools, effort with a
// summary, store false, encrypted reasoning asked for, a prompt cache key, streamed), goes to Claude
// as the messages API's own request, and the answer streams back as Responses events. And a streamed
// call on each translated family (the messages API, converse, Gemini): deltas, and the usage its
// provider reported.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { type JobsGateway, MESSAGES_MOCK_KEY, startJobsGateway } from '../jobs/harness.ts';
import { serveTranslatedFamilies, type TranslatedFamilies } from './translated-families.ts';

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const PDF = `data:application/pdf;base64,${Buffer.from('%PDF-1.4 a report').toString('base64')}`;

type Block = Record<string, any> & { type: string };

describe('a coding agent on the Responses API, through a model without one', () => {
  let gw: JobsGateway;

  beforeAll(async () => {
    gw = await startJobsGateway('sqlite', { vendorMocks: 1 });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('sends its turns to Claude (an attached PDF; tool outputs with a screenshot, after the calls Claude made while thinking) and streams the answers back', async () => {
    const client = gw.client({ 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': gw.messages.baseURL }, MESSAGES_MOCK_KEY);
    const tools = [
      { type: 'function' as const, name: 'screenshot', parameters: { type: 'object', properties: {} }, strict: false },
      { type: 'function' as const, name: 'shell', parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] }, strict: false },
    ];
    // As such an agent sends every turn: the whole conversation so far (store false), streamed.
    const turn = async (input: unknown[]) => {
      const stream = client.responses.stream({
        model: 'claude-mock-1',
        instructions: 'You are a coding agent.',
        input: input as never,
        tools,
        tool_choice: 'auto',
        parallel_tool_calls: false,
        reasoning: { effort: 'medium', summary: 'auto' },
        store: false,
        include: ['reasoning.encrypted_content'],
        prompt_cache_key: 'conversation-7',
      });
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      expect(types[0]).toBe('response.created');
      expect(types.at(-1)).toBe('response.completed');
      return stream.finalResponse();
    };
    const sentLast = () => gw.messages.requests.at(-1)?.json as { system: unknown; thinking?: unknown; messages: Array<{ role: string; content: Block[] | string }>; tools: unknown[] };

    const ask = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'check the page and the report' }, { type: 'input_file', file_data: PDF, filename: 'report.pdf' }] };
    const first = await turn([ask]);
    const calls = first.output.filter((item) => item.type === 'function_call');
    expect(calls.length).toBeGreaterThan(0);
    expect(first.output[0]!.type).toBe('reasoning');
    const opening = sentLast();
    expect(JSON.stringify(opening.system)).toContain('You are a coding agent.');
    expect(opening.thinking).toBeDefined();
    const asked = opening.messages[0]!.content as Block[];
    expect(asked.map((b) => b.type)).toEqual(['text', 'document']);
    expect(asked[1]).toMatchObject({ source: { type: 'base64', media_type: 'application/pdf' }, title: 'report.pdf' });

    // The agent ran the calls; one took a screenshot. It sends back what the model said and the outputs.
    const outputs = calls.map((call, i) => ({
      type: 'function_call_output',
      call_id: (call as { call_id: string }).call_id,
      output: i === 0 ? [{ type: 'input_text', text: 'the page:' }, { type: 'input_image', image_url: PNG, detail: 'high' }] : 'index.html',
    }));
    const second = await turn([ask, ...first.output, ...outputs]);
    expect(second.status).toBe('completed');
    const sent = sentLast();
    expect(sent.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    // Claude's own thinking goes back before its calls (the gateway kept it), as the API requires.
    expect((sent.messages[1]!.content as Block[]).map((b) => b.type)).toEqual(['thinking', ...calls.map(() => 'tool_use')]);
    // The tool results answer the calls first; the screenshot follows them in the same turn.
    const last = sent.messages[2]!.content as Block[];
    expect(last.map((b) => b.type)).toEqual([...calls.map(() => 'tool_result'), 'image']);
    expect(last[0]).toMatchObject({ tool_use_id: (calls[0] as { call_id: string }).call_id });
    expect(JSON.stringify(last[0]!.content)).toContain('the page:');
    expect(last.at(-1)).toMatchObject({ source: { type: 'base64', media_type: 'image/png' } });
    expect(sent.tools).toHaveLength(2);
  });
});

describe('a streamed Responses call on each translated family', () => {
  let families: TranslatedFamilies;
  const KEY = 'gw-responses-families';

  beforeAll(async () => {
    families = await serveTranslatedFamilies('responses-families', KEY, (targets) => ({ claude: targets.anthropic, converse: targets.cloudc, gemini: targets.cloudb }));
  });
  afterAll(() => families?.close());

  const MODELS = { claude: 'claude-sonnet-4-6', converse: 'us.anthropic.claude-sonnet-4-6', gemini: 'gemini-2.5-flash' } as const;

  it.each(Object.keys(MODELS) as Array<keyof typeof MODELS>)('%s: text deltas as they come, the usage the provider reported', async (config) => {
    const client = new OpenAI({ baseURL: `${families.served.gateway.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': KEY, 'x-gateway-config': config } });
    const stream = client.responses.stream({ model: MODELS[config], input: 'tell me about the sea', store: false });
    let deltas = 0;
    for await (const event of stream) if (event.type === 'response.output_text.delta') deltas++;
    const final = await stream.finalResponse();
    expect(final.status).toBe('completed');
    expect(final.output_text.length).toBeGreaterThan(0);
    expect(deltas).toBeGreaterThan(0);
    expect(final.usage?.input_tokens).toBeGreaterThan(0);
    expect(final.usage?.output_tokens).toBeGreaterThan(0);
  });
});
