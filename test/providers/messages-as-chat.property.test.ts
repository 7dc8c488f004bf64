// The messages API's create call as a chat completion (messages-as-chat.ts) and the chat's answer as
// the messages API's (chat-as-messages.ts): the conversation's words and tool calls go over in order,
// Claude's thinking of earlier turns is left out, and a streamed answer, however its bytes are cut,
// adds up to the message the same answer makes unstreamed.
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { GatewayError } from '../../runtime/core/errors.ts';
import { chatOfMessages } from '../../runtime/providers/shared/messages-as-chat.ts';
import { ChatAsMessagesStream, messageOfChat } from '../../runtime/providers/shared/chat-as-messages.ts';
import { cutAt } from '../support/cut.ts';
import { thrownBy } from './adapter-calls.ts';
import { hostileMessagesBody } from '../support/hostile-messages-body.ts';

type Json = Record<string, any>;

const text = fc.string({ minLength: 1, maxLength: 20 });
const toolId = fc.stringMatching(/^toolu_[a-z0-9]{4}$/);
const input = fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean()), { maxKeys: 3 });

/** A turn of each role, in the blocks a messages client sends: words, tool calls and their results, and Claude's thinking. */
const assistantTurn = fc.array(fc.oneof(
  text.map((t) => ({ type: 'text', text: t })),
  fc.record({ id: toolId, name: fc.stringMatching(/^[a-z_]{1,10}$/), input }).map((call) => ({ type: 'tool_use', ...call })),
  text.map((t) => ({ type: 'thinking', thinking: t, signature: 'c2ln' })),
), { minLength: 1, maxLength: 4 }).map((content) => ({ role: 'assistant', content }));
/** An assistant turn that called a tool, for the parts that follow one. */
const TOOL_TURN = { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] };
const userTurn = fc.oneof(
  text.map((content) => ({ role: 'user', content })),
  fc.array(fc.oneof(text.map((t) => ({ type: 'text', text: t })), fc.record({ tool_use_id: toolId, content: text }).map((result) => ({ type: 'tool_result', ...result }))), { minLength: 1, maxLength: 3 }).map((content) => ({ role: 'user', content })),
);

/**
 * The words of a messages conversation, in the order the chat has them: text and tool results, not
 * thinking; a user turn's tool results before its text (the chat wants a call's result right after it).
 */
function wordsOfMessages(turns: Json[]): string[] {
  return turns.flatMap((turn) => {
    if (typeof turn.content === 'string') return [turn.content];
    const blocks = turn.content as Json[];
    const results = blocks.filter((block) => block.type === 'tool_result').map((block) => `result:${block.content}`);
    return [...results, ...blocks.filter((block) => block.type === 'text').map((block) => block.text)];
  });
}

/** The same of a chat conversation: its user and assistant words, its tool messages. */
function wordsOfChat(messages: Json[]): string[] {
  return messages.flatMap((message) => (message.role === 'tool' ? [`result:${message.content}`] : typeof message.content === 'string' ? [message.content] : Array.isArray(message.content) ? message.content.map((part: Json) => part.text) : []));
}

