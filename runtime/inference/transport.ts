// One upstream call for one leaf: provider, credential, options and base URL resolved from the
// leaf's plan merged with the request's headers (ARCHITECTURE §5: a leaf without a provider or
// credential takes them from x-gateway-provider and Authorization), then the provider's adapter
// builds the request and says how to read the answer.
import { hasKeys } from '../core/has-keys.ts';
import type { PlanLeaf } from '../core/plan.ts';
import { attemptLimitMs, type LeafTarget } from '../router/router-runtime.ts';
import { GatewayError } from '../core/errors.ts';
import { PROVIDER_HEADER } from '../core/gateway-headers.ts';
import type { Exchange } from '../pipeline/exchange.ts';
import { bufferedResponse, unreadAnswerError } from '../pipeline/answers.ts';
import { isNeverForwarded } from '../../compiler/config/forwarding.ts';
import { HostPolicy, policyHostname } from '../providers/host-policy.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { StoredCredentials, StoredIntegration } from '../providers/stored-credentials.ts';
import { mappedError, mapResponse } from '../providers/shared/mapped-response.ts';
import { splitUrl } from '../providers/shared/url.ts';
import type { EndpointKind, PreparedCall, ProviderAdapter, ProviderCall, ResponseMapping } from '../providers/types.ts';
import type { OpeningJudge } from '../providers/shared/stream-opening.ts';
import { dressedErrorAnswer, type ErrorAnswer } from '../providers/shared/error-answer.ts';
import { send } from '../upstream/send.ts';
import type { ResolvedTarget } from '../pipeline/services.ts';
import { formParts, overriddenForm } from '../core/form-body.ts';
import { optionOfOtherFamily } from '../../compiler/config/providers.ts';
import { refuseUnreadHeaders } from './unread-headers.ts';
import { chatOfMessagesCall, messagesCallIn, type MessagesCall } from './messages-as-chat-call.ts';
import { messagesMappingOver } from '../providers/shared/chat-as-messages.ts';
import { providerOfTarget, storedIntegration, virtualKeyOf } from './stored-target.ts';
import { boundaryOf } from '../core/multipart.ts';
import { lastKept, type LastKept } from '../core/memo.ts';
import { LruMap } from './lru.ts';
import { calledIds, keeper, keptFor } from '../pipeline/turn-memory/kept-thinking-memory.ts';
import type { TurnMemory } from '../pipeline/turn-memory/turn-memory.ts';
import type { UpstreamRequest, UpstreamResponse } from '../upstream/types.ts';
import { isEventStreamType } from '../core/event-stream-type.ts';

/** Headers of the client request that always go upstream (W3C trace context included); anything else only when forwarded. */
const PASSED_HEADERS = ['content-type', 'accept', 'traceparent', 'tracestate'];

/** Exchange state: the route's header verdict (refuseUnreadHeaders) was given and passed. */
const HEADERS_JUDGED = 'transport.headersJudged';

export interface TransportOptions {
  hostPolicy?: HostPolicy;
  /** Virtual keys and provider slugs, held in memory. */
  credentials?: StoredCredentials | null;
}

export class InferenceTransport {
  readonly #providers: ProviderRegistry;
  readonly #send: (req: UpstreamRequest) => Promise<UpstreamResponse>;
  readonly #hostPolicy: HostPolicy;
  #credentials: StoredCredentials | null;
  /** Bounded: header-supplied hosts are client input, up to the header limit (64 KB) each. */
  readonly #customHosts = new LruMap<string, CustomHost>(1000, CUSTOM_HOST_TEXT);
  /** What is kept between turns (the services' store, which a process's Redis replaces at start); null: nothing kept. */
  #turns: () => TurnMemory | null = () => null;

  constructor(providers: ProviderRegistry, sender: (req: UpstreamRequest) => Promise<UpstreamResponse> = send, options: TransportOptions = {}) {
    this.#providers = providers;
    this.#send = sender;
    this.#hostPolicy = options.hostPolicy ?? HostPolicy.fromEnv();
    this.#credentials = options.credentials ?? null;
  }

  /** Installs the in-memory virtual keys and slugs (set once the store is open). */
  useCredentials(credentials: StoredCredentials | null): void {
    this.#credentials = credentials;
  }

