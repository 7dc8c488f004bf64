// POST /v1/completions: legacy `text_completion` objects, streamed or not (SPEC §2.5, §4.9).
import type { MockContext } from './context.ts';
import { jsonObject, unixSeconds, vendorId } from './context.ts';
import { badRequest, sendJson } from './respond.ts';
import { optionalCount, replyFor, words } from './reply-text.ts';
import type { Reply } from './reply-text.ts';
import { DONE, sendEventStream } from './sse.ts';
import type { SseFrame } from './sse.ts';

const DEFAULT_MAX_TOKENS = 16;

interface PromptReply {
  prompt: string;
  reply: Reply;
}

/** The prompt forms the API accepts: a string, strings, a token array, or token arrays. */
function promptTexts(prompt: unknown): string[] | null {
  if (typeof prompt === 'string') return [prompt];
  if (!Array.isArray(prompt) || prompt.length === 0) return null;
  if (prompt.every((p) => typeof p === 'string')) return prompt as string[];
  if (prompt.every((p) => Number.isInteger(p))) return [(prompt as number[]).map((t) => `tok${t}`).join(' ')];
  if (prompt.every((p) => Array.isArray(p) && p.every((t) => Number.isInteger(t)))) {
    return (prompt as number[][]).map((tokens) => tokens.map((t) => `tok${t}`).join(' '));
  }
  return null;
}

function logprobsFor(tokens: string[], top: number): object {
  const offsets: number[] = [];
  let offset = 0;
  for (const token of tokens) {
    offsets.push(offset);
    offset += token.length;
  }
  const lp = tokens.map((_, i) => -0.01 * (i + 1));
  return {
    tokens,
    token_logprobs: lp,
    top_logprobs: tokens.map((token, i) => (top === 0 ? {} : { [token]: lp[i] })),
    text_offset: offsets,
  };
}

export async function textCompletions(ctx: MockContext): Promise<void> {
  const body = jsonObject(ctx);
  if (body === null) return badRequest(ctx, 'We could not parse the JSON body of your request. The vendor API expects a JSON payload.');
  if (typeof body.model !== 'string' || body.model === '') return badRequest(ctx, 'you must provide a model parameter');
  const prompts = promptTexts(body.prompt);
  if (prompts === null) return badRequest(ctx, "Missing or invalid parameter: 'prompt'.", 'prompt');
  const maxTokens = optionalCount(body.max_tokens);
  const n = optionalCount(body.n);
  const logprobs = optionalCount(body.logprobs);
  if (maxTokens === 'invalid') return badRequest(ctx, 'max_tokens must be a non-negative integer.', 'max_tokens');
  if (n === 'invalid' || n === 0 || (n !== null && n > 128)) return badRequest(ctx, 'n must be between 1 and 128.', 'n');
  if (logprobs === 'invalid' || (logprobs !== null && logprobs > 5)) return badRequest(ctx, 'logprobs must be between 0 and 5.', 'logprobs');
  const stream = body.stream === true;
  if (stream && body.best_of != null && body.best_of !== 1) return badRequest(ctx, 'best_of cannot be used with stream.', 'best_of');
  if (body.stream_options != null && !stream) {
    return badRequest(ctx, "The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
  }

  const choicesPerPrompt = n ?? 1;
  const replies: PromptReply[] = prompts.map((prompt) => ({
    prompt,
    reply: replyFor(ctx.label, prompt, maxTokens ?? DEFAULT_MAX_TOKENS),
  }));
  const echo = body.echo === true;
  const promptTokens = prompts.reduce((sum, p) => sum + words(p).length, 0);
  const completionTokens = replies.reduce((sum, r) => sum + r.reply.tokens.length * choicesPerPrompt, 0);
  const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
  const model = body.model;
  const id = vendorId('cmpl-');
  const created = unixSeconds();
  const base = { id, object: 'text_completion', created, model, system_fingerprint: 'fp_mock0001' };

  if (stream) {
    const includeUsage = (body.stream_options as { include_usage?: unknown } | null | undefined)?.include_usage === true;
    return sendEventStream(ctx, frames(base, replies, choicesPerPrompt, echo, includeUsage ? usage : null));
  }
  const choices = [];
  for (const [p, { prompt, reply }] of replies.entries()) {
    for (let j = 0; j < choicesPerPrompt; j++) {
      choices.push({
        text: (echo ? prompt : '') + reply.tokens.join(''),
        index: p * choicesPerPrompt + j,
        logprobs: logprobs === null ? null : logprobsFor(reply.tokens, logprobs),
        finish_reason: reply.finishReason,
      });
    }
  }
  return sendJson(ctx, 200, { ...base, choices, usage });
}

function* frames(
  base: object,
  replies: PromptReply[],
  perPrompt: number,
  echo: boolean,
  usage: object | null,
): Generator<SseFrame> {
  const withUsage = usage === null ? {} : { usage: null };
  for (const [p, { prompt, reply }] of replies.entries()) {
    for (let j = 0; j < perPrompt; j++) {
      const index = p * perPrompt + j;
      const choice = (text: string, finish: string | null): object => ({ text, index, logprobs: null, finish_reason: finish });
      if (echo) yield { ...base, choices: [choice(prompt, null)], ...withUsage };
      for (const token of reply.tokens) yield { ...base, choices: [choice(token, null)], ...withUsage };
      yield { ...base, choices: [choice('', reply.finishReason)], ...withUsage };
    }
  }
  if (usage !== null) yield { ...base, choices: [], usage };
  yield DONE;
}