describe('a messages create call as a chat completion', () => {
  test.prop([fc.array(fc.oneof(userTurn, assistantTurn), { minLength: 1, maxLength: 6 }), fc.option(text, { nil: undefined })])(
    'keeps every word and tool call, in order (a turn\'s tool results first), and leaves out Claude\'s thinking',
    (turns, system) => {
      const chat = chatOfMessages({ model: 'm', max_tokens: 10, messages: turns, ...(system === undefined ? {} : { system }) }, 'max_tokens');
      const messages = chat.messages as Json[];
      if (system !== undefined) expect(messages[0]).toEqual({ role: 'system', content: system });
      const conversation = system === undefined ? messages : messages.slice(1);
      // A turn's words joined into one message: compare the words as one text, in order.
      expect(wordsOfChat(conversation).join('')).toBe(wordsOfMessages(turns).join(''));
      const calls = turns.flatMap((turn) => (Array.isArray(turn.content) ? turn.content.filter((block: Json) => block.type === 'tool_use') : []));
      const chatCalls = conversation.flatMap((message) => message.tool_calls ?? []);
      expect(chatCalls).toEqual(calls.map((call: Json) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.input) } })));
      expect(JSON.stringify(chat)).not.toContain('c2ln');
    },
  );

  test.prop([fc.stringMatching(/^[a-z_]{1,12}$/).filter((member) => !['model', 'messages', 'system', 'max_tokens', 'stop_sequences', 'stream', 'temperature', 'top_p', 'tools', 'tool_choice', 'metadata', 'thinking', 'output_config', 'service_tier', 'speed', 'cache_control', 'diagnostics'].includes(member))])(
    'refuses any other member, naming it',
    (member) => {
      const thrown = thrownBy(() => chatOfMessages({ model: 'm', messages: [], [member]: 1 }, 'max_tokens'));
      expect(thrown?.code).toBe('unsupported_parameter');
      expect(thrown?.param).toBe(`/${member}`);
    },
  );

  test.prop([hostileMessagesBody])('answers any body with a chat or a gateway error naming where, never a crash', (body) => {
    let chat: Json | undefined;
    try {
      chat = chatOfMessages(body, 'max_tokens');
    } catch (error) {
      expect(error).toBeInstanceOf(GatewayError);
      return;
    }
    expect(Array.isArray(chat.messages)).toBe(true);
    expect(() => JSON.stringify(chat)).not.toThrow();
  });

  /** One of each part of a body, each with the members the translation reads, and where it stands. */
  const PARTS: Array<{ at: string; known: string[]; body: (extra: Json) => Json }> = [
    { at: '/system/0', known: ['type', 'text', 'cache_control', 'citations'], body: (extra) => ({ system: [{ type: 'text', text: 's', ...extra }] }) },
    { at: '/messages/0/content/0', known: ['type', 'text', 'cache_control', 'citations'], body: (extra) => ({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', ...extra }] }] }) },
    { at: '/messages/0/content/0', known: ['type', 'source', 'cache_control'], body: (extra) => ({ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://x.test/a.png' }, ...extra }] }] }) },
    { at: '/messages/0/content/0', known: ['type', 'source', 'title', 'cache_control'], body: (extra) => ({ messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'AA==' }, ...extra }] }] }) },
    { at: '/messages/0/content/0/source', known: ['type', 'media_type', 'data'], body: (extra) => ({ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA==', ...extra } }] }] }) },
    { at: '/messages/1/content/0', known: ['type', 'tool_use_id', 'content', 'cache_control', 'is_error'], body: (extra) => ({ messages: [TOOL_TURN, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok', ...extra }] }] }) },
    { at: '/messages/1/content/0/content/0', known: ['type', 'text', 'cache_control', 'citations'], body: (extra) => ({ messages: [TOOL_TURN, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'ok', ...extra }] }] }] }) },
    { at: '/messages/0/content/0', known: ['type', 'id', 'name', 'input', 'caller', 'toolset_name', 'cache_control'], body: (extra) => ({ messages: [{ role: 'assistant', content: [{ ...TOOL_TURN.content[0], ...extra }] }] }) },
    { at: '/messages/0', known: ['role', 'content', 'clear_at'], body: (extra) => ({ messages: [{ role: 'system', content: 'Be brief.', ...extra }] }) },
    { at: '/tools/0', known: ['type', 'name', 'description', 'input_schema', 'strict', 'cache_control', 'eager_input_streaming'], body: (extra) => ({ tools: [{ name: 'f', input_schema: { type: 'object' }, ...extra }] }) },
    { at: '/tool_choice', known: ['type', 'name', 'disable_parallel_tool_use'], body: (extra) => ({ tool_choice: { type: 'auto', ...extra } }) },
    { at: '/thinking', known: ['type', 'budget_tokens', 'display'], body: (extra) => ({ thinking: { type: 'adaptive', ...extra } }) },
    { at: '/output_config', known: ['effort', 'format'], body: (extra) => ({ output_config: { effort: 'low', ...extra } }) },
    { at: '/output_config/format', known: ['type', 'schema'], body: (extra) => ({ output_config: { format: { type: 'json_schema', schema: { type: 'object' }, ...extra } } }) },
    { at: '/context_management', known: ['edits'], body: (extra) => ({ context_management: { edits: [], ...extra } }) },
    { at: '/context_management/edits/0', known: ['type', 'keep'], body: (extra) => ({ context_management: { edits: [{ type: 'clear_thinking_20251015', ...extra }] } }) },
  ];

  test.prop([fc.constantFrom(...PARTS), fc.stringMatching(/^[a-z_]{1,16}$/)])(
    'refuses a member it does not read in any part of the body (a block, a tool, a source), naming where it is',
    (part, member) => {
      fc.pre(!part.known.includes(member));
      const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }], ...part.body({ [member]: 1 }) };
      const thrown = thrownBy(() => chatOfMessages(body, 'max_tokens'));
      expect(thrown?.code).toBe('unsupported_parameter');
      expect(thrown?.param).toBe(`${part.at}/${member}`);
      expect(thrown?.message).toContain(`"${`${part.at}/${member}`.slice(1).replaceAll('/', '.')}"`);
    },
  );

  /** Claude's hints on each part, as a client that sends Claude's own answer back has them. */
  const hints = fc.record({
    top: fc.subarray([['cache_control', { type: 'ephemeral' }], ['service_tier', 'auto'], ['speed', 'fast'], ['diagnostics', { previous_message_id: null }]] as Array<[string, unknown]>),
    cacheText: fc.boolean(), citations: fc.boolean(), isError: fc.boolean(), directCaller: fc.boolean(), cacheTool: fc.boolean(), eager: fc.boolean(), display: fc.boolean(),
  });

  test.prop([hints])('leaves Claude\'s hints out without a change to the chat: its prompt cache, citations, a call\'s direct caller, a result\'s error flag', (hint) => {
    const bodyOf = (withHints: boolean): Json => {
      const on = (yes: boolean, member: Json): Json => (withHints && yes ? member : {});
      return {
        model: 'm', max_tokens: 10,
        ...(withHints ? Object.fromEntries(hint.top) : {}),
        system: [{ type: 'text', text: 'Be brief.', ...on(hint.cacheText, { cache_control: { type: 'ephemeral', ttl: '1h' } }) }],
        thinking: { type: 'adaptive', ...on(hint.display, { display: 'omitted' }) },
        tools: [{ name: 'f', input_schema: { type: 'object' }, ...on(hint.cacheTool, { cache_control: { type: 'ephemeral' } }), ...on(hint.eager, { eager_input_streaming: true }) }],
        messages: [
          { role: 'user', content: 'Call f' },
          { role: 'assistant', content: [{ type: 'text', text: 'Calling.', ...on(hint.citations, { citations: null }) }, { ...TOOL_TURN.content[0], ...on(hint.directCaller, { caller: { type: 'direct' }, toolset_name: null }) }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'failed', ...on(hint.isError, { is_error: true }), ...on(hint.cacheText, { cache_control: { type: 'ephemeral' } }) }] },
        ],
      };
    };
    expect(chatOfMessages(bodyOf(true), 'max_tokens')).toEqual(chatOfMessages(bodyOf(false), 'max_tokens'));
  });

  test.prop([fc.constantFrom('low', 'medium', 'high', 'xhigh', 'max'), fc.option(fc.integer({ min: 1024, max: 64_000 }), { nil: undefined })])(
    'asks the effort output_config names (max as the chat\'s most, xhigh), over a thinking budget\'s',
    (effort, budget) => {
      const thinking = budget === undefined ? { type: 'adaptive' } : { type: 'enabled', budget_tokens: budget };
      const chat = chatOfMessages({ model: 'm', messages: [{ role: 'user', content: 'hi' }], thinking, output_config: { effort } }, 'max_tokens');
      expect(chat.reasoning_effort).toBe(effort === 'max' ? 'xhigh' : effort);
    },
  );

  test.prop([fc.oneof(fc.string(), fc.constantFrom('toString', '__proto__', 'constructor', 'minimal', 'none'), fc.integer())])('refuses an effort the messages API has no name for', (effort) => {
    fc.pre(!['low', 'medium', 'high', 'xhigh', 'max'].includes(effort as string));
    const thrown = thrownBy(() => chatOfMessages({ model: 'm', messages: [], output_config: { effort } }, 'max_tokens'));
    expect(thrown?.code).toBe('invalid_request_body');
    expect(thrown?.param).toBe('/output_config/effort');
  });

  it('asks for the answer in the schema output_config.format names, held to it (strict), and a tool\'s input held to its schema', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    const chat = chatOfMessages({
      model: 'm', messages: [{ role: 'user', content: 'hi' }], output_config: { format: { type: 'json_schema', schema } },
      tools: [{ name: 'f', input_schema: schema, strict: true }, { name: 'g', input_schema: schema }],
    }, 'max_tokens');
    expect(chat.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'output', schema, strict: true } });
    expect((chat.tools as Json[]).map((tool) => tool.function.strict)).toEqual([true, undefined]);
    expect(thrownBy(() => chatOfMessages({ model: 'm', messages: [], output_config: { format: { type: 'text' } } }, 'max_tokens'))?.param).toBe('/output_config/format/type');
  });

  it('keeps a system message where it stands, until the user turn it was for has passed (clear_at)', () => {
    const turns = (clearAt?: string): Json[] => [
      { role: 'user', content: 'one' },
      { role: 'system', content: [{ type: 'text', text: 'Now be terse.' }], ...(clearAt === undefined ? {} : { clear_at: clearAt }) },
      { role: 'user', content: 'two' },
    ];
    const messagesOf = (body: Json[]) => chatOfMessages({ model: 'm', messages: body }, 'max_tokens').messages;
    expect(messagesOf(turns())).toEqual([{ role: 'user', content: 'one' }, { role: 'system', content: 'Now be terse.' }, { role: 'user', content: 'two' }]);
    expect(messagesOf(turns('never'))).toEqual(messagesOf(turns()));
    expect(messagesOf(turns('next_user_message'))).toEqual([{ role: 'user', content: 'one' }, { role: 'user', content: 'two' }]);
    expect(messagesOf(turns('next_user_message').slice(0, 2))).toEqual([{ role: 'user', content: 'one' }, { role: 'system', content: 'Now be terse.' }]);
    expect(thrownBy(() => messagesOf([{ role: 'system', content: 'x', output_config: { effort: 'low' } }]))?.param).toBe('/messages/0/output_config');
  });

  test.prop([fc.constantFrom<unknown>(undefined, 'all', { type: 'all' }, { type: 'thinking_turns', value: 1 }, { type: 'thinking_turns', value: 7 })])(
    'takes the clearing of earlier turns\' thinking, whatever it keeps, without a change to the chat (it carries no earlier thinking)',
    (keep) => {
      const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's' }, { type: 'text', text: 'a' }] }, { role: 'user', content: 'again' }] };
      const edits = [{ type: 'clear_thinking_20251015', ...(keep === undefined ? {} : { keep }) }];
      expect(chatOfMessages({ ...body, context_management: { edits } }, 'max_tokens')).toEqual(chatOfMessages(body, 'max_tokens'));
    },
  );

  it('refuses an edit of what the model sees that the gateway does not make, and a keep it has no meaning for', () => {
    const withEdits = (edits: unknown) => ({ model: 'm', messages: [], context_management: { edits } });
    const cleared = thrownBy(() => chatOfMessages(withEdits([{ type: 'clear_thinking_20251015' }, { type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 1000 } }]), 'max_tokens'));
    expect(cleared).toMatchObject({ code: 'unsupported_parameter', param: '/context_management/edits/1/type' });
    expect(thrownBy(() => chatOfMessages(withEdits([{ type: 'compact_20260112' }]), 'max_tokens'))?.param).toBe('/context_management/edits/0/type');
    for (const keep of ['some', { type: 'thinking_turns', value: 0 }, { type: 'thinking_turns' }, null]) {
      expect(thrownBy(() => chatOfMessages(withEdits([{ type: 'clear_thinking_20251015', keep }]), 'max_tokens')), JSON.stringify(keep)).toMatchObject({ code: 'invalid_request_body', param: '/context_management/edits/0/keep' });
    }
  });

  it('sends a tool result\'s images in the user message after the tool messages, first, as a chat tool message holds text only', () => {
    const image = (data: string) => ({ type: 'image', source: { type: 'base64', media_type: 'image/png', data } });
    const chat = chatOfMessages({
      model: 'm',
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: {} }, { type: 'tool_use', id: 't2', name: 'read', input: {} }] },
        { role: 'user', content: [
          { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'Read a.png' }, image('QQ==')] },
          { type: 'tool_result', tool_use_id: 't2', content: [image('Qg==')] },
          { type: 'text', text: 'What do they show?' },
        ] },
      ],
    }, 'max_tokens');
    expect((chat.messages as Json[]).slice(1)).toEqual([
      { role: 'tool', tool_call_id: 't1', content: 'Read a.png' },
      { role: 'tool', tool_call_id: 't2', content: '' },
      { role: 'user', content: [
        { type: 'image_url', image_url: { url: 'data:image/png;base64,QQ==' } },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,Qg==' } },
        { type: 'text', text: 'What do they show?' },
      ] },
    ]);
    const document = { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } };
    expect(thrownBy(() => chatOfMessages({ model: 'm', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [document] }] }] }, 'max_tokens'))?.param).toBe('/messages/0/content/0/content/0/source');
    const searchResult = { type: 'search_result', source: 'https://example.com', title: 't', content: [] };
    expect(thrownBy(() => chatOfMessages({ model: 'm', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [searchResult] }] }] }, 'max_tokens'))?.param).toBe('/messages/0/content/0/content/0/type');
  });

  it('sends a PDF document as the chat\'s file part, its title as the file name, in a turn or a tool result; another document is refused at its source', () => {
    const pdf = (title?: string) => ({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' }, ...(title === undefined ? {} : { title }), cache_control: { type: 'ephemeral' } });
    const chat = chatOfMessages({ model: 'm', messages: [
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [pdf()] }, pdf('report.pdf'), { type: 'text', text: 'Compare them.' }] },
    ] }, 'max_tokens');
    const file = (filename: string) => ({ type: 'file', file: { filename, file_data: 'data:application/pdf;base64,JVBERi0=' } });
    expect((chat.messages as Json[]).slice(1)).toEqual([
      { role: 'tool', tool_call_id: 't1', content: '' },
      { role: 'user', content: [file('document.pdf'), file('report.pdf'), { type: 'text', text: 'Compare them.' }] },
    ]);
    const word = { type: 'document', source: { type: 'base64', media_type: 'application/msword', data: 'AA==' } };
    expect(thrownBy(() => chatOfMessages({ model: 'm', messages: [{ role: 'user', content: [word] }] }, 'max_tokens'))).toMatchObject({ code: 'unsupported_parameter', param: '/messages/0/content/0/source' });
    expect(thrownBy(() => chatOfMessages({ model: 'm', messages: [{ role: 'user', content: [{ ...pdf(), citations: { enabled: true } }] }] }, 'max_tokens'))?.param).toBe('/messages/0/content/0/citations');
  });

  it('refuses a tool call of an earlier turn that Claude\'s code execution or an MCP toolset made', () => {
    const turn = (extra: Json) => ({ model: 'm', messages: [{ role: 'assistant', content: [{ ...TOOL_TURN.content[0], ...extra }] }] });
    expect(thrownBy(() => chatOfMessages(turn({ caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_1' } }), 'max_tokens'))?.param).toBe('/messages/0/content/0/caller');
    expect(thrownBy(() => chatOfMessages(turn({ toolset_name: 'github' }), 'max_tokens'))?.param).toBe('/messages/0/content/0/toolset_name');
  });
});

/** A chat completion: some text and tool calls, a finish reason, the counts. */
const completion = fc.record({
  text: fc.option(fc.string({ minLength: 1, maxLength: 40 }), { nil: undefined }),
  calls: fc.array(fc.record({ id: fc.stringMatching(/^call_[a-z0-9]{3}$/), name: fc.stringMatching(/^[a-z_]{1,8}$/), input }), { maxLength: 2 }),
  finish: fc.constantFrom('stop', 'length', 'tool_calls', 'content_filter'),
  usage: fc.record({ prompt_tokens: fc.nat(1000), completion_tokens: fc.nat(1000) }),
});

/** The completion's stream: its text and each call's arguments in pieces, then the finish, the usage chunk and [DONE]. */
type Answer = typeof completion extends fc.Arbitrary<infer T> ? T : never;

function chunksOf(answer: Answer, pieces: number[]): string {
  const cut = (s: string): string[] => {
    const at = [...new Set(pieces.map((p) => p % (s.length + 1)))].sort((a, b) => a - b);
    return cutAt(Buffer.from(s), at).map((b) => b.toString());
  };
  const chunk = (delta: Json, finish: string | null = null) => ({ id: 'chatcmpl-x', object: 'chat.completion.chunk', model: 'gpt-x', choices: [{ index: 0, delta, finish_reason: finish }] });
  const events: Json[] = [chunk({ role: 'assistant', content: '' })];
  if (answer.text !== undefined) for (const piece of cut(answer.text)) events.push(chunk({ content: piece }));
  answer.calls.forEach((call, index) => {
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of cut(JSON.stringify(call.input))) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  events.push(chunk({}, answer.finish));
  events.push({ id: 'chatcmpl-x', object: 'chat.completion.chunk', model: 'gpt-x', choices: [], usage: answer.usage });
  return `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;
}

/** A message put together from the messages API's events, as its SDKs do. */
function accumulated(sse: string): Json {
  let message: Json = {};
  const partial = new Map<number, string>();
  for (const frame of sse.split('\n\n').filter((f) => f !== '')) {
    const event = JSON.parse(frame.split('\n')[1]!.slice('data: '.length)) as Json;
    if (event.type === 'message_start') message = { ...event.message, content: [] };
    else if (event.type === 'content_block_start') message.content[event.index] = { ...event.content_block };
    else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') message.content[event.index].text += event.delta.text;
    else if (event.type === 'content_block_delta') partial.set(event.index, (partial.get(event.index) ?? '') + event.delta.partial_json);
    else if (event.type === 'content_block_stop' && partial.has(event.index)) message.content[event.index].input = JSON.parse(partial.get(event.index)!);
    else if (event.type === 'message_delta') Object.assign(message, event.delta, { usage: { ...message.usage, ...event.usage } });
    else if (event.type === 'error') throw new Error(JSON.stringify(event));
  }
  return message;
}

describe('a chat answer as the messages API\'s', () => {
  test.prop([completion, fc.array(fc.nat(), { maxLength: 4 }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 8 })])(
    'streamed and cut anywhere, adds up to the message the same answer makes unstreamed',
    (answer, pieces, cuts) => {
      const whole = messageOfChat({
        id: 'chatcmpl-x', model: 'gpt-x', usage: answer.usage,
        choices: [{ index: 0, finish_reason: answer.finish, message: { role: 'assistant', content: answer.text ?? null, ...(answer.calls.length === 0 ? {} : { tool_calls: answer.calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.input) } })) }) } }],
      }, 'p') as Json;
      const wire = Buffer.from(chunksOf(answer, pieces));
      const mapper = new ChatAsMessagesStream();
      const sse = cutAt(wire, cuts.map((f) => Math.floor(f * wire.length))).map((chunk) => mapper.push(chunk)).join('') + mapper.end();
      const streamed = accumulated(sse);
      expect(streamed.content).toEqual(whole.content);
      expect(streamed.stop_reason).toBe(whole.stop_reason);
      expect(streamed.usage).toEqual({ output_tokens: whole.usage.output_tokens, ...whole.usage });
      expect(streamed.model).toBe('gpt-x');
    },
  );

  test.prop([fc.array(fc.string({ maxLength: 10 }), { maxLength: 4 })])('ends a stream that stops before [DONE] with the messages API\'s error event', (texts) => {
    const mapper = new ChatAsMessagesStream();
    const body = texts.map((t) => `data: ${JSON.stringify({ id: 'c', model: 'm', choices: [{ index: 0, delta: { content: t } }] })}\n\n`).join('');
    const out = mapper.push(Buffer.from(body)) + mapper.end();
    expect(out.trimEnd().split('\n\n').at(-1)).toMatch(/^event: error\ndata: \{"type":"error","error":\{"type":"api_error"/);
  });
});