  /** Where a translation's signed thinking is kept between turns (read at each call: the store can change at start). */
  useTurnMemory(turns: () => TurnMemory | null): void {
    this.#turns = turns;
  }

  /** The provider a leaf resolves to, for x-gateway-provider; never throws (an unknown key fails in `call`). */
  readonly providerOf = (req: Exchange, leaf: LeafTarget): string => {
    const plan = leaf.plan;
    if (plan.provider !== null && !plan.provider.startsWith('@')) return plan.provider;
    return this.resolveTarget(req, plan).provider;
  };

  /**
   * What a target is for this request, as limit policies read it: its provider (its own, its virtual
   * key's or slug's, else the request's x-gateway-provider; '' when none) and the virtual key it uses
   * (its own, the one behind its slug, or the request's). Never throws: a key that is not stored
   * fails in `call`, and is named here as given.
   */
  readonly resolveTarget = (req: Exchange, plan: PlanLeaf): ResolvedTarget => {
    let stored: StoredIntegration | null = null;
    try {
      stored = storedIntegration(plan, req.options.virtualKey, this.#credentials);
    } catch {
      // Not stored: `call` answers 400 for it.
    }
    const own = plan.provider !== null && !plan.provider.startsWith('@') ? plan.provider : null;
    return {
      provider: own ?? stored?.provider ?? plan.provider ?? req.headerProvider ?? '',
      virtualKey: stored?.id ?? virtualKeyOf(plan, req.options.virtualKey),
    };
  };

  /**
   * Bound once, so routers can call it as a plain function. Not async: a call with nothing to wait
   * for before sending (the usual case) allocates no async frame; a new custom host (DNS) or a
   * body the adapter must read takes the async path.
   */
  readonly call = (req: Exchange, leaf: LeafTarget, signal: AbortSignal): Promise<UpstreamResponse> => {
    try {
      const plan = leaf.plan;
      const stored = storedIntegration(plan, req.options.virtualKey, this.#credentials);
      const providerName = providerOfTarget(plan, stored, req.headerProvider);
      if (providerName === null) throw new GatewayError('missing_provider', undefined, PROVIDER_HEADER);
      const attempt = (req.upstreamTry ??= { leafPath: '', provider: '', awaitingAnswer: false, tries: 0, overrides: plan.overrideParams, reportedUsage: null });
      attempt.tries = attempt.leafPath === plan.path ? attempt.tries + 1 : 1;
      attempt.leafPath = plan.path;
      attempt.overrides = plan.overrideParams;
      attempt.provider = providerName;
      attempt.awaitingAnswer = false;
      attempt.reportedUsage = null;
      attempt.keptThinking = null;
      const adapter = this.#providers.get(providerName);
      // A virtual key's or slug's provider is known only now: the target's own options must be its family's.
      if (stored !== null) refuseOtherFamilyOptions(plan, stored);
      // A custom-host or provider-option header some target must read; the route's virtual keys and slugs
      // are known only now. The verdict is the route's, so the first attempt that passes it stands for the rest.
      if (req.options.headersJudgedPerCall && !req.state.has(HEADERS_JUDGED)) {
        refuseUnreadHeaders(req.plan.root, req.options, this.#credentials);
        req.state.set(HEADERS_JUDGED, true);
      }
      const options = providerOptions(req.options.providerOptions, stored?.options, plan.providerOptions);
      const storedHost = stored?.options.custom_host;
      const customHostText = plan.customHost ?? (typeof storedHost === 'string' ? storedHost : null) ?? req.options.customHost;
      const customHost = customHostText === null ? null : this.#customHost(customHostText);
      const endpoint: EndpointKind = req.endpoint;
      const strict = plan.strictVendorCompliance;
      const call: ProviderCall = {
        endpoint,
        method: req.method,
        path: req.upstreamPath,
        body: undefined,
        rawBody: req.rawBody,
        apiKey: plan.apiKey ?? stored?.apiKey ?? req.options.bearerToken,
        options,
        customHost: customHost === null ? null : customHost.base,
        strictVendorCompliance: strict,
        headers: req.options.passedHeaders,
        signal,
        keptThinking: null,
        keepThinking: null,
      };
      // A host judged in the last seconds costs a map lookup; only a new one waits (on DNS).
      const hostKnown = customHost === null || this.#hostPolicy.checkCached(customHost.url, 'custom_host', customHost.policyName);
      // The messages API's call: the target answers it as itself, or as a chat (messages-as-chat-call.ts), by its body's model.
      const messages = messagesCallIn(adapter, endpoint, req.method, req.upstreamPath);
      const wantsBody = messages !== null || hasKeys(plan.overrideParams) || adapter.readsBody(endpoint, call);
      if (hostKnown && !wantsBody) return this.#prepare(adapter, call, req, plan, null);
      return this.#callAfterWaiting(adapter, call, req, plan, hostKnown ? null : customHost, wantsBody, messages);
    } catch (error) {
      return Promise.reject(error);
    }
  };

  async #callAfterWaiting(adapter: ProviderAdapter, call: ProviderCall, req: Exchange, plan: PlanLeaf, uncheckedHost: CustomHost | null, wantsBody: boolean, messages: MessagesCall | null): Promise<UpstreamResponse> {
    /** The messages API's call sent as a chat: whether it streams (its answer is read back as the messages API's); null when it is none. */
    let asMessages: boolean | null = null;
    if (uncheckedHost !== null) await this.#hostPolicy.check(uncheckedHost.url, 'custom_host');
    if (wantsBody) {
      const boundary = req.rawBody === null ? null : boundaryOf(req.options.passedHeaders['content-type']);
      if (boundary !== null && hasKeys(plan.overrideParams)) {
        // A form: its fields are overridden in place and its files passed on as they are.
        const form = overriddenForm(formParts(req.rawBody!, boundary), boundary, plan.overrideParams);
        call.body = form.params;
        call.rawBody = form.body;
      } else {
        const body = await bodyObject(req, plan.overrideParams);
        call.body = body;
        if (body !== undefined && hasKeys(plan.overrideParams)) call.rawBody = overriddenBytes(req.params as object, plan.overrideParams, body);
        const chat = messages === null ? null : chatOfMessagesCall(adapter, call, messages, body);
        if (chat !== null) {
          Object.assign(call, { endpoint: 'chat', path: '/chat/completions', body: chat, rawBody: Buffer.from(JSON.stringify(chat)) });
          // A count is answered by the adapter in the messages API's shape; a create call's answer is read back as that API's.
          if (messages === 'count') call.countTokens = true;
          else asMessages = chat.stream === true;
        }
      }
      // A translation that keeps signed thinking hands it over, and gets back what earlier answers kept.
      const turns = call.endpoint === 'chat' && call.body !== undefined && adapter.keepsThinking?.(call.body) === true ? this.#turns() : null;
      if (turns !== null) {
        call.keepThinking = keeper(turns, req);
        const ids = calledIds(call.body!);
        if (ids.length > 0) call.keptThinking = await keptFor(turns, req, ids);
      }
    }
    return this.#prepare(adapter, call, req, plan, asMessages);
  }

  /** `asMessages`: the messages API's call sent as a chat (streamed or not), its answer read back as that API's; null: none. */
  #prepare(adapter: ProviderAdapter, call: ProviderCall, req: Exchange, plan: PlanLeaf, asMessages: boolean | null): Promise<UpstreamResponse> {
    const pending = adapter.prepare(call);
    // Most adapters prepare synchronously: no promise turn for them.
    if (pending instanceof Promise) return pending.then((prepared) => this.#dispatch(adapter, readAsMessages(prepared, adapter, asMessages), req, plan, call.signal, asMessages));
    return this.#dispatch(adapter, readAsMessages(pending, adapter, asMessages), req, plan, call.signal, asMessages);
  }

  /**
   * `asMessages`: the messages API's call sent as a chat (streamed or not; null: none), a chat to the
   * provider: its answer is read whole, and an error the provider dressed as a JSON answer is found
   * in its own answer, before the answer is the messages API's.
   */
  #dispatch(adapter: ProviderAdapter, prepared: PreparedCall, req: Exchange, plan: PlanLeaf, signal: AbortSignal, asMessages: boolean | null): Promise<UpstreamResponse> {
    const url = splitUrl(prepared.url);
    const sent = this.#send({
      origin: url.origin,
      path: url.path,
      method: prepared.method,
      headers: this.#headers(req, plan.forwardHeaders, prepared.headers),
      body: prepared.body,
      signal,
      timeoutMs: attemptLimitMs(req, plan),
      progress: req.upstreamTry,
      webSocket: req.options.webSocket !== null,
    });
    const mapping = prepared.response;
    const endpoint: EndpointKind = asMessages === null ? req.endpoint : 'chat';
    const whole = WHOLE_ANSWERS.has(endpoint);
    const opening = OPENED_STREAMS.has(endpoint) ? adapter.streamOpening : undefined;
    // The usual answer (the vendor's own, chat): one step, reading it whole or waiting for its stream to begin.
    if (mapping === null) return sent.then(whole ? (response) => wholeAnswer(response, opening) : (response) => begunAnswer(response, opening));
    // A translated stream's usage as its provider reported it, for the log (UpstreamTry.reportedUsage).
    const attempt = req.upstreamTry!;
    const report = mapping.stream === undefined ? undefined : (usage: unknown): void => {
      attempt.reportedUsage = usage;
    };
    const begun = sent.then((response) => begunAnswer(response, opening));
    // The messages API's call as a chat: the provider's own answer is read whole (a dressed error found), not the message made of it.
    if (asMessages !== null) return (asMessages ? begun : begun.then((response) => wholeAnswer(response, undefined, mapping))).then((response) => mapResponse(response, mapping, report));
    const answered = begun.then((response) => mapResponse(response, mapping, report));
    return whole ? answered.then((response) => wholeAnswer(response, undefined, mapping)) : answered;
  }

  #headers(req: Exchange, configForwarded: readonly string[], provider: Record<string, string>): Record<string, string> {
    // The server copied these out of the client's headers (runtime/pipeline/options.ts).
    const incoming = req.options.passedHeaders;
    const headers: Record<string, string> = {};
    for (const names of [PASSED_HEADERS, configForwarded, req.options.forwardHeaders]) {
      for (const name of names) {
        const value = incoming[name];
        // Checked where the lists are made too; this is the last line of defence.
        if (value !== undefined && !isNeverForwarded(name)) headers[name] = value;
      }
    }
    // A WebSocket handshake's own headers: the provider answers the client's key.
    if (req.options.webSocket !== null) Object.assign(headers, req.options.webSocket);
    // The credential and the provider's own headers are the gateway's to set; a forwarded header never replaces them.
    return Object.assign(headers, provider);
  }

  /** Parses a custom host once (http(s) only, a bare base URL); the host policy is asked per call. */
  #customHost(text: string): CustomHost {
    let entry = this.#customHosts.get(text);
    if (entry === undefined) {
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        throw new GatewayError('invalid_custom_host', `The custom host ${JSON.stringify(text)} is not a valid URL.`, 'custom_host');
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new GatewayError('invalid_custom_host', `The custom host must be http:// or https://, not ${url.protocol}`, 'custom_host');
      }
      if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
        throw new GatewayError('invalid_custom_host', 'The custom host must be a base URL without credentials, query or fragment.', 'custom_host');
      }
      entry = { url, base: url.href.replace(/\/+$/, ''), policyName: policyHostname(url) };
      this.#customHosts.set(text, entry, text.length);
    }
    return entry;
  }
}

