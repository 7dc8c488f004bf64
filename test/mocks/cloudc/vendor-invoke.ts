// invoke and invoke-with-response-stream on models whose invoke speaks their vendor's own format, as
// the service answers them: an Amazon Titan text model (`inputText`, answered `{"inputTextTokenCount",
// "results": [{"tokenCount", "outputText", "completionReason"}]}`), a Meta Llama model (`prompt`,
// answered `{"generation", "prompt_token_count", "generation_token_count", "stop_reason"}`), a
// Mistral text completion model (`prompt`, answered `{"outputs": [{"text", "stop_reason"}]}`), DeepSeek-R1
// (`prompt`, answered `{"choices": [{"text", "stop_reason"}]}`) and an
// Amazon Nova model (converse's shapes: `messages`, answered `{"output": {"message"}, "stopReason",
// "usage"}`) and one of OpenAI's open-weight models (the chat completions API's body and answer, a
// stream's chunks each one chat completion chunk), and Mistral's chat completion models (`messages`,
// answered `{"choices": [{"message", "finish_reason"}], "usage"}`; a stream's chunks carry each piece
// in a choice's `message`, its end as `stop_reason`; Large 2402 takes this or the `prompt` form). Every answer carries the service's own counts in the `x-amzn-bedrock-input-token-count`
// / `-output-token-count` headers; a stream is `chunk` events each carrying one event of the model's
// own stream as base64 `bytes` (a piece of the answer; Nova's converse-stream events as one-member
// objects), the last with the service's invocation metrics.
import type { MockContext } from '../vendor/context.ts';
import { jsonObject } from '../vendor/context.ts';
import { sendBytes, sendEvents } from '../http/respond.ts';
import { words } from '../vendor/reply-text.ts';
import { eventMessage } from './event-stream.ts';
import { cloudcHeaders, sendCloudcError } from './converse.ts';

type Json = Record<string, unknown>;

interface VendorFormat {
  model: RegExp;
  /** Whether the model reads the body in this format, for a model that takes two (by default, any body). */
  accepts?(body: Json | null): boolean;
  /** What the model answers to: the request's prompt (Nova: its last turn's text); null when the body lacks it. */
  prompt(body: Json): string | null;
  /** The service's refusal of a body without it. */
  missing: string;
  answer(text: string, input: number, output: number): Json;
  /** The stream's events, carrying the answer's pieces; the service adds its metrics to the last. */
  stream(pieces: string[], input: number, output: number): Json[];
}

const stringMember = (name: string) => (body: Json): string | null => (typeof body[name] === 'string' && body[name] !== '' ? body[name] : null);
const last = <T>(items: readonly T[], at: number): boolean => at === items.length - 1;

/** The text of the last message of a chat completions body: its content, a string or text parts. */
function lastMessageText(body: Json): string | null {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const content = (messages.at(-1) as { content?: unknown } | undefined)?.content;
  const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : '')).join('') : '';
  return text === '' ? null : text;
}

/** Mistral's chat completion API on cloud C. */
const MISTRAL_CHAT: Omit<VendorFormat, 'model'> = {
  prompt: lastMessageText,
  missing: 'Malformed input request: #: required key [messages] not found, please reformat your input and try again.',
  answer: (text, input, output) => ({ id: 'mistral-chat', object: 'chat.completion', created: 1, model: 'mistral-large-2407', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } }),
  stream: (pieces, input, output) => pieces.map((text, i) => ({
    id: 'mistral-chat', object: 'chat.completion.chunk', created: 1, model: 'mistral-large-2407',
    choices: [{ index: 0, message: { role: 'assistant', content: text }, stop_reason: last(pieces, i) ? 'stop' : null }],
    ...(last(pieces, i) ? { usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } } : {}),
  })),
};

