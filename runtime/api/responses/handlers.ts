// /v1/responses (SPEC §2.7, §4.10, §7 rule 1). Forwarded to the routed provider when every target it
// may pick has a Responses API; otherwise emulated: the input (after the stored conversation that
// previous_response_id names) becomes one chat completion through the same router as a live chat
// request, its answer becomes the response, and the response is stored (unless `store: false`).
import { randomBytes } from 'node:crypto';
import type { ResponseCreate, ResponseDeleted, ResponseItemList } from '../../../generated/types.ts';
import { resolveRouter } from '../../inference/handlers.ts';
import type { LoadedRouter } from '../../inference/routers.ts';
import { detachedExchange, routeForEndpoint } from '../../jobs/detached-context.ts';
import type { JobDeps } from '../../jobs/deps.ts';
import { forward, forwardable, isSuccess, readAnswer, relay, routerOf, sendAnswer } from '../../jobs/forward.ts';
import { routeHeadersOf } from '../../jobs/route-headers.ts';
import type { RequestContext } from '../../server/context.ts';
import { GatewayError } from '../../core/errors.ts';
import { didYouMean } from '../../../compiler/config/suggest.ts';
import type { Handler } from '../../server/server.ts';
import { callerOf, notFound, pathParam, sendOk } from '../http.ts';
import { sendJson } from '../../server/respond.ts';
import { inResponsesTerms } from './chat-terms.ts';
import { type ChatMessage, formatToChat, inputToMessages, toolChoiceToChat, toolsToChat } from './conversation.ts';
import { ResponseEventFrames } from './events.ts';
import { buildFromChat, type ChatCompletion, type EmulatedOutput, isChatCompletion, OutputBuilder } from './output-builder.ts';
import { ChatStreamReader } from './chat-stream.ts';
import { finished } from 'node:stream/promises';
import type { ServerResponse } from 'node:http';
import { MappingSink } from '../../providers/shared/mapped-response.ts';
import { putOutcomeHeaders } from '../../inference/send-outcome.ts';
import type { Outcome } from '../../router/outcome.ts';
import type { UpstreamResponse } from '../../upstream/types.ts';
import { inputItemsOf } from './input-items.ts';
import { outputItemIds } from './item-ids.ts';
import { referencesGatewayItems, withReferencedItems } from './item-references.ts';
import { estimateTokens } from '../../core/token-estimate.ts';
import { fitConversation, storedConversation } from './truncation.ts';
import { StoreUnavailableError, UnstorableTextError } from '../../store/sql/sql-database.ts';
import { describeError } from '../../core/log.ts';
import { routeJudgesText } from '../../pipeline/guardrails/judges-text.ts';
import { usageOf } from '../../pipeline/log/usage-of.ts';