/** Characters of custom-host text kept parsed together: a thousand hosts of 256 characters. */
const CUSTOM_HOST_TEXT = 256_000;

/** A parsed custom host, kept per distinct text. */
interface CustomHost {
  url: URL;
  /** The normalised URL without trailing slashes: what adapters join paths to. */
  base: string;
  /** The name the host policy keeps its verdict under. */
  policyName: string;
}

const NO_OPTIONS: Readonly<Record<string, unknown>> = Object.freeze({});

/** Endpoints whose non-streamed answers are JSON the client reads whole. */
const WHOLE_ANSWERS: ReadonlySet<EndpointKind> = new Set(['chat', 'completions', 'embeddings']);

/**
 * Endpoints whose streams are read up to their first event, for an error they open with
 * (ProviderAdapter.streamOpening): a pass-through stream too (the messages API's own `/messages`,
 * a forwarded Responses call), since a family's streams share their format and its errors.
 */
const OPENED_STREAMS: ReadonlySet<EndpointKind> = new Set(['chat', 'completions', 'passthrough']);

/**
 * A 2xx answer goes on once the first byte of its body is in (or its end): one whose connection
 * breaks before (a stream that never began) is a failed attempt (502 provider_invalid_response) that
 * retries and fallbacks move past, as a broken whole answer is, instead of the client's error after
 * the route was done. The client sees nothing before that byte anyway (its head is written with it).
 * With `opening` (a chat, completions or pass-through answer), a stream goes on once its first event is in, and
 * one that opened with an error is that error's answer (providers/shared/stream-opening.ts).
 */
