// The tool-use turns of a family's own chat API with the model's signed reasoning, as a client sends
// them: a first turn asking with thinking on and a tool offered (the mocks answer with a signed
// reasoning block and a tool call), and a second turn sending that answer back with the tool's result.
// The messages API (JSON and SSE), a Claude model's invoke on cloud C (JSON and its event stream) and
// converse (JSON and its event stream), each read into the assistant turn its client would keep.
import { EventStreamDecoder } from '../../runtime/providers/cloudc/event-stream.ts';

type Json = Record<string, any>;

/** The assistant turn a client keeps from an answer: its blocks, the reasoning's text, the tool call's id. */
export interface AssistantTurn {
  content: Json[];
  reasoning: string;
  toolUseId: string;
}

export interface ReasoningCall {
  name: string;
  /** Which mock answers it (the messages mock, or cloud C's). */
  family: 'messages' | 'cloudc';
  format: 'messages' | 'converse';
  path: string;
  /** The first turn's body for a question. */
  firstTurn(question: string): Json;
  /** The assistant turn an answer stands for (a stream's, assembled as its SDK does). */
  read(res: Response): Promise<AssistantTurn>;
  /** The reasoning text of the assistant turn a body sent back (the provider's request). */
  sentReasoning(body: unknown): string;
  /** The assistant turn's blocks with the reasoning's text replaced. */
  withReasoning(content: Json[], text: string): Json[];
}

const CLAUDE = 'anthropic.claude-3-7-sonnet-20250219-v1:0';
const invokePath = (verb: string) => `/v1/model/${encodeURIComponent(CLAUDE)}/${verb}`;

function messagesTurn(extra: Json) {
  return (question: string): Json => ({
    ...extra, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 },
    tools: [{ name: 'lookup', description: 'Looks it up', input_schema: { type: 'object' } }],
    messages: [{ role: 'user', content: question }],
  });
}

function converseTurn(question: string): Json {
  return {
    messages: [{ role: 'user', content: [{ text: question }] }],
    additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 } },
    toolConfig: { tools: [{ toolSpec: { name: 'lookup', description: 'Looks it up', inputSchema: { json: { type: 'object' } } } }] },
  };
}

function messagesTurnOf(content: Json[]): AssistantTurn {
  return { content, reasoning: content.find((b) => b.type === 'thinking')!.thinking, toolUseId: content.find((b) => b.type === 'tool_use')!.id };
}

function converseTurnOf(content: Json[]): AssistantTurn {
  return { content, reasoning: content.find((b) => b.reasoningContent !== undefined)!.reasoningContent.reasoningText.text, toolUseId: content.find((b) => b.toolUse !== undefined)!.toolUse.toolUseId };
}

/** A messages stream's events into the message's blocks, as the SDK's message stream assembles them. */
function messagesBlocks(events: Json[]): Json[] {
  const blocks: Json[] = [];
  const json: string[] = [];
  for (const event of events) {
    if (event.type === 'content_block_start') {
      blocks[event.index] = { ...event.content_block };
      json[event.index] = '';
    } else if (event.type === 'content_block_delta') {
      const block = blocks[event.index]!;
      const delta = event.delta;
      if (delta.type === 'thinking_delta') block.thinking += delta.thinking;
      else if (delta.type === 'signature_delta') block.signature = (block.signature ?? '') + delta.signature;
      else if (delta.type === 'text_delta') block.text += delta.text;
      else if (delta.type === 'input_json_delta') json[event.index] += delta.partial_json;
    }
  }
  return blocks.map((block, i) => (block.type === 'tool_use' ? { ...block, input: JSON.parse(json[i] || '{}') } : block));
}

/** A converse stream's events (type, JSON) into the message's blocks. */
function converseBlocks(events: Array<{ type: string; json: Json }>): Json[] {
  const blocks: Json[] = [];
  const json: string[] = [];
  for (const { type, json: event } of events) {
    const index = event.contentBlockIndex;
    if (type === 'contentBlockStart' && event.start?.toolUse !== undefined) {
      blocks[index] = { toolUse: { ...event.start.toolUse } };
      json[index] = '';
    } else if (type === 'contentBlockDelta') {
      const delta = event.delta;
      if (delta.toolUse !== undefined) json[index] += delta.toolUse.input;
      else if (delta.reasoningContent !== undefined) {
        const block = (blocks[index] ??= { reasoningContent: { reasoningText: { text: '' } } });
        const text = block.reasoningContent.reasoningText;
        if (delta.reasoningContent.text !== undefined) text.text += delta.reasoningContent.text;
        if (delta.reasoningContent.signature !== undefined) text.signature = (text.signature ?? '') + delta.reasoningContent.signature;
      } else if (delta.text !== undefined) {
        const block = (blocks[index] ??= { text: '' });
        block.text += delta.text;
      }
    }
  }
  return blocks.map((block, i) => (block.toolUse !== undefined ? { toolUse: { ...block.toolUse, input: JSON.parse(json[i] || '{}') } } : block));
}