export function responseHandlers(deps: JobDeps): Record<string, Handler> {
  const { store } = deps;

  /** A response the gateway did not store: the provider's, when the route has a Responses API. */
  async function toProvider(ctx: RequestContext, method: 'GET' | 'DELETE', suffix: string): Promise<void> {
    const id = pathParam(ctx, 'response_id');
    const router = routerOf(ctx, deps);
    if (!forwardable(router, ctx, deps, 'responses')) throw notFound('response', id, 'response_id');
    await relay(ctx, await forward(deps, router, ctx, { method, upstreamPath: `/responses/${encodeURIComponent(id)}${suffix}${ctx.rawQuery === '' ? '' : `?${ctx.rawQuery}`}` }));
  }

  return {
    'responses.create': async (ctx) => {
      const caller = callerOf(ctx);
      const body = (await ctx.json()) as ResponseCreate;
      const router = resolveRouter(ctx.headers, deps.resolver);
      const previousId = body.previous_response_id ?? null;
      const previous = previousId === null ? null : await store.responses.get(caller.organisationId, previousId);
      // A chain that starts at a response the gateway stored (or names its items) continues here,
      // whatever the route; a route whose checks judge text emulates, so they judge the input and the
      // answer as a chat's.
      if (forwardable(router, ctx, deps, 'responses') && previous === null && !referencesGatewayItems(body.input) && !routeJudgesText(router.plan.root)) {
        await relay(ctx, await forward(deps, router, ctx, { method: 'POST', upstreamPath: '/responses', body: await ctx.readBody() }));
        return;
      }
      if (previousId !== null && previous === null) throw notFound('response', previousId, '/previous_response_id');
      if (body.background === true) throw new GatewayError('unsupported_parameter', 'background responses are not emulated over chat completions.', '/background');
      refuseUnemulated(body);
      // A response to store, while the store is known to be away, is not asked of the provider: the
      // write would fail after the provider was paid, and the client's retries would pay again.
      if (body.store !== false && !deps.storeAnswers()) throw new StoreUnavailableError('the store does not answer, so a response to be stored is not asked of the provider');
      if (body.store !== false) await refuseWhenStorageFull(deps, caller.organisationId);
      const input = await withReferencedItems(body.input, store.responses, caller.organisationId);
      await emulate(deps, ctx, router, { ...body, input } as ResponseCreate, previous?.conversation as ChatMessage[] | undefined ?? []);
    },

    'responses.retrieve': async (ctx) => {
      const id = pathParam(ctx, 'response_id');
      const stored = await store.responses.get(callerOf(ctx).organisationId, id);
      if (stored !== null) {
        // `include` asks for parts (file search results, image URLs) that emulated responses never have.
        sendOk(ctx, stored.body);
        return;
      }
      await toProvider(ctx, 'GET', '');
    },

    'responses.inputItems': async (ctx) => {
      const id = pathParam(ctx, 'response_id');
      const stored = await store.responses.get(callerOf(ctx).organisationId, id);
      if (stored === null) return toProvider(ctx, 'GET', '/input_items');
      // `include` asks for parts (file search results, image URLs) an emulated response's items already show or never have.
      const query = ctx.query as { after?: string; limit?: number; order?: 'asc' | 'desc' };
      const items = inputItemsOf(id, stored.conversation as ChatMessage[]);
      if (query.order !== 'asc') items.reverse();
      let start = 0;
      if (query.after !== undefined) {
        start = items.findIndex((item) => item.id === query.after) + 1;
        if (start === 0) throw new GatewayError('invalid_query', `after (${JSON.stringify(query.after)}) names no input item of this response.`, '/after');
      }
      const limit = query.limit ?? 20;
      const data = items.slice(start, start + limit);
      sendOk(ctx, { object: 'list', data, has_more: start + limit < items.length, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null } satisfies ResponseItemList);
    },

    'responses.delete': async (ctx) => {
      const id = pathParam(ctx, 'response_id');
      // A chain continued from it (previous_response_id) then answers 404, as at the vendor.
      if (await store.responses.delete(callerOf(ctx).organisationId, id)) {
        sendOk(ctx, { id, object: 'response', deleted: true } satisfies ResponseDeleted);
        return;
      }
      await toProvider(ctx, 'DELETE', '');
    },
  };
}

/**
 * An organisation's stored responses stop at GATEWAY_RESPONSE_STORAGE_MAX_BYTES: while they fill it, a
 * response to store is refused before the provider is asked (its size is known only after). One that
 * starts below the limit is stored whole, so the limit is passed by at most the responses in flight.
 */
async function refuseWhenStorageFull(deps: JobDeps, organisationId: string): Promise<void> {
  const max = deps.settings.responseStorageMaxBytes;
  if (max === 0) return;
  const stored = await deps.store.responses.storedBytes(organisationId);
  if (stored < max) return;
  throw new GatewayError(
    'response_storage_full',
    `The gateway keeps at most ${max} bytes of stored responses per organisation (GATEWAY_RESPONSE_STORAGE_MAX_BYTES), and your organisation's take ${stored}. Send store: false, delete responses you no longer need (DELETE /v1/responses/{response_id}), or wait for the oldest to expire.`,
    '/store',
  );
}