function begunAnswer(response: UpstreamResponse, opening?: OpeningJudge): Promise<UpstreamResponse> | UpstreamResponse {
  if (response.status < 200 || response.status >= 300 || response.bodyBegun === undefined) return response;
  const begun = response.bodyBegun();
  const judged = opening !== undefined && response.heldBody !== undefined && opening.streams(response.headers) ? opening : null;
  if (begun === null) return judged === null ? response : openedAnswer(response, judged);
  return begun.then(() => (judged === null ? response : openedAnswer(response, judged)), (error: unknown) => {
    throw unreadAnswerError(error);
  });
}

/**
 * A begun answer once its first event is in: itself, or the error answer it opened with. A stream
 * that ends before its first event is whole is a failed attempt, like one that breaks.
 */
function openedAnswer(response: UpstreamResponse, opening: OpeningJudge): Promise<UpstreamResponse> | UpstreamResponse {
  const held = response.heldBody!();
  const verdict = opening.judge(held);
  if (verdict === 'began') return response;
  if (verdict !== 'more') {
    response.discard();
    return errorAnswer(response, verdict);
  }
  const more = response.bodyBegun!(held.length);
  if (more === null) {
    if (response.heldBody!().length > held.length) return openedAnswer(response, opening);
    // The body ended: a stream without one whole event answers nothing (an SDK's iterator would just stop), and nothing went out yet.
    response.discard();
    throw new GatewayError('provider_invalid_response', held.length === 0 ? "The provider's stream ended without an event." : "The provider's stream ended inside its first event.");
  }
  return more.then(() => openedAnswer(response, opening), (error: unknown) => {
    throw unreadAnswerError(error);
  });
}

