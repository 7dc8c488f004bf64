// What an emulated Responses request may not ask: what one chat completion cannot give (the vendor's
// own features, log probabilities, a stored prompt, summaries in a form a chat answer has not) is
// refused naming the field, never dropped (docs/jobs.md).
import type { ResponseCreate } from '../../../generated/types.ts';
import { didYouMean } from '../../../compiler/config/suggest.ts';
import { GatewayError } from '../../core/errors.ts';

/** Members of the request that ask for what only the vendor's own API does, with why (null members count as not set). */
const NOT_EMULATED: ReadonlyArray<[keyof ResponseCreate, string]> = [
  ['conversation', 'a conversation of the vendor\'s Conversations API is not emulated over chat completions: chain responses with previous_response_id'],
  ['context_management', 'the vendor\'s compaction is not emulated over chat completions: the gateway fits the conversation to the model with truncation: "auto"'],
  ['moderation', 'the vendor\'s moderation is not emulated over chat completions: the gateway\'s guardrails check input and output on any route (docs/guardrails.md)'],
  ['image', 'image options are not emulated over chat completions'],
  ['access_programs', 'access programs are the vendor\'s own and are not emulated over chat completions'],
];

/** What the Responses API asks that one chat completion cannot give: refused, never dropped. */
export function refuseUnemulated(body: ResponseCreate): void {
  for (const [name, why] of NOT_EMULATED) {
    if (body[name] !== undefined && body[name] !== null) throw new GatewayError('unsupported_parameter', `${name}: ${why}.`, `/${name}`);
  }
  if (body.prompt !== undefined && body.prompt !== null) {
    throw new GatewayError('unsupported_parameter', 'prompt (a prompt stored at the provider) is not emulated over chat completions: render a gateway prompt template instead, through a config\'s prompt_id (docs/api.md).', '/prompt');
  }
  // Log probabilities would have to come back on every output_text part and delta event.
  if (typeof body.top_logprobs === 'number' && body.top_logprobs > 0) throw new GatewayError('unsupported_parameter', 'top_logprobs is not emulated over chat completions.', '/top_logprobs');
  const logprobs = body.include?.indexOf('message.output_text.logprobs') ?? -1;
  if (logprobs >= 0) throw new GatewayError('unsupported_parameter', 'message.output_text.logprobs is not emulated over chat completions.', `/include/${logprobs}`);
  // The others ask for parts an emulated response never has (tool results, images, encrypted
  // reasoning): nothing to leave out. A value the Responses API does not know is a mistake.
  const unknown = body.include?.findIndex((part) => !RESPONSE_INCLUDES.has(part)) ?? -1;
  if (unknown >= 0) {
    const hint = didYouMean(body.include![unknown]!, RESPONSE_INCLUDES);
    throw new GatewayError('invalid_request_body', `Invalid request body: ${JSON.stringify(body.include![unknown])} is not something a response can include${hint === undefined ? '' : ` (${hint})`}; known: ${[...RESPONSE_INCLUDES].join(', ')}.`, `/include/${unknown}`);
  }
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
    throw new GatewayError('invalid_request_body', 'Invalid request body: stream_options applies to a streamed response; set stream: true or leave it out.', '/stream_options');
  }
  refuseUnmapped(body.stream_options, 'stream_options', EMULATED_STREAM_OPTIONS, 'the emulated stream takes include_obfuscation only');
  // Of `reasoning` and `text` a chat completion takes the effort, the format and the verbosity, and
  // gives its reasoning's text as the summary.
  refuseUnmapped(body.reasoning, 'reasoning', EMULATED_REASONING, 'a chat completion takes the effort and gives its reasoning as the summary');
  checkSummary(body.reasoning);
  refuseUnmapped(body.text, 'text', EMULATED_TEXT, 'a chat completion takes its format and verbosity only');
}

/** The parts the Responses API can be asked to include. */
const RESPONSE_INCLUDES: ReadonlySet<string> = new Set([
  'web_search_call.action.sources', 'code_interpreter_call.outputs', 'computer_call_output.output.image_url', 'file_search_call.results',
  'message.input_image.image_url', 'message.output_text.logprobs', 'reasoning.encrypted_content',
]);

const EMULATED_REASONING = ['effort', 'summary'];

/**
 * `reasoning.summary`: `auto` is the reasoning's text as the provider gives it (`reasoning_content`);
 * a chat completion has no concise or detailed form of it to choose from.
 */
function checkSummary(reasoning: unknown): void {
  const summary = (reasoning as { summary?: unknown } | null | undefined)?.summary;
  if (summary === undefined || summary === null || summary === 'auto') return;
  if (summary === 'concise' || summary === 'detailed') {
    throw new GatewayError('unsupported_parameter', `reasoning.summary "${summary}" is not emulated over chat completions: the summary is the provider's reasoning text as it gives it; ask for "auto".`, '/reasoning/summary');
  }
  throw new GatewayError('invalid_request_body', `Invalid request body: reasoning.summary must be "auto", "concise" or "detailed", not ${JSON.stringify(summary)}.`, '/reasoning/summary');
}

const EMULATED_STREAM_OPTIONS = ['include_obfuscation'];
const EMULATED_TEXT = ['format', 'verbosity'];

/** A member of an object field (`reasoning`, `text`, `stream_options`) the emulation does not map (null counts as not set). */
function refuseUnmapped(value: unknown, field: string, mapped: readonly string[], why: string): void {
  if (value === null || typeof value !== 'object') return;
  for (const [key, member] of Object.entries(value)) {
    if (mapped.includes(key) || member === null) continue;
    throw new GatewayError('unsupported_parameter', `${field}.${key} is not emulated over chat completions: ${why}.`, `/${field}/${key}`);
  }
}