/** Members of the request that ask for what only the vendor's own API does, with why (null members count as not set). */
const NOT_EMULATED: ReadonlyArray<[keyof ResponseCreate, string]> = [
  ['conversation', 'a conversation of the vendor\'s Conversations API is not emulated over chat completions: chain responses with previous_response_id'],
  ['context_management', 'the vendor\'s compaction is not emulated over chat completions: the gateway fits the conversation to the model with truncation: "auto"'],
  ['moderation', 'the vendor\'s moderation is not emulated over chat completions: the gateway\'s guardrails check input and output on any route (docs/guardrails.md)'],
  ['image', 'image options are not emulated over chat completions'],
  ['access_programs', 'access programs are the vendor\'s own and are not emulated over chat completions'],
];

/** What the Responses API asks that one chat completion cannot give: refused, never dropped. */
function refuseUnemulated(body: ResponseCreate): void {
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

/** Whether the request asks for the reasoning's summary. */
function asksSummary(reasoning: unknown): boolean {
  const summary = (reasoning as { summary?: unknown } | null | undefined)?.summary;
  return summary !== undefined && summary !== null;
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

async function emulate(deps: JobDeps, ctx: RequestContext, router: LoadedRouter, body: ResponseCreate, history: ChatMessage[]): Promise<void> {
  const conversation = [...history, ...inputToMessages(body.input)];
  if (conversation.length === 0) throw new GatewayError('invalid_request_body', 'input is required (a string or a list of items).', '/input');
  const tools = toolsToChat(body.tools);
  const instructions = typeof body.instructions === 'string' && body.instructions !== '' ? body.instructions : null;
  const known = deps.catalog.find(body.model);
  // As the service answers a request for more than the model can write, before anything is generated.
  const most = known?.max_output_tokens;
  if (most !== undefined && typeof body.max_output_tokens === 'number' && body.max_output_tokens > most) {
    throw new GatewayError('invalid_request_body', `max_output_tokens is ${body.max_output_tokens}; the model ${body.model} writes at most ${most} tokens (the model catalog).`, '/max_output_tokens');
  }
  const sent = fitConversation(conversation, {
    contextWindow: known?.context_window ?? null,
    reserved: (body.max_output_tokens ?? 0) + estimateTokens(instructions) + estimateTokens(tools),
    truncation: body.truncation === 'auto' ? 'auto' : 'disabled',
  });
  const chat: Record<string, unknown> = { model: body.model, messages: instructions === null ? sent : [{ role: 'system', content: instructions }, ...sent] };
  const optional: Record<string, unknown> = {
    temperature: body.temperature ?? undefined,
    top_p: body.top_p ?? undefined,
    max_tokens: body.max_output_tokens ?? undefined,
    tools,
    tool_choice: toolChoiceToChat(body.tool_choice),
    parallel_tool_calls: tools === undefined ? undefined : body.parallel_tool_calls ?? undefined,
    user: body.user,
    response_format: formatToChat(body.text),
    reasoning_effort: (body.reasoning as { effort?: unknown } | null | undefined)?.effort ?? undefined,
    verbosity: (body.text as { verbosity?: unknown } | null | undefined)?.verbosity ?? undefined,
    service_tier: body.service_tier ?? undefined,
    prompt_cache_key: body.prompt_cache_key,
    prompt_cache_retention: body.prompt_cache_retention ?? undefined,
    prompt_cache_options: body.prompt_cache_options ?? undefined,
    safety_identifier: body.safety_identifier,
    // A streamed response is the chat's stream, read as it comes: each piece reaches the client as the provider makes it.
    stream: body.stream === true ? true : undefined,
  };
  for (const [name, value] of Object.entries(optional)) if (value !== undefined) chat[name] = value;

  // The chat call fills the Responses request's own log record: one request, one record.
  const key = ctx.apiKey;
  const exchange = detachedExchange({
    source: 'responses',
    headers: routeHeadersOf(ctx.headers),
    route: routeForEndpoint(deps.routes, '/v1/chat/completions'),
    body: chat,
    router,
    record: ctx.record,
    caller: key === null ? null : { keyId: key.id, workspaceId: key.workspaceId, organisationId: key.organisationId },
    signal: ctx.signal,
  });
  const outcome = await router.run(exchange);
  const emulated = new EmulatedResponse(deps, ctx, body, instructions, [...conversation]);
  const streamed = outcome.response;
  if (body.stream === true && streamed !== null && isSuccess(streamed.status) && isEventStream(streamed.headers)) {
    await emulated.stream(outcome, streamed, () => outcome.reportedUsage ?? exchange.upstreamTry?.reportedUsage);
    return;
  }
  // A refusal on the way names the chat request's fields; the client sent the Responses ones.
  const answer = await readAnswer(ctx, outcome.error === null ? outcome : { ...outcome, error: inResponsesTerms(outcome.error) });
  if (answer === null) return;
  if (!isSuccess(answer.status)) {
    sendAnswer(ctx, answer);
    return;
  }
  if (!isChatCompletion(answer.json)) {
    throw new GatewayError('provider_contract_violation', 'The provider answered the emulated Responses call with something that is not a chat completion.', null, { provider: outcome.provider });
  }
  await emulated.whole(answer.json, answer.status, outcome.provider);
}

function isEventStream(headers: Record<string, string | string[]>): boolean {
  const type = headers['content-type'];
  return typeof type === 'string' && type.startsWith('text/event-stream');
}

/** One emulated response: its ID and creation time from the start, its output from the chat answer, whole or streamed. */
class EmulatedResponse {
  readonly #deps: JobDeps;
  readonly #ctx: RequestContext;
  readonly #body: ResponseCreate;
  readonly #instructions: string | null;
  /** The conversation sent (before truncation), for the stored response. */
  readonly #conversation: ChatMessage[];
  readonly #id = `resp_gw${randomBytes(16).toString('hex')}`;
  readonly #createdAt = Math.floor(Date.now() / 1000);
  readonly #summarize: boolean;

  constructor(deps: JobDeps, ctx: RequestContext, body: ResponseCreate, instructions: string | null, conversation: ChatMessage[]) {
    this.#deps = deps;
    this.#ctx = ctx;
    this.#body = body;
    this.#instructions = instructions;
    this.#conversation = conversation;
    this.#summarize = asksSummary(body.reasoning);
  }

  /** A whole chat completion: the response as JSON, or (asked as a stream, answered whole) its events at once. */
  async whole(chat: ChatCompletion, status: number, provider: string): Promise<void> {
    const body = this.#body;
    const frames = body.stream === true ? new ResponseEventFrames({ obfuscation: obfuscates(body) }) : null;
    frames?.opening(this.#response(null, null));
    const result = buildFromChat(new OutputBuilder(this.#summarize, frames?.emit ?? null, outputItemIds(this.#id)), chat);
    const response = this.#response(typeof chat.model === 'string' ? chat.model : null, result);
    await this.#store(response, result);
    this.#logged(response, provider, usageOf(result.usageIn));
    if (frames !== null) {
      frames.closing(response);
      const text = frames.take();
      this.#ctx.res.writeHead(status, { ...EVENT_STREAM_HEADERS, 'content-length': String(Buffer.byteLength(text)) });
      this.#ctx.res.end(text);
      return;
    }
    // The chat call's hooks said how it went: a failed one makes the answer a 246, and their results
    // go with a JSON answer as with a chat's (not into the stored response, which a later GET returns).
    const hookResults = (chat as { hook_results?: unknown }).hook_results;
    sendJson(this.#ctx.res, status, hookResults === undefined ? response : { ...response, hook_results: hookResults });
  }

  /**
   * The chat's stream, as it comes: each delta's events are sent as the chat chunk that made them
   * arrives. `reported`: the usage the provider reported outside the stream (kept from it where the
   * gateway asked for it), read once it ended, when the stream itself carried none.
   */
  async stream(outcome: Outcome, upstream: UpstreamResponse, reported: () => unknown): Promise<void> {
    const ctx = this.#ctx;
    const res = ctx.res;
    if (ctx.clientGone) {
      upstream.discard();
      return;
    }
    const frames = new ResponseEventFrames({ obfuscation: obfuscates(this.#body) });
    const builder = new OutputBuilder(this.#summarize, frames.emit, outputItemIds(this.#id));
    const reader = new ChatStreamReader(builder, () => frames.take());
    const headers: Record<string, string> = { ...EVENT_STREAM_HEADERS };
    putOutcomeHeaders(headers, outcome);
    res.writeHead(upstream.status, headers);
    frames.opening(this.#response(null, null));
    res.write(frames.take());
    const sink = new MappingSink(res, reader);
    let broken: string | null = null;
    try {
      await upstream.forwardTo(sink as unknown as ServerResponse);
      await finished(sink);
    } catch (error) {
      sink.destroy();
      if (ctx.clientGone || res.destroyed) return;
      broken = (error as Error).message;
    }
    const failure = reader.end(broken);
    if (failure !== null) {
      // Nothing is stored: the client has the events of what came before, and the error.
      frames.closing({ ...this.#response(reader.model, null), status: 'failed', error: failure });
      res.end(frames.take());
      return;
    }
    if (!builder.hasUsage) {
      const usage = reported();
      if (usage !== null && usage !== undefined && typeof usage === 'object') builder.usage(usage);
    }
    const result = builder.end();
    const response = this.#response(reader.model, result);
    try {
      await this.#store(response, result);
    } catch (error) {
      // The answer was generated and sent; the client learns it was not kept, as a JSON answer's error would say.
      this.#deps.logger.warn('response_store_failed', { trace_id: ctx.traceId, response_id: this.#id, error: describeError(error) });
      const refused = storeRefusal(error);
      frames.error(refused.code, refused.message);
      res.end(frames.take());
      return;
    }
    this.#logged(response, outcome.provider, usageOf(result.usageIn));
    frames.closing(response);
    res.end(frames.take());
  }

  /** The response object: `result` null for the one in progress. */
  #response(model: string | null, result: EmulatedOutput | null): Record<string, unknown> {
    const body = this.#body;
    return {
      id: this.#id,
      object: 'response',
      created_at: this.#createdAt,
      status: result?.status ?? 'in_progress',
      error: null,
      incomplete_details: result?.incompleteReason === null || result === null ? null : { reason: result.incompleteReason },
      instructions: this.#instructions,
      max_output_tokens: body.max_output_tokens ?? null,
      model: model ?? body.model,
      output: result?.output ?? [],
      output_text: result?.outputText ?? '',
      parallel_tool_calls: body.parallel_tool_calls ?? true,
      previous_response_id: body.previous_response_id ?? null,
      reasoning: body.reasoning ?? null,
      temperature: body.temperature ?? 1,
      text: body.text ?? { format: { type: 'text' } },
      tool_choice: typeof body.tool_choice === 'string' ? body.tool_choice : body.tool_choice === undefined ? 'auto' : 'required',
      tools: body.tools ?? [],
      top_p: body.top_p ?? 1,
      truncation: body.truncation ?? 'disabled',
      usage: result?.usage ?? null,
      metadata: body.metadata ?? {},
      ...(body.user !== undefined ? { user: body.user } : {}),
    };
  }

  async #store(response: Record<string, unknown>, result: EmulatedOutput): Promise<void> {
    if (this.#body.store === false) return;
    // The whole conversation is kept (not the truncated one): a later turn decides its own
    // truncation; past what any model reads, its middle is dropped (storedConversation).
    const organisationId = callerOf(this.#ctx).organisationId;
    await this.#deps.store.responses.create({ id: this.#id, organisationId, body: response, conversation: storedConversation([...this.#conversation, result.assistant]) });
  }

  /** Priced from the chat answer's usage as the request log prices it (cache reads and writes, audio). */
  #logged(response: Record<string, unknown>, provider: string, usage: ReturnType<typeof usageOf>): void {
    const cost = usage === null ? null : this.#deps.catalog.cost(String(response.model), usage);
    this.#deps.logger.info('response_emulated', { trace_id: this.#ctx.traceId, response_id: this.#id, model: response.model, provider, stored: this.#body.store !== false, cost_usd: cost });
  }
}

/** A failed write of a streamed response, as the error the client would get for it. */
function storeRefusal(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof UnstorableTextError) return new GatewayError('unstorable_text');
  if (error instanceof StoreUnavailableError) return new GatewayError('store_unavailable');
  return new GatewayError('internal_error');
}

const EVENT_STREAM_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };

function obfuscates(body: ResponseCreate): boolean {
  return (body.stream_options as { include_obfuscation?: unknown } | null | undefined)?.include_obfuscation !== false;
}