/** Headers of a 2xx answer that do not describe the error answer made of it. */
const BODY_HEADERS = new Set(['content-type', 'content-length', 'content-encoding', 'transfer-encoding', 'cache-control']);

/** The error a 2xx answer carried, as the answer the provider would have sent with its status: its other headers kept. */
function errorAnswer(response: UpstreamResponse, error: ErrorAnswer): UpstreamResponse {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(response.headers)) if (!BODY_HEADERS.has(name)) headers[name] = value;
  Object.assign(headers, error.headers);
  headers['content-length'] = String(error.body.length);
  return bufferedResponse(error.status, headers, error.body);
}

/** Why an answer may not read as JSON: compressed although every upstream request asks for identity (hop-by-hop.ts). */
function compressedBy(headers: Record<string, string | string[]>): string {
  const encoding = headers['content-encoding'];
  const named = Array.isArray(encoding) ? encoding.join(', ') : encoding;
  return named === undefined || named.trim() === '' || named.trim().toLowerCase() === 'identity' ? '' : ` (it is compressed, content-encoding ${JSON.stringify(named)}, though the gateway asked for an uncompressed answer)`;
}

/**
 * A 2xx non-streamed JSON answer is read whole (bounded by GATEWAY_UPSTREAM_MAX_BYTES) before the
 * client sees a byte of it: a body that breaks, is cut short, or is not a JSON object is a failed
 * attempt (502 provider_invalid_response) that retries and fallbacks move past, never a 200 with a
 * truncated or garbled body. One whose top-level `error` says it failed (error-answer.ts) is that
 * error's answer, mapped as the provider's errors are (`mapping`). Streams flow as they are once
 * begun (begunAnswer); error answers at once.
 */
