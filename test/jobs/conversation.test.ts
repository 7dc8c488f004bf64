// Responses ↔ chat completions for the emulation: input items to chat messages, tools and formats to
// their chat forms, a chat completion to output items, and the events the output builder tells.
import { describe, expect, it } from 'vitest';
import { formatToChat, inputToMessages, toolChoiceToChat, toolsToChat } from '../../runtime/api/responses/conversation.ts';
import { ResponseEventFrames } from '../../runtime/api/responses/events.ts';
import { OutputBuilder, outputFromChat } from '../../runtime/api/responses/output-builder.ts';

describe('inputToMessages', () => {
  it('maps strings, messages, parts, tool calls and their outputs', () => {
    expect(inputToMessages('hi')).toEqual([{ role: 'user', content: 'hi' }]);
    expect(inputToMessages([
      { role: 'developer', content: 'rules' },
      { role: 'user', content: [{ type: 'input_text', text: 'look ' }, { type: 'input_image', image_url: 'https://x/img.png', detail: 'low' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a' }, { type: 'output_text', text: 'b' }] },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
      { type: 'function_call', call_id: 'c2', name: 'g', arguments: '{"x":1}' },
      { type: 'function_call_output', call_id: 'c1', output: 'one' },
      { type: 'function_call_output', call_id: 'c2', output: { n: 2 } },
      { type: 'reasoning', summary: [] },
      { role: 'user', content: [{ type: 'input_text', text: 'plain' }] },
    ])).toEqual([
      { role: 'system', content: 'rules' },
      { role: 'user', content: [{ type: 'text', text: 'look ' }, { type: 'image_url', image_url: { url: 'https://x/img.png', detail: 'low' } }] },
      { role: 'assistant', content: 'ab' },
      { role: 'assistant', content: null, tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } },
        { id: 'c2', type: 'function', function: { name: 'g', arguments: '{"x":1}' } },
      ] },
      { role: 'tool', tool_call_id: 'c1', content: 'one' },
      { role: 'tool', tool_call_id: 'c2', content: '{"n":2}' },
      { role: 'user', content: 'plain' },
    ]);
  });

  it('maps files, and puts a function output\'s images and files in a user message after the turn\'s tool results', () => {
    const pdf = 'data:application/pdf;base64,JVBERi0xLjQ=';
    expect(inputToMessages([{ role: 'user', content: [{ type: 'input_text', text: 'read' }, { type: 'input_file', file_data: pdf, filename: 'a.pdf' }, { type: 'input_file', file_id: 'file-1' }] }])).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'read' }, { type: 'file', file: { file_data: pdf, filename: 'a.pdf' } }, { type: 'file', file: { file_id: 'file-1' } }] },
    ]);
    expect(inputToMessages([
      { type: 'function_call', call_id: 'c1', name: 'screenshot', arguments: '{}' },
      { type: 'function_call', call_id: 'c2', name: 'read', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'the ' }, { type: 'input_image', image_url: 'data:image/png;base64,iVBO', detail: 'high' }, { type: 'input_text', text: 'screen' }] },
      { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_file', file_data: pdf, filename: 'a.pdf' }] },
      { role: 'user', content: 'what do you see?' },
      { type: 'function_call', call_id: 'c3', name: 'screenshot', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c3', output: [{ type: 'input_image', image_url: 'https://x/b.png' }] },
    ])).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'screenshot', arguments: '{}' } }, { id: 'c2', type: 'function', function: { name: 'read', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'the screen' },
      { role: 'tool', tool_call_id: 'c2', content: '' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBO', detail: 'high' } }, { type: 'file', file: { file_data: pdf, filename: 'a.pdf' } }] },
      { role: 'user', content: 'what do you see?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c3', type: 'function', function: { name: 'screenshot', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c3', content: '' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/b.png' } }] },
    ]);
  });

  it('refuses what chat completions cannot carry, naming the item', () => {
    expect(() => inputToMessages([{ role: 'user', content: 'a' }, { type: 'file_search_call', id: 'x' }])).toThrow(expect.objectContaining({ code: 'unsupported_parameter', param: '/input/1/type' }));
    expect(() => inputToMessages([{ role: 'user', content: [{ type: 'input_file', file_url: 'https://x/a.pdf' }] }])).toThrow(expect.objectContaining({ code: 'unsupported_parameter', param: '/input/0/content/0/file_url' }));
    expect(() => inputToMessages([{ role: 'user', content: [{ type: 'input_file', filename: 'a.pdf' }] }])).toThrow(expect.objectContaining({ code: 'invalid_request_body', param: '/input/0/content/0' }));
    expect(() => inputToMessages([{ type: 'function_call_output', call_id: 'c', output: [{ type: 'input_audio' }] }])).toThrow(expect.objectContaining({ code: 'unsupported_parameter', param: '/input/0/output/0/type' }));
    // A text that is not a string is the client's mistake, not "[object Object]" sent to the model.
    expect(() => inputToMessages([{ role: 'user', content: [{ type: 'input_text', text: { a: 1 } }] }])).toThrow(expect.objectContaining({ code: 'invalid_request_body', param: '/input/0/content/0/text' }));
    expect(() => inputToMessages([{ type: 'function_call_output', call_id: 'c', output: [{ type: 'input_text', text: 7 }] }])).toThrow(expect.objectContaining({ param: '/input/0/output/0/text' }));
    expect(() => inputToMessages([{ type: 'function_call', call_id: ['c'], name: 'f', arguments: '{}' }])).toThrow(expect.objectContaining({ param: '/input/0/call_id' }));
    expect(() => inputToMessages([{ type: 'function_call', call_id: 'c', name: 'f', arguments: { x: 1 } }])).toThrow(expect.objectContaining({ param: '/input/0/arguments' }));
    expect(() => inputToMessages([{ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}', namespace: 'crm' }])).toThrow(expect.objectContaining({ code: 'unsupported_parameter', param: '/input/0/namespace' }));
    expect(() => inputToMessages([{ role: 'user', content: [{ type: 'input_image', file_id: 'f' }] }])).toThrow(expect.objectContaining({ code: 'unsupported_parameter' }));
    // A chat message of another role is its text: the image would be dropped.
    expect(() => inputToMessages([{ role: 'developer', content: [{ type: 'input_text', text: 'see' }, { type: 'input_image', image_url: 'https://x/img.png' }] }, { role: 'user', content: 'hi' }]))
      .toThrow(expect.objectContaining({ code: 'unsupported_parameter', param: '/input/0/content/1/type' }));
  });
});

describe('tools and formats', () => {
  it('maps function tools, tool choice and text formats', () => {
    expect(toolsToChat([{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: true, description: null }])).toEqual([{ type: 'function', function: { name: 'f', parameters: { type: 'object' }, strict: true } }]);
    expect(toolsToChat([])).toBeUndefined();
    expect(() => toolsToChat([{ type: 'function', name: 'f' }, { type: 'web_search' }])).toThrow(expect.objectContaining({ param: '/tools/1/type' }));
    expect(() => toolsToChat([{ type: 'function', name: 'f', defer_loading: true }])).toThrow(expect.objectContaining({ code: 'unsupported_parameter', param: '/tools/0/defer_loading' }));
    expect(toolChoiceToChat('auto')).toBe('auto');
    expect(toolChoiceToChat({ type: 'function', name: 'f' })).toEqual({ type: 'function', function: { name: 'f' } });
    expect(formatToChat({ format: { type: 'text' } })).toBeUndefined();
    expect(formatToChat({ format: { type: 'json_object' } })).toEqual({ type: 'json_object' });
    expect(formatToChat({ format: { type: 'json_schema', name: 'n', schema: { type: 'object' }, strict: true } })).toEqual({ type: 'json_schema', json_schema: { name: 'n', schema: { type: 'object' }, strict: true } });
  });
});

describe('outputFromChat', () => {
  it('turns text, tool calls, length stops and usage into Responses terms', () => {
    const out = outputFromChat({
      model: 'm',
      choices: [{ message: { content: 'hello', tool_calls: [{ id: 'call_1', function: { name: 'f', arguments: '{}' } }] }, finish_reason: 'length' }],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7, prompt_tokens_details: { cached_tokens: 1 }, completion_tokens_details: { reasoning_tokens: 0 } },
    });
    expect(out.output).toEqual([
      { id: expect.stringMatching(/^msg_/), type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'hello', annotations: [] }] },
      { id: expect.stringMatching(/^fc_/), type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}', status: 'completed' },
    ]);
    expect(out).toMatchObject({ status: 'incomplete', incompleteReason: 'max_output_tokens', outputText: 'hello' });
    expect(out.usage).toEqual({ input_tokens: 5, output_tokens: 2, total_tokens: 7, input_tokens_details: { cached_tokens: 1 }, output_tokens_details: { reasoning_tokens: 0 } });
    expect(out.assistant).toEqual({ role: 'assistant', content: 'hello', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] });
    const callsOnly = outputFromChat({ choices: [{ message: { content: null, tool_calls: [{ id: 'c', function: { name: 'g', arguments: '' } }] }, finish_reason: 'tool_calls' }] });
    expect(callsOnly.output.map((o) => o.type)).toEqual(['function_call']);
    expect(callsOnly.assistant.content).toBeNull();
    expect(callsOnly.status).toBe('completed');
  });

  it('gives the reasoning text as a summary item first, only when the summary is asked for', () => {
    const chat = { choices: [{ message: { content: 'hi', reasoning_content: 'I thought' }, finish_reason: 'stop' }] };
    expect(outputFromChat(chat).output.map((o) => o.type)).toEqual(['message']);
    const summarized = outputFromChat(chat, true).output;
    expect(summarized[0]).toEqual({ id: expect.stringMatching(/^rs_/), type: 'reasoning', summary: [{ type: 'summary_text', text: 'I thought' }] });
    expect(summarized.map((o) => o.type)).toEqual(['reasoning', 'message']);
    expect(outputFromChat({ choices: [{ message: { content: 'hi' }, finish_reason: 'stop' }] }, true).output.map((o) => o.type)).toEqual(['message']);
  });
});

