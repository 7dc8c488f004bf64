// One emulated response (docs/jobs.md): its ID and creation time from the start, its output from
// the chat answer, whole (a JSON response, or its events at once) or as the chat's stream comes
// (each chunk's events sent on as it arrives), stored before it is said to be completed.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { finished } from 'node:stream/promises';
import type { ResponseCreate } from '../../../generated/types.ts';
import type { JobDeps } from '../../jobs/deps.ts';
import type { RequestContext } from '../../server/context.ts';
import { GatewayError } from '../../core/errors.ts';
import { describeError } from '../../core/log.ts';
import { MappingSink } from '../../providers/shared/mapped-response.ts';
import { putOutcomeHeaders } from '../../inference/send-outcome.ts';
import type { Outcome } from '../../router/outcome.ts';
import type { UpstreamResponse } from '../../upstream/types.ts';
import { StoreUnavailableError, UnstorableTextError } from '../../store/sql/sql-database.ts';
import { usageOf } from '../../pipeline/log/usage-of.ts';
import { sendJson } from '../../server/respond.ts';
import { callerOf } from '../http.ts';
import type { ChatMessage } from './conversation.ts';
import { ResponseEventFrames } from './events.ts';
import { buildFromChat, type ChatCompletion, type EmulatedOutput, OutputBuilder } from './output-builder.ts';
import { ChatStreamReader } from './chat-stream.ts';
import { outputItemIds } from './item-ids.ts';
import { storedConversation } from './truncation.ts';

/** One emulated response: its ID and creation time from the start, its output from the chat answer, whole or streamed. */
export class EmulatedResponse {
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

/** Whether the request asks for the reasoning's summary. */
function asksSummary(reasoning: unknown): boolean {
  const summary = (reasoning as { summary?: unknown } | null | undefined)?.summary;
  return summary !== undefined && summary !== null;
}
