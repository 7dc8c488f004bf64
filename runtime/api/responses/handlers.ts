// /v1/responses (SPEC §2.7, §4.10, §7 rule 1). Forwarded to the routed provider when every target it
// may pick has a Responses API; otherwise emulated: the input (after the stored conversation that
// previous_response_id names) becomes one chat completion through the same router as a live chat
// request, its answer becomes the response, and the response is stored (unless `store: false`).
import type { ResponseCreate, ResponseDeleted, ResponseItemList } from '../../../generated/types.ts';
import { resolveRouter } from '../../inference/handlers.ts';
import type { LoadedRouter } from '../../inference/routers.ts';
import { detachedExchange, routeForEndpoint } from '../../jobs/detached-context.ts';
import type { JobDeps } from '../../jobs/deps.ts';
import { forward, forwardable, isSuccess, readAnswer, relay, routerOf, sendAnswer } from '../../jobs/forward.ts';
import { routeHeadersOf } from '../../jobs/route-headers.ts';
import type { RequestContext } from '../../server/context.ts';
import { GatewayError } from '../../core/errors.ts';
import type { Handler } from '../../server/server.ts';
import { callerOf, notFound, pathParam, sendOk } from '../http.ts';
import { inResponsesTerms } from './chat-terms.ts';
import { isChatCompletion } from './output-builder.ts';
import { fitConversation } from './truncation.ts';
import { StoreUnavailableError } from '../../store/sql/sql-database.ts';
import { type ChatMessage, formatToChat, inputToMessages, toolChoiceToChat, toolsToChat } from './conversation.ts';
import { inputItemsOf } from './input-items.ts';
import { EmulatedResponse } from './emulated-response.ts';
import { refuseUnemulated } from './unemulated.ts';
import { referencesGatewayItems, withReferencedItems } from './item-references.ts';
import { estimateTokens } from '../../core/token-estimate.ts';
import { routeJudgesText } from '../../pipeline/guardrails/judges-text.ts';
import { isEventStreamType } from '../../core/event-stream-type.ts';

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
  const emulated = new EmulatedResponse(deps, ctx, body, instructions, conversation);
  const streamed = outcome.response;
  if (body.stream === true && streamed !== null && isSuccess(streamed.status) && isEventStreamType(streamed.headers['content-type'])) {
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