describe('the output builder with its events', () => {
  const parse = (frames: string) => frames.split('\n\n').filter((f) => f !== '').map((f) => JSON.parse(f.split('\ndata: ')[1]!) as Record<string, unknown> & { type: string; sequence_number: number });

  it('tells the events of a message and a function call, numbered, ending in response.completed', () => {
    const frames = new ResponseEventFrames({ obfuscation: false });
    frames.opening({ id: 'r', status: 'completed' });
    const builder = new OutputBuilder(false, frames.emit);
    builder.text('h');
    builder.text('i');
    builder.toolCall(0, 'call_1', 'f', '{');
    builder.toolCall(0, undefined, undefined, '}');
    const result = builder.end();
    frames.closing({ id: 'r', status: 'completed', output: result.output });
    const events = parse(frames.take());
    expect(events.map((e) => e.type)).toEqual([
      'response.created', 'response.in_progress',
      'response.output_item.added', 'response.content_part.added', 'response.output_text.delta', 'response.output_text.delta', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.function_call_arguments.delta', 'response.function_call_arguments.delta', 'response.function_call_arguments.done', 'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events[2]).toMatchObject({ output_index: 0, item: { type: 'message', status: 'in_progress', content: [] } });
    expect(events[6]).toMatchObject({ output_index: 0, content_index: 0, text: 'hi' });
    expect(events[9]).toMatchObject({ output_index: 1, item: { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '', status: 'in_progress' } });
    expect(events[12]).toMatchObject({ output_index: 1, arguments: '{}' });
    expect(events[13]).toMatchObject({ item: { call_id: 'call_1', arguments: '{}', status: 'completed' } });
    expect(result.output).toEqual([
      { id: expect.stringMatching(/^msg_/), type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'hi', annotations: [] }] },
      { id: expect.stringMatching(/^fc_/), type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}', status: 'completed' },
    ]);
    const incomplete = new ResponseEventFrames({ obfuscation: false });
    incomplete.closing({ status: 'incomplete' });
    expect(parse(incomplete.take())[0]!.type).toBe('response.incomplete');
  });

  it('tells a reasoning item\'s summary as its part and text events, and a refusal as a part of its own', () => {
    const frames = new ResponseEventFrames({ obfuscation: false });
    const builder = new OutputBuilder(true, frames.emit);
    builder.reasoning('I thought');
    builder.refusal('no');
    builder.end();
    const events = parse(frames.take());
    expect(events.map((e) => e.type)).toEqual([
      'response.output_item.added', 'response.reasoning_summary_part.added', 'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done', 'response.reasoning_summary_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.content_part.added', 'response.refusal.delta', 'response.refusal.done', 'response.content_part.done', 'response.output_item.done',
    ]);
    expect(events[0]).toMatchObject({ item: { type: 'reasoning', summary: [] } });
    expect(events[1]).toMatchObject({ output_index: 0, summary_index: 0, part: { type: 'summary_text', text: '' } });
    expect(events[2]).toEqual({ type: 'response.reasoning_summary_text.delta', sequence_number: 2, item_id: expect.stringMatching(/^rs_/), output_index: 0, summary_index: 0, delta: 'I thought' });
    expect(events[4]).toMatchObject({ part: { type: 'summary_text', text: 'I thought' } });
    expect(events[9]).toMatchObject({ output_index: 1, content_index: 0, refusal: 'no' });
    expect(events[11]).toMatchObject({ item: { content: [{ type: 'refusal', refusal: 'no' }] } });
  });

  it('pads text deltas with obfuscation unless switched off', () => {
    const frames = new ResponseEventFrames({ obfuscation: true });
    const builder = new OutputBuilder(false, frames.emit);
    builder.text('x');
    const delta = parse(frames.take()).find((e) => e.type === 'response.output_text.delta');
    expect(delta?.obfuscation).toMatch(/^[\w-]{1,16}$/);
  });
});