function wholeAnswer(response: UpstreamResponse, opening?: OpeningJudge, mapping: ResponseMapping | null = null): Promise<UpstreamResponse> | UpstreamResponse {
  if (response.status < 200 || response.status >= 300) return response;
  const type = response.headers['content-type'];
  if (isEventStreamType(type)) return begunAnswer(response, opening);
  return response.readAll().then(
    (body) => {
      if (!looksLikeJsonObject(body)) throw new GatewayError('provider_invalid_response', `The provider answered 2xx with a body that is not a JSON object${compressedBy(response.headers)}.`);
      const dressed = dressedErrorAnswer(body);
      if (dressed !== null) {
        const answer = errorAnswer(response, dressed);
        return mapping === null ? answer : mappedError(answer, mapping);
      }
      const headers: Record<string, string | string[]> = { ...response.headers, 'content-length': String(body.length) };
      delete headers['transfer-encoding'];
      return bufferedResponse(response.status, headers, body);
    },
    (error: unknown) => {
      throw unreadAnswerError(error);
    },
  );
}

/** A JSON object's first and last non-space bytes (cheap: no parse; HTML, text and cut bodies fail it). */
function looksLikeJsonObject(body: Buffer): boolean {
  let start = 0;
  let end = body.length - 1;
  while (start <= end && isSpace(body[start])) start++;
  while (end >= start && isSpace(body[end])) end--;
  return start < end && body[start] === 0x7b && body[end] === 0x7d;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** Header options, then the stored integration's, then the leaf's: later ones win. One object only when needed. */
function providerOptions(
  fromHeaders: Readonly<Record<string, unknown>>,
  stored: Readonly<Record<string, unknown>> | undefined,
  fromPlan: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
  const headers = hasKeys(fromHeaders);
  const plan = hasKeys(fromPlan);
  if (stored === undefined || !hasKeys(stored)) {
    if (!headers) return plan ? fromPlan : NO_OPTIONS;
    if (!plan) return fromHeaders;
  }
  return { ...fromHeaders, ...stored, ...fromPlan };
}

/**
 * A body with a target's override_params applied, and its bytes, made once per request body and
 * overrides: a fallback's retries of one target (and targets sharing one long override, the router's
 * constant) would otherwise copy and serialise a body of up to 32 MB again on every try, up to 200 of
 * them. Only the last overrides' are kept: a fallback over targets with overrides of their own would
 * otherwise hold a copy per target until the request ends (200 of 32 MB). The object, kept as well,
 * is what the providers' mappings are kept for (runtime/providers/shared/mapped-body.ts).
 */
const overriddenObjects = new WeakMap<object, LastKept<object, Record<string, unknown>>>();
const overriddenByParams = new WeakMap<object, LastKept<object, Buffer>>();

function overriddenBytes(params: object, overrides: Record<string, unknown>, body: Record<string, unknown>): Buffer {
  return lastKept(overriddenByParams, params, overrides, () => Buffer.from(JSON.stringify(body)));
}

/** The parsed body with override_params applied; undefined for bodiless requests. */
async function bodyObject(req: Exchange, overrides: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
  if (req.rawBody === null || req.rawBody.length === 0) return undefined;
  const params = req.params !== undefined ? req.params : await req.json();
  if (params === null || typeof params !== 'object' || Array.isArray(params)) return undefined;
  if (!hasKeys(overrides)) return params as Record<string, unknown>;
  return lastKept(overriddenObjects, params, overrides, () => ({ ...(params as Record<string, unknown>), ...overrides }));
}


/** The prepared call of the messages API's call sent as a chat (`asMessages`: streamed or not), its answer read back as that API's; any other as it is. */
function readAsMessages(prepared: PreparedCall, adapter: ProviderAdapter, asMessages: boolean | null): PreparedCall {
  return asMessages === null ? prepared : { ...prepared, response: messagesMappingOver(prepared.response, adapter.name, asMessages) };
}

/** A target's own provider option that the stored integration's provider never reads would have no effect: 400. */
function refuseOtherFamilyOptions(plan: PlanLeaf, stored: StoredIntegration): void {
  const other = optionOfOtherFamily(plan.providerOptions, stored.provider);
  if (other === null) return;
  const via = plan.virtualKey !== null ? `the virtual key "${plan.virtualKey}"` : plan.provider !== null ? `"${plan.provider}"` : 'the request\'s virtual key';
  throw new GatewayError('invalid_provider_option', `The target (${plan.path}) sets "${other.key}", which only ${other.family} providers read; ${via} calls ${stored.provider}, so it would have no effect.`, other.key);
}