const FORMATS: VendorFormat[] = [
  { model: /mistral\.(?:mistral-large-2407|pixtral-large)/, ...MISTRAL_CHAT },
  { model: /mistral\.mistral-large-2402/, accepts: (body) => Array.isArray(body?.messages), ...MISTRAL_CHAT },
  {
    model: /amazon\.titan-text-/,
    prompt: stringMember('inputText'),
    missing: 'Malformed input request: #: required key [inputText] not found, please reformat your input and try again.',
    answer: (text, input, output) => ({ inputTextTokenCount: input, results: [{ tokenCount: output, outputText: text, completionReason: 'FINISH' }] }),
    stream: (pieces, input, output) => pieces.map((text, i) => ({ outputText: text, index: 0, totalOutputTextTokenCount: last(pieces, i) ? output : null, completionReason: last(pieces, i) ? 'FINISH' : null, inputTextTokenCount: i === 0 ? input : null })),
  },
  {
    model: /meta\.llama/,
    prompt: stringMember('prompt'),
    missing: 'Malformed input request: #: required key [prompt] not found, please reformat your input and try again.',
    answer: (text, input, output) => ({ generation: text, prompt_token_count: input, generation_token_count: output, stop_reason: 'stop' }),
    stream: (pieces, input, output) => pieces.map((text, i) => ({ generation: text, prompt_token_count: i === 0 ? input : null, generation_token_count: i + 1 === pieces.length ? output : i + 1, stop_reason: last(pieces, i) ? 'stop' : null })),
  },
  {
    model: /mistral\.(?:mistral-7b|mixtral|mistral-large-2402|mistral-small-2402)/,
    prompt: stringMember('prompt'),
    missing: 'Malformed input request: #: required key [prompt] not found, please reformat your input and try again.',
    answer: (text) => ({ outputs: [{ text, stop_reason: 'stop' }] }),
    stream: (pieces) => pieces.map((text, i) => ({ outputs: [{ text, stop_reason: last(pieces, i) ? 'stop' : null }] })),
  },
  {
    model: /deepseek\.r1/,
    prompt: stringMember('prompt'),
    missing: 'Malformed input request: #: required key [prompt] not found, please reformat your input and try again.',
    answer: (text) => ({ choices: [{ text, stop_reason: 'stop' }] }),
    stream: (pieces) => pieces.map((text, i) => ({ choices: [{ text, stop_reason: last(pieces, i) ? 'stop' : null }] })),
  },
  {
    model: /openai\.gpt-oss-/,
    prompt: lastMessageText,
    missing: 'Malformed input request: messages is required, please reformat your input and try again.',
    answer: (text, input, output) => ({ id: 'chatcmpl-oss', object: 'chat.completion', created: 1, model: 'openai.gpt-oss-120b-1:0', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } }),
    stream: (pieces) => pieces.map((text, i) => ({ id: 'chatcmpl-oss', object: 'chat.completion.chunk', created: 1, model: 'openai.gpt-oss-120b-1:0', choices: [{ index: 0, delta: i === 0 ? { role: 'assistant', content: text } : { content: text }, finish_reason: last(pieces, i) ? 'stop' : null }] })),
  },
  {
    model: /amazon\.nova-(?:2-)?(?:micro|lite|pro|premier)/,
    prompt(body) {
      const turns = Array.isArray(body.messages) ? body.messages : [];
      const turn = turns.at(-1) as { content?: unknown } | undefined;
      const blocks = Array.isArray(turn?.content) ? turn.content : [];
      const text = blocks.map((block: { text?: unknown }) => (typeof block?.text === 'string' ? block.text : '')).join(' ');
      return text === '' ? null : text;
    },
    missing: 'Malformed input request: #: required key [messages] not found, please reformat your input and try again.',
    answer: (text, input, output) => ({ output: { message: { role: 'assistant', content: [{ text }] } }, stopReason: 'end_turn', usage: { inputTokens: input, outputTokens: output, totalTokens: input + output } }),
    stream: (pieces, input, output) => [
      { messageStart: { role: 'assistant' } },
      ...pieces.map((text) => ({ contentBlockDelta: { delta: { text }, contentBlockIndex: 0 } })),
      { contentBlockStop: { contentBlockIndex: 0 } },
      { messageStop: { stopReason: 'end_turn' } },
      { metadata: { usage: { inputTokens: input, outputTokens: output }, metrics: {} } },
    ],
  },
];

function formatOf(modelId: string, body: Json | null = null): VendorFormat | undefined {
  return FORMATS.find((format) => format.model.test(modelId) && (format.accepts?.(body) ?? true));
}

/** Whether a model ID names a model whose own invoke format this mock answers. */
export function speaksVendorFormat(modelId: string): boolean {
  return formatOf(modelId) !== undefined;
}

export async function invokeVendor(ctx: MockContext, modelId: string, streamed: boolean): Promise<void> {
  const body = jsonObject(ctx);
  const format = formatOf(modelId, body)!;
  const prompt = body === null ? null : format.prompt(body);
  if (prompt === null) return sendCloudcError(ctx, 400, format.missing);
  const inputTokens = words(prompt).length + 2;
  const pieces = ['Here is', ' a short', ` answer to: ${prompt}`];
  const outputTokens = words(pieces.join('')).length;
  if (!streamed) {
    const answer = format.answer(pieces.join(''), inputTokens, outputTokens);
    return sendBytes(ctx, 200, { ...cloudcHeaders(ctx), 'content-type': 'application/json', 'x-amzn-bedrock-input-token-count': String(inputTokens), 'x-amzn-bedrock-output-token-count': String(outputTokens) }, Buffer.from(JSON.stringify(answer)));
  }
  const metrics = { inputTokenCount: inputTokens, outputTokenCount: outputTokens, invocationLatency: 9, firstByteLatency: 4 };
  const events = format.stream(pieces, inputTokens, outputTokens);
  const frames = events.map((event, i) => {
    const chunk = last(events, i) ? { ...event, 'amazon-bedrock-invocationMetrics': metrics } : event;
    return eventMessage('chunk', { bytes: Buffer.from(JSON.stringify(chunk)).toString('base64') });
  });
  return sendEvents(ctx, 200, { ...cloudcHeaders(ctx), 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-content-type': 'application/json' }, frames);
}