const sseEvents = async (res: Response): Promise<Json[]> => (await res.text()).split(/\r?\n\r?\n/).filter((e) => e.includes('data: ')).map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)));
const eventStream = async (res: Response) => new EventStreamDecoder().push(Buffer.from(await res.arrayBuffer()));
/** An invoke stream's events: each `chunk` message's base64 `bytes`, the messages API's JSON event. */
const invokeEvents = async (res: Response): Promise<Json[]> => (await eventStream(res)).map((m) => JSON.parse(Buffer.from(JSON.parse(m.payload.toString()).bytes, 'base64').toString()));

const messagesSent = (body: any): string => body.messages[1].content.find((b: Json) => b.type === 'thinking').thinking;
const messagesWith = (content: Json[], text: string): Json[] => content.map((b) => (b.type === 'thinking' ? { ...b, thinking: text } : b));
const converseSent = (body: any): string => body.messages[1].content.find((b: Json) => b.reasoningContent !== undefined).reasoningContent.reasoningText.text;
const converseWith = (content: Json[], text: string): Json[] => content.map((b) => (b.reasoningContent !== undefined ? { reasoningContent: { reasoningText: { ...b.reasoningContent.reasoningText, text } } } : b));

const MESSAGES_FORMAT = { format: 'messages' as const, sentReasoning: messagesSent, withReasoning: messagesWith };
const CONVERSE_FORMAT = { format: 'converse' as const, sentReasoning: converseSent, withReasoning: converseWith };

export const REASONING_CALLS: ReasoningCall[] = [
  { name: 'messages', family: 'messages', path: '/v1/messages', ...MESSAGES_FORMAT, firstTurn: messagesTurn({ model: 'claude-sonnet-4-0' }), read: async (res) => messagesTurnOf(((await res.json()) as Json).content) },
  { name: 'messages, streamed', family: 'messages', path: '/v1/messages', ...MESSAGES_FORMAT, firstTurn: messagesTurn({ model: 'claude-sonnet-4-0', stream: true }), read: async (res) => messagesTurnOf(messagesBlocks(await sseEvents(res))) },
  { name: 'a Claude model\'s invoke', family: 'cloudc', path: invokePath('invoke'), ...MESSAGES_FORMAT, firstTurn: messagesTurn({ anthropic_version: 'bedrock-2023-05-31' }), read: async (res) => messagesTurnOf(((await res.json()) as Json).content) },
  { name: 'a Claude model\'s invoke stream', family: 'cloudc', path: invokePath('invoke-with-response-stream'), ...MESSAGES_FORMAT, firstTurn: messagesTurn({ anthropic_version: 'bedrock-2023-05-31' }), read: async (res) => messagesTurnOf(messagesBlocks(await invokeEvents(res))) },
  { name: 'converse', family: 'cloudc', path: invokePath('converse'), ...CONVERSE_FORMAT, firstTurn: converseTurn, read: async (res) => converseTurnOf(((await res.json()) as Json).output.message.content) },
  {
    name: 'converse-stream', family: 'cloudc', path: invokePath('converse-stream'), ...CONVERSE_FORMAT, firstTurn: converseTurn,
    read: async (res) => converseTurnOf(converseBlocks((await eventStream(res)).map((m) => ({ type: String(m.headers[':event-type']), json: JSON.parse(m.payload.toString()) })))),
  },
];

/** The token count of a turn's body, as the call's client asks for it: its path and body. */
export function countOf(call: ReasoningCall, body: Json): { path: string; body: Json } {
  if (call.family === 'messages') {
    const { stream: _stream, max_tokens: _max, ...counted } = body;
    return { path: '/v1/messages/count_tokens', body: counted };
  }
  const path = invokePath('count-tokens');
  if (call.format === 'converse') return { path, body: { input: { converse: body } } };
  return { path, body: { input: { invokeModel: { body: Buffer.from(JSON.stringify(body)).toString('base64') } } } };
}

/** The body a token count's request wraps (cloud C's, in `input`), as its provider got it. */
export function countedBody(call: ReasoningCall, sent: any): Json {
  if (call.family === 'messages') return sent;
  return call.format === 'converse' ? sent.input.converse : JSON.parse(Buffer.from(sent.input.invokeModel.body, 'base64').toString());
}

/** The second turn: the first turn's body with the assistant turn as the client kept it and the tool's result. */
export function secondTurn(call: ReasoningCall, question: string, turn: AssistantTurn): Json {
  const first = call.firstTurn(question);
  const result = call.format === 'messages'
    ? { role: 'user', content: [{ type: 'tool_result', tool_use_id: turn.toolUseId, content: 'done' }] }
    : { role: 'user', content: [{ toolResult: { toolUseId: turn.toolUseId, content: [{ text: 'done' }] } }] };
  return { ...first, messages: [...first.messages, { role: 'assistant', content: turn.content }, result] };
}
